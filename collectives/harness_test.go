package collectives

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// newComms returns p Comms joined by a pipe mesh with options po, closed
// when the test ends.
func newComms(tb testing.TB, p int, po pipe.Options, o Options) []*Comm {
	tb.Helper()
	return commsOn(tb, pipe.NewMesh(p, po), o)
}

// commsOn returns one Comm per rank of mesh (mesh[r] is rank r's
// connections), closed when the test ends.
func commsOn(tb testing.TB, mesh [][]fabric.Conn, o Options) []*Comm {
	tb.Helper()
	p := len(mesh)
	comms := make([]*Comm, p)
	for r := range p {
		c, err := New(r, p, mesh[r], o)
		if err != nil {
			tb.Fatalf("New(%d, %d): %v", r, p, err)
		}
		comms[r] = c
	}
	tb.Cleanup(func() {
		for _, c := range comms {
			c.Close()
		}
	})
	return comms
}

// runRanks runs f for every Comm in its own goroutine, all under one
// deadline, and returns each rank's error.
func runRanks(comms []*Comm, timeout time.Duration, f func(ctx context.Context, c *Comm) error) []error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	errs := make([]error, len(comms))
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Go(func() { errs[r] = f(ctx, c) })
	}
	wg.Wait()
	return errs
}

// checkRanks fails the test with every rank's error.
func checkRanks(tb testing.TB, errs []error) {
	tb.Helper()
	for r, err := range errs {
		if err != nil {
			tb.Errorf("rank %d: %v", r, err)
		}
	}
}
