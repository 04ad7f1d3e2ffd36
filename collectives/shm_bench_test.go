package collectives

import (
	"context"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/fabric/shm"
)

// BenchmarkShmExchange times, in process over shared memory between two
// ranks, the exchange patterns behind large Allgather and Alltoall.
func BenchmarkShmExchange(b *testing.B) {
	sm, err := shm.New(shm.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	mesh := fabrictest.AllToAll(b, sm, 2)
	comms := make([]*Comm, 2)
	for r := range 2 {
		if comms[r], err = New(r, 2, mesh[r], Options{}); err != nil {
			b.Fatal(err)
		}
	}
	defer func() {
		for _, c := range comms {
			c.Close()
		}
	}()
	for _, n := range []int{512 << 10, 1 << 20, 2 << 20} {
		send := [2][]byte{make([]byte, n), make([]byte, n)}
		recv := [2][]byte{make([]byte, 2*n), make([]byte, 2*n)}
		run := func(b *testing.B, f func(ctx context.Context, c *Comm, r int) error) {
			b.SetBytes(int64(n))
			ctx := context.Background()
			var wg sync.WaitGroup
			for r := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range b.N {
						if err := f(ctx, comms[r], r); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
		}
		b.Run("allgather/"+sizeName(n), func(b *testing.B) {
			run(b, func(ctx context.Context, c *Comm, r int) error { return c.Allgather(ctx, send[r], recv[r]) })
		})
		b.Run("inturn/"+sizeName(n), func(b *testing.B) {
			run(b, func(ctx context.Context, c *Comm, r int) error {
				return c.sendrecv(ctx, 7, 1-r, send[r], 1-r, recv[r][:n])
			})
		})
		b.Run("pingpong/"+sizeName(n), func(b *testing.B) {
			run(b, func(ctx context.Context, c *Comm, r int) error {
				if r == 0 {
					if err := c.Send(ctx, 1, send[r]); err != nil {
						return err
					}
					_, err := c.Recv(ctx, 1, recv[r][:n])
					return err
				}
				if _, err := c.Recv(ctx, 0, recv[r][:n]); err != nil {
					return err
				}
				return c.Send(ctx, 0, send[r])
			})
		})
	}
}
