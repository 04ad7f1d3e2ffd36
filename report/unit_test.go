package report

import "testing"

// TestHeadingSaysTheUnitOnce: a heading states its unit once, and the
// unit its values are in.
func TestHeadingSaysTheUnitOnce(t *testing.T) {
	for _, c := range []struct{ name, unit, want string }{
		{"bw", "MiB/s", "bw(MiB/s)"},
		{"Mean(s)", "s", "Mean(s)"},
		{"aggs(MiB)", "MiB", "aggs(MiB)"},
		{"Mean(s)", "ms", "Mean(ms)"},
		{"MB/sec", "MB/s", "MB/sec"},
		{"min MB/sec", "MB/s", "min MB/sec"},
		{"usec/xfer", "s", "sec/xfer"},
		{"usec/xfer", "us", "usec/xfer"},
		{"p50", "s", "p50(s)"},
		{"items", "", "items"},
	} {
		if got := heading(c.name, c.unit); got != c.want {
			t.Errorf("heading(%q, %q) = %q, want %q", c.name, c.unit, got, c.want)
		}
	}
}
