package ior

import (
	"math"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/ior/config"
)

// BenchmarkTransfers times the timed loop, tester.transfers, over one
// rank's file of 16384 transfers of 4 KiB, and reports ns per transfer:
// on DUMMY (no I/O) that is the engine's own work per transfer, which
// the floor (scripts/iorloop.c) does not do; on POSIX (a temporary file,
// page cache) it is the whole pwrite or pread.
func BenchmarkTransfers(b *testing.B) {
	for _, bc := range []struct {
		name, api string
		acc       access
		deadline  bool // a -D deadline far away: the loop tests it per transfer
	}{
		{"DUMMY/write", "DUMMY", accWrite, false},
		{"DUMMY/read", "DUMMY", accRead, false},
		{"DUMMY/write-D", "DUMMY", accWrite, true},
		{"POSIX/write", "POSIX", accWrite, false},
		{"POSIX/read", "POSIX", accRead, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := "-a " + bc.api + " -w -r -k -b 64m -t 4k -o " + b.TempDir() + "/f"
			cfg, err := config.Parse(strings.Fields(args), testRegistry(b))
			if err != nil {
				b.Fatal(err)
			}
			o := cfg.Tests[0]
			tt, err := newTester(b.Context(), &soloComm{hook: func() {}}, &o, Env{}.withDefaults())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = tt.close() })
			if bc.acc == accRead { // the file to read
				if _, err := tt.phase(b.Context(), accWrite, 0); err != nil {
					b.Fatal(err)
				}
			}
			pl, err := tt.plan(bc.acc, 0)
			if err != nil {
				b.Fatal(err)
			}
			file, err := tt.open(bc.acc, pl.path)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = file.Close() })
			b.SetBytes(pl.count * o.TransferSize)
			b.ReportAllocs()
			tt.startDist(tt.env.Clock()) // the phase's start, as phase takes it
			deadline := math.Inf(1)
			if bc.deadline {
				deadline = tt.env.Clock() + 3600
			}
			for b.Loop() {
				if n, _, err := tt.transfers(file, bc.acc, pl, 0, pl.count, deadline, false); err != nil || n != pl.count {
					b.Fatalf("transfers = %d, %v; want %d, nil", n, err, pl.count)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*pl.count), "ns/transfer")
		})
	}
}
