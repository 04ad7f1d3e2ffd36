package collectives

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// BenchmarkCollective times every algorithm in process, over a pipe mesh
// with the default eager limit, for p = 2 and 4 and 8 B, 64 KiB and 4 MiB
// (IMB's #bytes: the buffer, block or vector; reductions are float32 sums).
// Each rank is a goroutine making b.N calls; ns/op is one call on all
// ranks, MB/s is #bytes per call. On a 2-CPU machine p = 4 is
// oversubscribed.
func BenchmarkCollective(b *testing.B) {
	for _, coll := range Collectives() {
		for _, alg := range Algorithms(coll) {
			for _, p := range []int{2, 4} {
				sizes := []int{8, 64 << 10, 4 << 20}
				if coll == "barrier" {
					sizes = []int{0}
				}
				for _, n := range sizes {
					name := fmt.Sprintf("%s/%s/p=%d/%s", coll, alg, p, sizeName(n))
					if coll == "barrier" {
						name = fmt.Sprintf("%s/%s/p=%d", coll, alg, p)
					}
					b.Run(name, func(b *testing.B) { benchCollective(b, coll, alg, p, n) })
				}
			}
		}
	}
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

func benchCollective(b *testing.B, coll, alg string, p, n int) {
	comms := newComms(b, p, pipe.Options{}, Options{Algorithms: map[string]string{coll: alg}})
	type bufs struct{ in, out []byte }
	all := make([]bufs, p)
	for r := range p {
		switch coll {
		case "bcast", "reduce", "allreduce":
			all[r] = bufs{make([]byte, n), make([]byte, n)}
		case "scatter":
			all[r] = bufs{make([]byte, p*n), make([]byte, n)}
		case "gather", "allgather":
			all[r] = bufs{make([]byte, n), make([]byte, p*n)}
		case "alltoall":
			all[r] = bufs{make([]byte, p*n), make([]byte, p*n)}
		}
	}
	b.SetBytes(int64(n))
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, p)
	b.ResetTimer()
	for r, c := range comms {
		in, out := all[r].in, all[r].out
		wg.Go(func() {
			for range b.N {
				var err error
				switch coll {
				case "barrier":
					err = c.Barrier(ctx)
				case "bcast":
					err = c.Bcast(ctx, in, 0)
				case "scatter":
					err = c.Scatter(ctx, in, out, 0)
				case "gather":
					err = c.Gather(ctx, in, out, 0)
				case "allgather":
					err = c.Allgather(ctx, in, out)
				case "alltoall":
					err = c.Alltoall(ctx, in, out)
				case "reduce":
					err = c.Reduce(ctx, in, out, Float32, Sum, 0)
				case "allreduce":
					err = c.Allreduce(ctx, in, out, Float32, Sum)
				}
				if err != nil {
					errs[r] = err
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	for r, err := range errs {
		if err != nil {
			b.Fatalf("rank %d: %v", r, err)
		}
	}
}

// BenchmarkCallOverhead times an 8-byte Bcast on a one-rank Comm, which
// moves nothing: what every collective call costs in checking the Comm,
// choosing the algorithm and finishing, on top of its messages.
func BenchmarkCallOverhead(b *testing.B) {
	c, err := New(0, 1, []fabric.Conn{nil}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	buf := make([]byte, 8)
	for b.Loop() {
		if err := c.Bcast(ctx, buf, 0); err != nil {
			b.Fatal(err)
		}
	}
}
