package main

import (
	"os"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/job"
	"github.com/hpcbench/hpcbench/report"
)

// stallJob sets the stall deadline of the job's communicator from
// --phase-timeout, or from $HPCBENCH_PHASE_TIMEOUT when the command line
// gave none (cliflag.PhaseTimeout); phases is true for the benchmarks
// whose barriers follow phases of independent work (ior, mdtest), where
// the default deadline grows with the rank's own phase. The same value
// bounds how long a rank on the host may stay stopped under a launcher
// without a watchdog (job.Options.StopDeadline). A bad value in the
// environment is a usage error naming the variable.
func stallJob(name string, jo *job.Options, pt *cliflag.PhaseTimeout, phases bool) error {
	if err := pt.FromEnv(os.LookupEnv); err != nil {
		return usagef("%s: %v", name, err)
	}
	jo.Coll.StallTimeout, jo.Coll.StallScale = pt.Stall(phases)
	jo.StopDeadline = pt.StopDeadline()
	return nil
}

// stallPhase returns the engine's phase hook: next, after telling c the
// phase, so that a wait that stalls says which phase it was in and the
// deadline after a phase grows with it.
func stallPhase(c *collectives.Comm, next func(name string, iter int, done, total int64)) func(name string, iter int, done, total int64) {
	return func(name string, iter int, done, total int64) {
		c.SetPhase(name, iter)
		next(name, iter, done, total)
	}
}

// collStall keeps coll's stall deadlines: base (the job's, from
// --phase-timeout) on the ranks that run a table, none on the ranks a
// table leaves out, which wait at a barrier of the job while the others
// run each message size, for as long as that takes (-time bounds it only
// loosely: on a loaded machine a size of "-time 2" took over 6 s). A
// stopped rank is still found: by its group's other ranks when it works,
// by the working ranks at the barrier after the size when it idles.
type collStall struct {
	world *collectives.Comm
	base  time.Duration
	state time.Duration // the world's deadline now
}

func newCollStall(world *collectives.Comm) *collStall {
	base := world.Options().StallTimeout
	return &collStall{world: world, base: base, state: base}
}

// phase returns the engine's phase hook: next, after setting the world's
// deadline for this table and telling it the phase.
func (s *collStall) phase(next func(name string, iter int, done, total int64)) func(name string, iter int, done, total int64) {
	return func(name string, iter int, done, total int64) {
		want := s.base
		if _, np, ok := report.ParseIMBTableName(name); ok && s.world.Rank() >= np {
			want = 0
		}
		if want != s.state {
			s.set(s.world, want)
			s.state = want
		}
		s.world.SetPhase(name, iter)
		next(name, iter, done, total)
	}
}

// group gives a table's communicator the base deadline, whatever the
// world's was when it was made.
func (s *collStall) group(sub *collectives.Comm) {
	s.set(sub, s.base)
}

func (s *collStall) set(c *collectives.Comm, d time.Duration) {
	o := c.Options()
	o.StallTimeout = d
	_ = c.SetOptions(o) // valid: the Comm's own options with a deadline that is not negative
}
