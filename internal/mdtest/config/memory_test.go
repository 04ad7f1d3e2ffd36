package config

import (
	"testing"

	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/units"
)

// TestCheckMemory: -w and -e against the host's memory, the write buffer
// and the read buffer both counted.
func TestCheckMemory(t *testing.T) {
	host := hostmem.HostMemory{Bytes: 23 * units.GiB, Source: "MemAvailable"}
	for _, c := range []struct {
		w, e  int64
		ranks int
		want  string
	}{
		{64 * units.GiB, 0, 1, "-w 64g: needs 128 GiB of buffer per rank, this host has 23 GiB available (MemAvailable)"},
		{0, 30 * units.GiB, 1, "-e 30g: needs 30 GiB of buffer per rank, this host has 23 GiB available (MemAvailable)"},
		{1 * units.GiB, 2 * units.GiB, 8, "-w 1g -e 2g: needs 3 GiB of buffer per rank, 24 GiB for the 8 ranks on this host, which has 23 GiB available (MemAvailable)"},
		{3901, 3901, 64, ""},
	} {
		o := Options{WriteBytes: c.w, ReadBytes: c.e}
		err := o.CheckMemory(c.ranks, host)
		if got := ""; err != nil {
			got = err.Error()
			if got != c.want {
				t.Errorf("-w %d -e %d × %d: %q, want %q", c.w, c.e, c.ranks, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("-w %d -e %d × %d: fits, want %q", c.w, c.e, c.ranks, c.want)
		}
	}
}
