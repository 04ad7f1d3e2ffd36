package engine

import "testing"

// TestLoadBusy: a host is busy when its engine serves as many sessions
// as it has CPUs; a nil Load, or one of 0 CPUs (unknown), never is.
func TestLoadBusy(t *testing.T) {
	for _, tc := range []struct {
		load     *Load
		sessions int64
		want     bool
	}{
		{nil, 5, false},
		{NewLoad(0), 5, false},
		{NewLoad(2), 0, false},
		{NewLoad(2), 1, false},
		{NewLoad(2), 2, true},
		{NewLoad(2), 3, true},
	} {
		tc.load.add(tc.sessions)
		if got := tc.load.busy(); got != tc.want {
			t.Errorf("NewLoad(%v) with %d sessions: busy %v, want %v", tc.load != nil, tc.sessions, got, tc.want)
		}
	}
}
