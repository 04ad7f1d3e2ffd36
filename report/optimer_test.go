package report

import "testing"

// TestAppendOpTime checks rows against what C's "%.8e,%.8e,%e\n" prints.
func TestAppendOpTime(t *testing.T) {
	for _, tc := range []struct {
		at, dur, size float64
		want          string
	}{
		{0, 1.5e-5, 4096, "0.00000000e+00,1.50000000e-05,2.730667e+08\n"},
		{12.25, 0.5, 1, "1.22500000e+01,5.00000000e-01,2.000000e+00\n"},
		{1e-9, 0, 4096, "1.00000000e-09,0.00000000e+00,inf\n"},
	} {
		if got := string(AppendOpTime(nil, tc.at, tc.dur, tc.size)); got != tc.want {
			t.Errorf("AppendOpTime(%v, %v, %v) = %q, want %q", tc.at, tc.dur, tc.size, got, tc.want)
		}
	}
}
