package collectives

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// countingAlloc is a fabric.Allocator that records what it handed out.
type countingAlloc struct {
	mu   sync.Mutex
	live map[*byte]int // first byte → length, of buffers not yet freed
	n    int           // Alloc calls
}

func (a *countingAlloc) Alloc(n int) []byte {
	b := make([]byte, n+1)[:n] // never empty, so that &b[:1][0] is its key
	a.mu.Lock()
	defer a.mu.Unlock()
	a.live[&b[:1][0]] = n
	a.n++
	return b
}

func (a *countingAlloc) Free(b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.live, &b[:1][0])
}

// TestAllocator: a Comm's Alloc and its algorithms' scratch buffers come
// from Options.Allocator, and Close gives the scratch back.
func TestAllocator(t *testing.T) {
	const p = 4
	allocs := make([]*countingAlloc, p)
	mesh := pipe.NewMesh(p, pipe.Options{})
	comms := make([]*Comm, p)
	for r := range p {
		allocs[r] = &countingAlloc{live: map[*byte]int{}}
		c, err := New(r, p, mesh[r], Options{Allocator: allocs[r], Algorithms: map[string]string{"allreduce": "rabenseifner"}})
		if err != nil {
			t.Fatal(err)
		}
		comms[r] = c
	}
	const n = 1 << 16
	errs := runRanks(comms, time.Minute, func(ctx context.Context, c *Comm) error {
		send, recv := c.Alloc(n), c.Alloc(n)
		defer c.Free(send)
		defer c.Free(recv)
		return c.Allreduce(ctx, send, recv, Int32, Sum)
	})
	checkRanks(t, errs)
	for r, a := range allocs {
		if a.n < 3 || len(a.live) == 0 {
			t.Errorf("rank %d: %d allocations, %d live after the call; want the two buffers and scratch, the scratch still held", r, a.n, len(a.live))
		}
		comms[r].Close()
		if len(a.live) != 0 {
			t.Errorf("rank %d: %d buffers not freed after Close", r, len(a.live))
		}
	}
}
