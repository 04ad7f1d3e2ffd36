// Package jobtest runs an engine on several ranks inside one test
// process: a mesh of in-process connections (fabric/pipe), a
// collectives.Comm per rank, one goroutine per rank under one deadline,
// and a fake clock, so that engine tests need no launcher and golden
// figures do not depend on the machine.
package jobtest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// Timeout bounds one Run.
const Timeout = 2 * time.Minute

// Run runs rank(ctx, c) for every rank of an n-rank job, each in its own
// goroutine with its own Comm, and returns each rank's error once all
// have returned. An error that does not match soft (a failed verification
// is one: every rank returns it after finishing) cancels the others, as a
// launcher would stop the job; soft may be nil.
func Run(tb testing.TB, n int, soft error, rank func(ctx context.Context, c *collectives.Comm) error) []error {
	tb.Helper()
	mesh := pipe.Mesh(n)
	comms := make([]*collectives.Comm, n)
	for r := range n {
		c, err := collectives.New(r, n, mesh[r], collectives.Options{})
		if err != nil {
			tb.Fatalf("jobtest: rank %d of %d: %v", r, n, err)
		}
		comms[r] = c
	}
	defer func() {
		for _, c := range comms {
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = rank(ctx, comms[r])
			if errs[r] != nil && (soft == nil || !errors.Is(errs[r], soft)) {
				cancel()
			}
		}()
	}
	wg.Wait()
	return errs
}

// NoErrors fails the test, listing every rank's error, unless all are nil.
func NoErrors(tb testing.TB, errs []error) {
	tb.Helper()
	failed := false
	for r, err := range errs {
		if err != nil {
			tb.Errorf("rank %d: %v", r, err)
			failed = true
		}
	}
	if failed {
		tb.FailNow()
	}
}

// FakeClock returns a clock in seconds that starts at 1000 and advances by
// step on every reading: a rank's figures then depend only on the order of
// its own calls.
func FakeClock(step float64) func() float64 {
	var mu sync.Mutex
	now := 1000.0
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		now += step
		return now
	}
}
