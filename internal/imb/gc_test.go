package imb

import "testing"

func TestDue(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name             string
		goal, live, used uint64
		want             bool
	}{
		{"just collected", 4 * mib, 1 * mib, 1 * mib, false},
		{"a little allocated", 4 * mib, 1 * mib, 2 * mib, false},
		{"half the headroom used", 4 * mib, 1 * mib, 1*mib + 3*mib/2, true},
		{"past the goal", 4 * mib, 1 * mib, 5 * mib, true},
		{"goal at live", 8 * mib, 8 * mib, 8 * mib, true},
		{"large heap, small change", 200 * mib, 100 * mib, 110 * mib, false},
	}
	for _, tt := range tests {
		if got := due(tt.goal, tt.live, tt.used); got != tt.want {
			t.Errorf("%s: due(%d, %d, %d) = %v, want %v", tt.name, tt.goal, tt.live, tt.used, got, tt.want)
		}
	}
}

// TestCollectIfDueReads checks that every metric collectIfDue reads
// exists in this runtime (an unknown name reads as KindBad, and due would
// then see zeros and collect every time).
func TestCollectIfDueReads(t *testing.T) {
	s := readGCMetrics()
	for i, v := range s {
		if v == 0 && i != 1 {
			t.Errorf("%s reads 0", gcMetrics[i])
		}
	}
}
