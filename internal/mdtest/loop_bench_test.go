package mdtest

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
)

// BenchmarkItemLoop times the item phases' timed loop alone (itemLoop),
// stat of 4096 items a pass, each path derived as the loop reaches it, on
// DUMMY (whose stat does almost nothing, so that the loop's own cost
// shows) and on POSIX files in the test's temporary directory, and
// reports ns/item. go test -bench ItemLoop
// -benchtime 200ms -count 3 ./internal/mdtest. On a loaded host, compare
// CPU time instead (-benchtime 5000x, user+sys of the test binary): the
// distributions' one clock reading and record per item cost 27 ns of it.
func BenchmarkItemLoop(b *testing.B) {
	const n = 4096
	for _, api := range []string{"DUMMY", "POSIX"} {
		b.Run(api, func(b *testing.B) {
			dir := b.TempDir()
			o, err := config.Parse([]string{"-a", api, "-n", strconv.Itoa(n), "-F", "-d", dir}, testRegistry(b))
			if err != nil {
				b.Fatal(err)
			}
			be, err := o.Backend.New(o.BackendOptions, aiori.Env{Rank: 0, Size: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer be.Close()
			env := Env{}.withDefaults()
			rec, err := distribution.New(distribution.DefaultInterval, distribution.Steady{})
			if err != nil {
				b.Fatal(err)
			}
			r := &runner{o: o, env: env, size: 1, be: be, md: be.(aiori.Metadata), items: n, tick: env.Tick, rec: rec, srec: rec,
				layout: o.Layout()}
			r.iio, _ = be.(itemIO)
			r.pb = newPathBuf(r.iio != nil)
			if err := os.MkdirAll(r.dirPath(r.tree(0), 0, 0), 0o755); err != nil {
				b.Fatal(err)
			}
			ps := r.phaseItems(phFileStat, 0)
			for i := range ps.n {
				if err := os.WriteFile(r.path(&ps, i), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			var failed int64
			var first string
			b.ResetTimer()
			for b.Loop() {
				benchLoop(r, &ps, &failed, &first)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
			if failed > 0 {
				b.Fatalf("%d stats failed: %s", failed, first)
			}
		})
	}
}

// benchLoop runs one pass of the stat loop over ps.
func benchLoop(r *runner, ps *itemSet, failed *int64, first *string) {
	r.itemLoop(context.Background(), phFileStat, ps, r.fileStat, r.newLoop(phFileStat), failed, first)
}
