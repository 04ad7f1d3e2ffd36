package mdtest

import (
	"context"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
	"github.com/hpcbench/hpcbench/report"
)

// Sweep runs the test described by o once for each number of ranks of its
// -f/-l/-s sweep (o.TaskCounts after Resolve), as mdtest_run's loop does:
// the job's first n ranks run the whole test, every iteration, on their
// own communicator (collectives.Comm.Sub), while the others wait at a
// barrier of the whole job, which all pass before the next count starts.
// Without -l it is one run with every rank.
//
// It returns rank 0's Results, one per count in order (nil elsewhere). A
// count whose operations failed still reports, and the error returned
// then wraps ErrOps; any other error ends the sweep on this rank. Unlike
// mdtest, Sweep does not sleep for a second before each count.
func Sweep(ctx context.Context, c *collectives.Comm, o *config.Options, env Env) ([]*report.Result, error) {
	plan := *o
	if _, err := plan.Resolve(c.Size()); err != nil {
		return nil, fmt.Errorf("mdtest: %w", err)
	}
	counts := plan.TaskCounts()
	var results []*report.Result
	var opsErr error
	for _, n := range counts {
		res, err := sweepStep(ctx, c, o.ForTasks(n), env, n)
		switch {
		case errors.Is(err, ErrOps):
			opsErr = err
		case err != nil:
			return nil, err
		}
		if res != nil {
			results = append(results, res)
		}
	}
	return results, opsErr
}

// sweepStep runs o on the job's first n ranks and waits, on every rank,
// until they are done.
func sweepStep(ctx context.Context, c *collectives.Comm, o *config.Options, env Env, n int) (*report.Result, error) {
	if n == c.Size() {
		return Run(ctx, c, o, env)
	}
	sub, err := c.Sub(ctx, n)
	if err != nil {
		return nil, fmt.Errorf("mdtest: %d tasks: %w", n, err)
	}
	var res *report.Result
	var runErr error
	if sub != nil {
		env.JobRanks = c.Size()
		res, runErr = Run(ctx, sub, o, env)
		if err := sub.Close(); err != nil && runErr == nil {
			runErr = fmt.Errorf("mdtest: %d tasks: %w", n, err)
		}
		if runErr != nil && !errors.Is(runErr, ErrOps) {
			return nil, runErr
		}
	}
	// The ranks left out wait here for those that ran, as mdtest's do at
	// MPI_Barrier(world_com); all learn whether operations failed.
	var failed, any [1]byte
	if runErr != nil {
		failed[0] = 1
	}
	if err := c.Allreduce(ctx, failed[:], any[:], collectives.Byte, collectives.Max); err != nil {
		return nil, fmt.Errorf("mdtest: %d tasks: waiting for the ranks that ran: %w", n, err)
	}
	if runErr == nil && any[0] != 0 {
		runErr = fmt.Errorf("mdtest: %d tasks: operations failed: %w", n, ErrOps)
	}
	return res, runErr
}
