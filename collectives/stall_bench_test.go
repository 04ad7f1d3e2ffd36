package collectives

import (
	"context"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/fabric/pipe"
	"github.com/hpcbench/hpcbench/fabric/shm"
)

// BenchmarkSmallShm times, in process over shared memory between two
// ranks, the small-message calls whose cost a per-wait stall deadline
// could show in: an 8-byte ping-pong (one round trip per op), an 8-byte
// Allreduce and a Barrier. Each runs with the stall deadline off and on
// (StallTimeout 60s), to show what the watch costs.
func BenchmarkSmallShm(b *testing.B) {
	for _, s := range stallBenchCases {
		b.Run(s.name, func(b *testing.B) { benchSmallShm(b, s.opts) })
	}
}

// BenchmarkSmallPipe is BenchmarkSmallShm over an in-process pipe, whose
// messages cost less than shared memory's, so that the watch's share
// shows more.
func BenchmarkSmallPipe(b *testing.B) {
	for _, s := range stallBenchCases {
		b.Run(s.name, func(b *testing.B) { benchSmall(b, newComms(b, 2, pipe.Options{}, s.opts)) })
	}
}

func benchSmallShm(b *testing.B, o Options) {
	sm, err := shm.New(shm.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	mesh := fabrictest.AllToAll(b, sm, 2)
	comms := make([]*Comm, 2)
	for r := range 2 {
		if comms[r], err = New(r, 2, mesh[r], o); err != nil {
			b.Fatal(err)
		}
	}
	defer func() {
		for _, c := range comms {
			c.Close()
		}
	}()
	benchSmall(b, comms)
}

// benchSmall runs the small calls on two ranks.
func benchSmall(b *testing.B, comms []*Comm) {
	run := func(b *testing.B, f func(ctx context.Context, c *Comm, r int, in, out []byte) error) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var wg sync.WaitGroup
		for r := range 2 {
			in, out := make([]byte, 8), make([]byte, 8)
			wg.Go(func() {
				for range b.N {
					if err := f(ctx, comms[r], r, in, out); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	b.Run("pingpong/8B", func(b *testing.B) {
		run(b, func(ctx context.Context, c *Comm, r int, in, out []byte) error {
			if r == 0 {
				if err := c.Send(ctx, 1, in); err != nil {
					return err
				}
				_, err := c.Recv(ctx, 1, out)
				return err
			}
			if _, err := c.Recv(ctx, 0, out); err != nil {
				return err
			}
			return c.Send(ctx, 0, in)
		})
	})
	b.Run("allreduce/8B", func(b *testing.B) {
		run(b, func(ctx context.Context, c *Comm, r int, in, out []byte) error {
			return c.Allreduce(ctx, in, out, Float64, Sum)
		})
	})
	b.Run("barrier", func(b *testing.B) {
		run(b, func(ctx context.Context, c *Comm, r int, in, out []byte) error { return c.Barrier(ctx) })
	})
}
