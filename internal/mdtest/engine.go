package mdtest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/clock"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
	"github.com/hpcbench/hpcbench/report"
)

// ErrOps is wrapped by Run's error when operations failed. The Result is
// complete and should still be reported; the command exits 1.
var ErrOps = errors.New("metadata operations failed")

// BadInputError is an engine error that is bad input found once the
// backend is up (a -d whose parent does not exist): nothing was done, and
// the command exits 2.
type BadInputError struct{ Msg string }

func (e *BadInputError) Error() string { return e.Msg }

// Env is what the engine learns from its surroundings.
type Env struct {
	// Run is the run record (internal/run's): the command line, version,
	// hosts and environment facts the Result's Run starts from. Run.Hosts
	// counts the job's hosts.
	Run report.Run
	// Machine is uname's sysname and nodename ("Linux vm").
	Machine string
	// JobRanks is the number of ranks of the whole job, when the Comm
	// holds only the first of them (a step of Sweep): mdtest's "launched
	// with N total task(s)" and Nodemap are the job's. 0 means the Comm's
	// size.
	JobRanks int
	// Phase, if not nil, is told on every rank when each phase of each
	// iteration starts and ends: its name ("file creation", "tree
	// removal"), the iteration, and this rank's items done out of its
	// total.
	Phase func(name string, iter int, done, total int64)
	// Clock returns seconds; readings must be comparable between the
	// ranks of a host. Nil means clock.Seconds.
	Clock func() float64
	// Now returns the dates of the header. Nil means time.Now.
	Now func() time.Time
	// Sleep waits for d or until ctx ends (-p). Nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// RunCmd runs a --run-cmd-before-phase/--run-cmd-after-phase command
	// on rank 0 with the phase's name; nil means a shell (sh -c) with
	// HPCBENCH_MDTEST_PHASE set.
	RunCmd func(ctx context.Context, cmd, phase string) error
	// Tick returns nanoseconds on a monotonic clock: the times of the
	// archive's distributions and of -W and --until-steady, read once per
	// item. Nil means the process's monotonic clock. Tests give a fake one
	// apart from Clock, so that the per-item readings leave Clock's alone.
	Tick func() int64
	// realTick is set when Tick is the monotonic clock (withDefaults):
	// the item loop then samples which items it times.
	realTick bool
	// wall is set when Clock is the wall clock (withDefaults): a timed
	// phase then settles before it starts (runner.startBarrier).
	wall bool
	// RankHosts names the host of every rank of the job
	// (run.Record.RankHosts), for the archive's per-host table.
	RankHosts []string
	// Warn receives rank 0's warnings and -v notes, one line each, as
	// they happen. Nil drops them.
	Warn func(line string)
}

// withDefaults fills the nil fields of e.
func (e Env) withDefaults() Env {
	if e.Clock == nil {
		e.Clock, e.wall = clock.Seconds, true
	}
	if e.Tick == nil {
		start := time.Now() // its monotonic reading: time.Since reads only that clock
		e.Tick = func() int64 { return int64(time.Since(start)) }
		e.realTick = true
	}
	if e.Now == nil {
		e.Now = time.Now
	}
	if e.Sleep == nil {
		e.Sleep = clock.Sleep
	}
	if e.RunCmd == nil {
		e.RunCmd = shellCmd
	}
	if e.Warn == nil {
		e.Warn = func(string) {}
	}
	if e.Run.Hosts < 1 {
		e.Run.Hosts = 1
	}
	if e.Phase == nil {
		e.Phase = func(string, int, int64, int64) {}
	}
	return e
}

// Run runs the mdtest described by o on this rank and returns the Result
// on rank 0 (nil elsewhere). o must have passed Validate. Failed
// operations are counted and reported; Run then returns the Result with an
// error wrapping ErrOps. Any other error (a dead peer, a backend that
// cannot be made) ends the run on this rank.
func Run(ctx context.Context, c *collectives.Comm, o *config.Options, env Env) (*report.Result, error) {
	env = env.withDefaults()
	warnings, err := o.Resolve(c.Size())
	if err != nil {
		return nil, fmt.Errorf("mdtest: %w", err)
	}
	be, err := o.Backend.New(o.BackendOptions, aiori.Env{Rank: c.Rank(), Size: c.Size(), Comm: c, Context: ctx, Hosts: env.RankHosts})
	if err != nil {
		return nil, fmt.Errorf("mdtest: -a %s: %w", o.API, err)
	}
	md, ok := be.(aiori.Metadata)
	if !ok {
		be.Close()
		return nil, fmt.Errorf("mdtest: -a %s: backend does not support mdtest", o.API)
	}
	rec, err := distribution.New(o.Interval, distribution.Steady{})
	if err != nil {
		be.Close()
		return nil, fmt.Errorf("mdtest: %w", err)
	}
	srec, err := distribution.New(o.Interval, o.Steady)
	if err != nil {
		be.Close()
		return nil, fmt.Errorf("mdtest: %w", err)
	}
	// The warnings go into the header, where mdtest prints them.
	r := &runner{o: o, env: env, c: c, rank: c.Rank(), size: c.Size(), be: be, md: md, began: env.Now(), warnings: warnings,
		tick: env.Tick, rec: rec, srec: srec}
	res, runErr := r.run(ctx)
	if err := be.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("mdtest: -a %s: close: %w", o.API, err)
	}
	if runErr != nil {
		return nil, runErr
	}
	var out *report.Result
	if r.rank == 0 {
		out = r.result(res, env.Now())
	}
	if res.failed > 0 {
		return out, fmt.Errorf("mdtest: %d operations failed: %w", res.failed, ErrOps)
	}
	return out, nil
}
