package jobtest

import (
	"context"
	"errors"
	"testing"

	"github.com/hpcbench/hpcbench/collectives"
)

func TestRunAllRanks(t *testing.T) {
	errs := Run(t, 3, nil, func(ctx context.Context, c *collectives.Comm) error {
		return c.Barrier(ctx)
	})
	NoErrors(t, errs)
}

// TestRunCancelsOnHardError: a rank that fails for real releases the
// others from a barrier they would otherwise wait in until the deadline.
func TestRunCancelsOnHardError(t *testing.T) {
	boom, soft := errors.New("boom"), errors.New("soft")
	errs := Run(t, 3, soft, func(ctx context.Context, c *collectives.Comm) error {
		if c.Rank() == 1 {
			return boom
		}
		return c.Barrier(ctx)
	})
	if !errors.Is(errs[1], boom) || errs[0] == nil || errs[2] == nil {
		t.Errorf("errors %v: want boom on rank 1 and the barrier cancelled on 0 and 2", errs)
	}
}

func TestFakeClock(t *testing.T) {
	c := FakeClock(0.5)
	if a, b := c(), c(); a != 1000.5 || b != 1001 {
		t.Errorf("readings %v, %v; want 1000.5, 1001", a, b)
	}
}
