package ior

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/clock"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/report"
)

// ErrVerify is wrapped by Run's error when verification (-W, -R) found
// corrupt transfers. The Result is complete and should still be reported;
// the command exits 1.
var ErrVerify = errors.New("data verification failed")

// Comm is what the engine needs from the job's communicator;
// *collectives.Comm satisfies it. Every rank of the job calls Run, and the
// collective methods are called by all ranks in the same order.
type Comm interface {
	Rank() int
	Size() int
	Barrier(ctx context.Context) error
	Bcast(ctx context.Context, buf []byte, root int) error
	Allreduce(ctx context.Context, send, recv []byte, dt collectives.Datatype, op collectives.Op) error
	Gather(ctx context.Context, send, recv []byte, root int) error
}

// Env is what the engine learns from its surroundings.
type Env struct {
	// Run is the run record (internal/run's): the command line, version,
	// hosts and environment facts the Result's Run starts from. Run.Hosts
	// is the number of hosts the job runs on.
	Run report.Run
	// Machine is uname's sysname and nodename ("Linux vm"); Platform is
	// IOR's JSON "platform" ("vm(Linux)").
	Machine, Platform string
	// HostRanks is the most ranks on any one host (IOR's "clients per
	// node").
	HostRanks int
	// Phase, if not nil, is told on every rank when each phase of each
	// repetition starts and ends: its name ("write", "read"), the
	// repetition, and this rank's bytes done out of its total.
	Phase func(name string, iter int, done, total int64)
	// Clock returns seconds; readings must be comparable between the
	// ranks of a host. Nil means clock.Seconds.
	Clock func() float64
	// Ticks, if not nil, returns nanoseconds from any origin in place of
	// the monotonic clock for the distributions' per-transfer readings
	// (tests); it must not go back.
	Ticks func() int64
	// RankHosts names the host of every rank (run.Record.RankHosts), for
	// the archive's per-host table; nil names them "?".
	RankHosts []string
	// Now returns the date for "Began", "StartTime" and "Finished". Nil
	// means time.Now.
	Now func() time.Time
	// Sleep waits for d or until ctx ends (-d, interIODelay). Nil means a
	// real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Warn receives rank 0's warnings and -v notes, one line each without
	// a newline, as they happen. Nil drops them.
	Warn func(line string)
	// Progress, if not nil, receives on rank 0 the run so far (no
	// summary) when a test starts and after each of its phases, for
	// report.WriteIORProgress: IOR prints its rows as they come.
	Progress func(partial *report.Result)

	// wall is set when Clock is the wall clock (withDefaults): the timed
	// loop may then test the -D deadline on its monotonic reading.
	wall bool
}

// withDefaults fills the nil fields of e.
func (e Env) withDefaults() Env {
	if e.Clock == nil {
		e.Clock, e.wall = clock.Seconds, true
	}
	if e.Now == nil {
		e.Now = time.Now
	}
	if e.Sleep == nil {
		e.Sleep = clock.Sleep
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

// Run runs tests, in order, on this rank and returns the Result on rank 0
// (nil on the others). Options must have passed Validate; Run resolves
// them for the job size itself. An I/O error ends the run on this rank
// with an error naming the operation, path and offset; verification errors
// are counted, reported and returned as ErrVerify after every test ran.
func Run(ctx context.Context, c Comm, tests []config.Options, env Env) (*report.Result, error) {
	env = env.withDefaults()
	if len(tests) == 0 {
		return nil, fmt.Errorf("ior: no test to run")
	}
	rb := newResultBuilder(env, c.Size(), env.Now())
	var corrupt int64
	for i := range tests {
		o := tests[i]
		t, err := newTester(ctx, c, &o, env)
		if err != nil {
			return nil, err
		}
		if c.Rank() == 0 && env.Progress != nil {
			t.progress = func(res *testResult) { env.Progress(rb.partial(&o, t, res)) }
		}
		res, err := t.run(ctx)
		if cerr := t.close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("ior: test %d: %w", o.ID, err)
		}
		corrupt += res.corrupt
		if c.Rank() == 0 {
			rb.addTest(&o, t, res)
		}
	}
	var r *report.Result
	if c.Rank() == 0 {
		r = rb.finish(env.Now())
	}
	if corrupt > 0 {
		return r, fmt.Errorf("ior: %d corrupt transfers: %w", corrupt, ErrVerify)
	}
	return r, nil
}
