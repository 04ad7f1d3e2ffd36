package collectives

import (
	"errors"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// Options configures a Comm. Every rank must use the same Options (and call
// SetOptions at the same point), or ranks pick different algorithms for the
// same call and the call fails or hangs until its context ends.
type Options struct {
	// Algorithms forces algorithms: it maps a collective's name (see
	// Collectives) to one of its algorithms (see Algorithms) or "auto".
	// Collectives not in the map are chosen automatically by Thresholds.
	// ParseAlgorithms builds it from a flag such as
	// "allreduce=ring,bcast=binomial".
	Algorithms map[string]string
	// Thresholds drive the automatic choice. A zero field means that
	// field's value in DefaultThresholds.
	Thresholds Thresholds
	// Allocator, if not nil, provides the buffers of Comm.Alloc and the
	// algorithms' scratch buffers: fabric/shm's Transport, whose buffers
	// move between processes with one copy instead of two. Only New reads
	// it; it need not be the same on every rank.
	Allocator fabric.Allocator
	// StallTimeout, if positive, is the stall deadline: a call that waits
	// for a peer (a receive, or a send the peer must take) while no
	// message of this Comm moves for that long fails with a *StallError
	// wrapping ErrStalled, naming the peer. Zero leaves waits unbounded
	// but for the caller's context. It need not be the same on every
	// rank.
	StallTimeout time.Duration
	// HostOf, if not nil, names the host of a rank for the errors of
	// waits that stall: across hosts, which rank stopped matters less to
	// the user than on which host. It need not be the same on every rank.
	HostOf func(rank int) string
	// StallScale, if positive, lengthens the deadline of a wait that
	// begins d after the phase set by Comm.SetPhase began to
	// max(StallTimeout, StallScale × d): at a barrier after a phase,
	// ranks that took longer over it may legitimately be late in
	// proportion.
	StallScale float64
}

// Thresholds is the one table the automatic algorithm choice reads; see
// Comm.Algorithm for how each field is used. Sizes are in bytes, measured
// as Comm.Algorithm's bytes argument (what IMB prints as #bytes). A zero
// field means the default; a negative one disables the rule that compares
// with it, so that the algorithm the rule selects is never chosen by size.
type Thresholds struct {
	// BcastMinProcs: with fewer ranks, Bcast is always binomial.
	BcastMinProcs int
	// BcastShortMsg: buffers up to this size are broadcast binomially;
	// larger ones by scatter and ring allgather (van de Geijn).
	BcastShortMsg int
	// AllreduceShortMsg: vectors up to this size use recursive doubling.
	AllreduceShortMsg int
	// AllreduceLongMsg: vectors of at least this size use the ring when
	// the number of ranks is not a power of two (Rabenseifner's fold then
	// adds two whole-vector transfers to the critical path); Rabenseifner
	// otherwise. Disabled (−1) by default, as in MPICH, which has no ring
	// allreduce: in-process measurements do not favour the ring (see the
	// package documentation).
	AllreduceLongMsg int
	// ReduceShortMsg: vectors up to this size use the binomial tree;
	// larger ones Rabenseifner (reduce-scatter and gather).
	ReduceShortMsg int
	// AllgatherShortMsg: when the number of ranks is not a power of two,
	// totals (block × ranks) below this use Bruck, larger ones the ring.
	AllgatherShortMsg int
	// AllgatherLongMsg: when it is a power of two, totals below this use
	// recursive doubling, larger ones the ring.
	AllgatherLongMsg int
	// AlltoallMinProcs: Bruck is used only with at least this many ranks.
	AlltoallMinProcs int
	// AlltoallShortMsg: per-peer blocks up to this size use Bruck (given
	// AlltoallMinProcs ranks).
	AlltoallShortMsg int
	// AlltoallMediumMsg: blocks up to this size use the scattered
	// algorithm; larger ones pairwise exchange.
	AlltoallMediumMsg int
	// AlltoallThrottle is how many sends the scattered algorithm keeps in
	// flight at once.
	AlltoallThrottle int
}

// DefaultThresholds returns the default selection table. It follows
// MPICH 4.0.2's built-in choices (see the package documentation for the
// table and where the defaults differ) and returns a new value each call,
// so callers may change their copy.
func DefaultThresholds() Thresholds {
	return Thresholds{
		BcastMinProcs:     8,      // MPIR_CVAR_BCAST_MIN_PROCS
		BcastShortMsg:     12288,  // MPIR_CVAR_BCAST_SHORT_MSG_SIZE
		AllreduceShortMsg: 2048,   // MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
		AllreduceLongMsg:  -1,     // disabled; MPICH has no ring allreduce
		ReduceShortMsg:    2048,   // MPIR_CVAR_REDUCE_SHORT_MSG_SIZE
		AllgatherShortMsg: 81920,  // MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE
		AllgatherLongMsg:  524288, // MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE
		AlltoallMinProcs:  8,      // MPICH's JSON: Bruck only from 8 ranks
		AlltoallShortMsg:  256,    // MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE
		AlltoallMediumMsg: 32768,  // MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE
		AlltoallThrottle:  32,     // MPIR_CVAR_ALLTOALL_THROTTLE
	}
}

// withDefaults returns t with every zero field replaced by its default.
func (t Thresholds) withDefaults() Thresholds {
	d := DefaultThresholds()
	for _, f := range []struct{ v, def *int }{
		{&t.BcastMinProcs, &d.BcastMinProcs},
		{&t.BcastShortMsg, &d.BcastShortMsg},
		{&t.AllreduceShortMsg, &d.AllreduceShortMsg},
		{&t.AllreduceLongMsg, &d.AllreduceLongMsg},
		{&t.ReduceShortMsg, &d.ReduceShortMsg},
		{&t.AllgatherShortMsg, &d.AllgatherShortMsg},
		{&t.AllgatherLongMsg, &d.AllgatherLongMsg},
		{&t.AlltoallMinProcs, &d.AlltoallMinProcs},
		{&t.AlltoallShortMsg, &d.AlltoallShortMsg},
		{&t.AlltoallMediumMsg, &d.AlltoallMediumMsg},
		{&t.AlltoallThrottle, &d.AlltoallThrottle},
	} {
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	return t
}

// Validate checks that every forced algorithm names a known collective and
// one of its algorithms, and that AlltoallThrottle is not negative.
func (o Options) Validate() error {
	var errs []error
	for coll, alg := range o.Algorithms {
		if _, err := lookupAlgorithm(coll, alg); err != nil {
			errs = append(errs, fmt.Errorf("collectives: Options.Algorithms[%q]: %w", coll, err))
		}
	}
	if o.StallTimeout < 0 {
		errs = append(errs, fmt.Errorf("collectives: Options.StallTimeout %v must not be negative (0 for none)", o.StallTimeout))
	}
	if o.StallScale < 0 {
		errs = append(errs, fmt.Errorf("collectives: Options.StallScale %v must not be negative (0 for none)", o.StallScale))
	}
	if o.Thresholds.AlltoallThrottle < 0 {
		errs = append(errs, fmt.Errorf("collectives: Thresholds.AlltoallThrottle %d must be at least 1 (0 for the default)", o.Thresholds.AlltoallThrottle))
	}
	return errors.Join(errs...)
}
