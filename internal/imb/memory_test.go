package imb

import (
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/units"
)

// TestBufferBytes: the send and receive buffers at the largest size, as
// the benchmark sizes them for the job (Alltoall's are np messages).
func TestBufferBytes(t *testing.T) {
	for _, c := range []struct {
		benchmarks []string
		maxLog, np int
		check      bool
		want       int64
	}{
		{[]string{"PingPong"}, 22, 2, false, 8 * units.MiB},
		{[]string{"Alltoall"}, 30, 4, false, 8 * units.GiB},
		{[]string{"Gather", "Bcast"}, 20, 8, false, units.MiB + 8*units.MiB},
		{[]string{"Allreduce"}, 20, 4, true, 3 * units.MiB},
		{[]string{"Barrier"}, 22, 4, false, 0},
	} {
		o := NewOptions()
		o.Benchmarks, o.MaxLog, o.Check = c.benchmarks, c.maxLog, c.check
		if got := o.BufferBytes(c.np); got != c.want {
			t.Errorf("%v -msglog %d, %d ranks: %d bytes, want %d", c.benchmarks, c.maxLog, c.np, got, c.want)
		}
	}
	o := NewOptions()
	o.Benchmarks, o.MaxLog = []string{"Alltoall"}, 30
	err := o.CheckMemory(4, 4, hostmem.HostMemory{Bytes: 23 * units.GiB, Source: "MemAvailable"})
	if want := "-msglog 0:30: needs 8 GiB of buffer per rank, 32 GiB for the 4 ranks on this host"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("CheckMemory: %v, want %q", err, want)
	}
}
