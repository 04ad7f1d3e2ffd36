package mdtest

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/hpcbench/hpcbench/internal/distribution"
)

// stopReason says what ended a rank's share of a creation phase before
// its last item: -W's deadline, --until-steady's test, or both (bits);
// 0 when nothing did.
type stopReason uint64

const (
	stopDeadline stopReason = 1 << iota // -W's seconds passed
	stopSteady                          // --until-steady saw a steady rate
	stopCanceled                        // the run's context ended (a signal): no stonewall, the phase fails
)

// checkEvery returns, every progressItems values of i, the end of ctx
// (context.Cause, worded), so that a loop over many items or directories
// ends soon after a signal; nil otherwise.
func checkEvery(ctx context.Context, i int64) error {
	if i%progressItems != progressItems-1 || ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("mdtest: %w", context.Cause(ctx))
}

// loop is what a phase's timed loop needs besides its items: the
// Recorder of its distributions, the Tick reading at its start, and the
// rule that ends a creation phase early.
type loop struct {
	rec  *distribution.Recorder
	base int64 // Tick at the phase's start (after its barrier)
	// deadline is -W's, in nanoseconds since base; math.MaxInt64 for
	// none
	deadline int64
	// steady is whether the Recorder's steady verdict ends the phase
	// (--until-steady, creation phases)
	steady bool
}

// stop is the one predicate behind -W and --until-steady: now is the
// item's end (nanoseconds since base) and steady the Recorder's verdict
// on it. -W's deadline and --until-steady both end only the creation
// phases, as mdtest's -W does: the phases after them then work on the
// items created (stonewall's agreement).
func (l loop) stop(now int64, steady bool) stopReason {
	if now < l.deadline && !steady {
		return 0
	}
	var why stopReason
	if now >= l.deadline {
		why |= stopDeadline
	}
	if steady && l.steady {
		why |= stopSteady
	}
	return why
}

// isCreate reports whether phase name creates items: the phases -W and
// --until-steady end early.
func isCreate(name string) bool { return name == phFileCreate || name == phDirCreate }

// stoppable reports whether the creation phases may end early on some
// rank, so that the ranks must agree on the items created (stonewall).
func (r *runner) stoppable() bool { return r.o.StonewallSeconds > 0 || r.o.Steady.On() }

// newLoop starts phase name's Recorder and clock on this rank, right
// after the phase's barrier.
func (r *runner) newLoop(name string) loop {
	l := loop{rec: r.rec, deadline: math.MaxInt64}
	if isCreate(name) {
		l.rec, l.steady = r.srec, r.o.Steady.On()
		if w := r.o.StonewallSeconds; w > 0 {
			l.deadline = int64(time.Duration(w) * time.Second)
		}
	}
	l.rec.Reset()
	l.base = r.tick()
	return l
}

// reduce gathers the phase's distributions from every rank's rec into
// p.dist on rank 0. Every rank calls it after collect.
func (r *runner) reduce(ctx context.Context, p *phaseResult, rec *distribution.Recorder) error {
	j, err := distribution.Reduce(ctx, r.c, rec)
	if err != nil {
		return fmt.Errorf("mdtest: %s: %w", p.name, err)
	}
	p.dist = j
	return nil
}
