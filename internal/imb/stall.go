package imb

import (
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/report"
)

// stall keeps coll's stall deadlines: base (the job's, from
// --phase-timeout) on the ranks that run a table, none on the ranks a
// table leaves out, which wait at a barrier of the job while the others
// run each message size, for as long as that takes (-time bounds it only
// loosely: on a loaded machine a size of "-time 2" took over 6 s). A
// stopped rank is still found: by its group's other ranks when it works,
// by the working ranks at the barrier after the size when it idles.
type stall struct {
	world *collectives.Comm
	base  time.Duration
	state time.Duration // the world's deadline now
}

func newStall(world *collectives.Comm) *stall {
	base := world.Options().StallTimeout
	return &stall{world: world, base: base, state: base}
}

// phase returns the engine's phase hook: next (the pipeline's, which
// tells the world the phase), after setting the world's deadline for this
// table.
func (s *stall) phase(next func(name string, iter int, done, total int64)) func(name string, iter int, done, total int64) {
	return func(name string, iter int, done, total int64) {
		want := s.base
		if _, np, ok := report.ParseIMBTableName(name); ok && s.world.Rank() >= np {
			want = 0
		}
		if want != s.state {
			s.set(s.world, want)
			s.state = want
		}
		next(name, iter, done, total)
	}
}

// group gives a table's communicator the base deadline, whatever the
// world's was when it was made.
func (s *stall) group(sub *collectives.Comm) {
	s.set(sub, s.base)
}

func (s *stall) set(c *collectives.Comm, d time.Duration) {
	o := c.Options()
	o.StallTimeout = d
	_ = c.SetOptions(o) // valid: the Comm's own options with a deadline that is not negative
}
