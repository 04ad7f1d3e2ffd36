package fabtest

import (
	"testing"

	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/units"
)

// TestCheckMemory: the largest size's four buffers against the host.
func TestCheckMemory(t *testing.T) {
	host := hostmem.HostMemory{Bytes: 3 * units.GiB, Source: "MemAvailable"}
	for _, c := range []struct {
		sizes []int
		want  string
	}{
		{nil, ""},
		{[]int{8, 1 << 20}, ""},
		{[]int{8, 1 << 30}, "-S 1 GiB: needs 4 GiB of buffers on a host running both ends, this host has 3 GiB (MemAvailable)"},
	} {
		err := checkMemory(c.sizes, host)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.sizes, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%v: %v, want %q", c.sizes, err, c.want)
		}
	}
}
