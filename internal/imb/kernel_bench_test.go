package imb

import (
	"context"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/distribution"
)

// BenchmarkTimedLoop is what the loops IMB times as a whole cost per
// repetition besides the benchmark's own call (here one that does
// nothing): "off" is the loop without recording (the warm-up's),
// "sampled" the measured run's, which times the repetitions distribution's
// sampling picks (with a no-op, one in 64), and "reading" what one clock
// reading and its recording cost, which a reading after every repetition
// would add to each.
func BenchmarkTimedLoop(b *testing.B) {
	base := time.Now()
	now := func() float64 { return time.Since(base).Seconds() }
	newRun := func(b *testing.B, rec bool) *sizeRun {
		x := &sizeRun{ctx: context.Background(), o: &Options{}, g: newFakeWorld(1).comm(0), now: now, np: 1}
		if rec {
			r, err := distribution.New(time.Second, distribution.Steady{})
			if err != nil {
				b.Fatal(err)
			}
			x.rec = r
		}
		return x
	}
	nop := func() error { return nil }
	for _, c := range []struct {
		name string
		rec  bool
	}{{"off", false}, {"sampled", true}} {
		b.Run(c.name, func(b *testing.B) {
			x := newRun(b, c.rec)
			b.ReportAllocs()
			b.ResetTimer()
			if _, _, err := x.pointToPoint(b.N, false, nop); err != nil {
				b.Fatal(err)
			}
		})
	}
	b.Run("reading", func(b *testing.B) {
		x := newRun(b, true)
		x.begin(x.now())
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			x.rec.Next(x.ns(x.now()), 1)
		}
	})
}
