package config

import (
	"testing"

	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/units"
)

// TestCheckMemory: -w and -e against the host's memory, the write buffer
// and the read buffer both counted, then --savePerOpDataCSV's 16 bytes per
// operation on top of them (every rank's operations on rank 0 with -c);
// without --savePerOpDataCSV, -n takes no memory.
func TestCheckMemory(t *testing.T) {
	host := hostmem.HostMemory{Bytes: 23 * units.GiB, Source: "MemAvailable"}
	for _, c := range []struct {
		w, e, n    int64
		perOp      bool
		collective bool
		np, ranks  int
		want       string
	}{
		{w: 64 * units.GiB, np: 1, ranks: 1, want: "-w 64g: needs 128 GiB of buffer per rank, this host has 23 GiB available (MemAvailable)"},
		{e: 30 * units.GiB, np: 1, ranks: 1, want: "-e 30g: needs 30 GiB of buffer per rank, this host has 23 GiB available (MemAvailable)"},
		{w: 1 * units.GiB, e: 2 * units.GiB, np: 8, ranks: 8, want: "-w 1g -e 2g: needs 3 GiB of buffer per rank, 24 GiB for the 8 ranks on this host, which has 23 GiB available (MemAvailable)"},
		{w: 3901, e: 3901, np: 64, ranks: 64},
		{n: 100_000_000_000, np: 1, ranks: 1},
		{n: 100_000_000_000, perOp: true, np: 1, ranks: 1,
			want: "--savePerOpDataCSV with -n 100000000000: 16 bytes per operation: needs 1.5 TiB of buffer per rank, this host has 23 GiB available (MemAvailable)"},
		{n: 1_000_000_000, perOp: true, np: 2, ranks: 2,
			want: "--savePerOpDataCSV with -n 1000000000: 16 bytes per operation: needs 14.9 GiB of buffer per rank, 29.8 GiB for the 2 ranks on this host, which has 23 GiB available (MemAvailable)"},
		{n: 100_000_000, perOp: true, np: 4, ranks: 4},
		{n: 100_000_000, perOp: true, collective: true, np: 16, ranks: 4,
			want: "--savePerOpDataCSV with -n 100000000: 16 bytes per operation: needs 25.3 GiB of buffer per rank, 101.3 GiB for the 4 ranks"},
	} {
		o := Options{WriteBytes: c.w, ReadBytes: c.e, Items: c.n, Collective: c.collective}
		if c.perOp {
			o.SavePerOpDataCSV = "ops"
		}
		err := o.CheckMemory(c.np, c.ranks, host)
		if got := ""; err != nil {
			got = err.Error()
			if len(got) < len(c.want) || got[:len(c.want)] != c.want || c.want == "" {
				t.Errorf("%+v: %q, want %q", c, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("%+v: fits, want %q", c, c.want)
		}
	}
}
