package collectives

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// TestBarrierHoldsEveryRank checks what a barrier promises, for every
// algorithm and process count: no rank leaves before the last one has
// entered. Each round one rank, a different one every round, enters late;
// every rank counts itself in before the barrier and checks the count
// after it.
func TestBarrierHoldsEveryRank(t *testing.T) {
	const rounds = 8
	for _, alg := range Algorithms("barrier") {
		for _, p := range []int{1, 2, 3, 4, 5, 7, 8} {
			t.Run(fmt.Sprintf("%s/p=%d", alg, p), func(t *testing.T) {
				t.Parallel()
				comms := newComms(t, p, pipe.Options{}, Options{Algorithms: map[string]string{"barrier": alg}})
				var entered atomic.Int64
				errs := runRanks(comms, 10*time.Second, func(ctx context.Context, c *Comm) error {
					for k := range int64(rounds) {
						if c.Rank() == int(k)%p {
							time.Sleep(2 * time.Millisecond)
						}
						entered.Add(1)
						if err := c.Barrier(ctx); err != nil {
							return err
						}
						if n, want := entered.Load(), (k+1)*int64(p); n < want {
							return fmt.Errorf("round %d: left the barrier with %d entries counted; want at least %d", k, n, want)
						}
						// A second barrier keeps the next round's entries
						// out of this round's check.
						if err := c.Barrier(ctx); err != nil {
							return err
						}
					}
					return nil
				})
				checkRanks(t, errs)
			})
		}
	}
}
