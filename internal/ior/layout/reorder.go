package layout

import (
	"fmt"
	"strconv"
)

// ReorderMode is how reading ranks pick whose data to read.
type ReorderMode int

// The task reordering modes.
const (
	// NoReorder: every rank reads its own data.
	NoReorder ReorderMode = iota
	// Constant is -C: a constant rank offset.
	Constant
	// Random is -Z given once: an independent random offset per rank.
	Random
	// Shuffle is -Z -Z: a random permutation of the ranks.
	Shuffle
)

// String returns "none", "constant", "random" or "shuffle".
func (m ReorderMode) String() string {
	switch m {
	case NoReorder:
		return "none"
	case Constant:
		return "constant"
	case Random:
		return "random"
	case Shuffle:
		return "shuffle"
	}
	return "ReorderMode(" + strconv.Itoa(int(m)) + ")"
}

// Phase is the part of a repetition a pretend rank is wanted for.
type Phase int

// The phases of a repetition.
const (
	// Write is the write phase (-w): always the rank's own data.
	Write Phase = iota
	// CheckWrite is the untimed read-back after the write (-W).
	CheckWrite
	// Read is the read phase (-r, and -R which verifies while reading).
	Read
)

// String returns "write", "check-write" or "read".
func (p Phase) String() string {
	switch p {
	case Write:
		return "write"
	case CheckWrite:
		return "check-write"
	case Read:
		return "read"
	}
	return "Phase(" + strconv.Itoa(int(p)) + ")"
}

// Topology is how the ranks sit on nodes, as far as reordering needs it.
type Topology struct {
	// NumTasks is the number of ranks taking part.
	NumTasks int
	// Nodes is the number of distinct hosts.
	Nodes int
	// TasksOnNode0 is the number of ranks on rank 0's host.
	TasksOnNode0 int
	// BySlot is true when consecutive ranks fill a node before the next
	// (IOR's test: rank 1 is on rank 0's host).
	BySlot bool
}

// TopologyFromHosts derives a Topology from the host name of every rank,
// indexed by rank.
func TopologyFromHosts(hosts []string) Topology {
	t := Topology{NumTasks: len(hosts)}
	seen := make(map[string]bool)
	for _, h := range hosts {
		if !seen[h] {
			seen[h] = true
			t.Nodes++
		}
		if h == hosts[0] {
			t.TasksOnNode0++
		}
	}
	t.BySlot = len(hosts) > 1 && hosts[1] == hosts[0]
	return t
}

// Validate checks that the counts are consistent.
func (t Topology) Validate() error {
	switch {
	case t.NumTasks < 1:
		return fmt.Errorf("%w: topology: %d tasks, need at least one", ErrInvalid, t.NumTasks)
	case t.Nodes < 1 || t.Nodes > t.NumTasks:
		return fmt.Errorf("%w: topology: %d nodes for %d tasks", ErrInvalid, t.Nodes, t.NumTasks)
	case t.TasksOnNode0 < 1 || t.TasksOnNode0 > t.NumTasks-t.Nodes+1:
		return fmt.Errorf("%w: topology: %d tasks on node 0 with %d tasks on %d nodes", ErrInvalid, t.TasksOnNode0, t.NumTasks, t.Nodes)
	}
	return nil
}

// Reorder holds the task reordering options.
type Reorder struct {
	// Mode is -C, -Z or -Z -Z.
	Mode ReorderMode
	// Q is -Q (taskPerNodeOffset, IOR's default 1): the distance in nodes
	// for -C, the minimum distance for -Z.
	Q int
	// Seed is -X (reorderTasksRandomSeed): the seed for -Z, negative to
	// vary with the repetition (see ReorderSeed).
	Seed int64
}

// Validate checks the mode and -Q.
func (r Reorder) Validate() error {
	if r.Mode < NoReorder || r.Mode > Shuffle {
		return fmt.Errorf("%w: reorder mode %d", ErrInvalid, int(r.Mode))
	}
	if r.Q < 0 {
		return fmt.Errorf("%w: -Q %d: task per node offset must not be negative", ErrInvalid, r.Q)
	}
	return nil
}

// ReorderSeed returns the -Z seed for repetition rep (from 0): |x| + rep
// when x (-X) is negative, x otherwise.
func ReorderSeed(x int64, rep int) uint64 {
	if x < 0 {
		return uint64(-x) + uint64(rep) // -MinInt64 wraps to 1<<63 = |MinInt64|
	}
	return uint64(x)
}

// Permutation returns -Z -Z's permutation of [0, n) for seed, the same on
// every rank: Fisher–Yates from the front with the stream of the package
// documentation. It allocates n ints.
func Permutation(n int, seed uint64) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	st := newStream(seed, DomainPermutation, 0)
	for i := 0; i < n-1; i++ {
		j := i + int(st.below(uint64(n-i)))
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

// constantOffset is -C's rank offset for phase (see the package
// documentation).
func (r Reorder) constantOffset(t Topology, phase Phase) int {
	n := t.NumTasks
	if n == 1 {
		return 0
	}
	shift := 1
	if t.Nodes > 1 && t.BySlot {
		shift = t.TasksOnNode0
	}
	candidates := []int{r.Q * shift, shift, 1}
	if phase == CheckWrite {
		candidates = []int{(r.Q + 1) * shift, r.Q * shift, shift, 1}
	}
	for _, c := range candidates {
		if c%n != 0 {
			return c % n
		}
	}
	return 1 // unreachable: 1 % n != 0 for n > 1
}

// randomOffset is -Z's rank offset for rank.
func (r Reorder) randomOffset(rank int, t Topology, rep int) int {
	lo := min(r.Q, t.Nodes-1) * t.TasksOnNode0
	lo = min(lo, t.NumTasks-1)
	st := newStream(ReorderSeed(r.Seed, rep), DomainReorder, uint64(rank))
	return lo + int(st.below(uint64(t.NumTasks-lo)))
}

// PretendRank returns the rank whose data rank moves in phase of
// repetition rep: the rank itself for Write, and for CheckWrite unless the
// mode is Constant; see the package documentation for the rest. Shuffle
// computes the whole permutation (O(NumTasks)); use PretendRanks for all
// ranks at once.
func (r Reorder) PretendRank(rank int, t Topology, phase Phase, rep int) (int, error) {
	if err := r.check(t, phase); err != nil {
		return 0, err
	}
	if rank < 0 || rank >= t.NumTasks {
		return 0, fmt.Errorf("%w: rank %d outside 0..%d", ErrInvalid, rank, t.NumTasks-1)
	}
	return r.pretend(rank, t, phase, rep, nil), nil
}

// PretendRanks returns PretendRank for every rank, indexed by rank (for a
// -vv file-hit histogram, or to check who reads what).
func (r Reorder) PretendRanks(t Topology, phase Phase, rep int) ([]int, error) {
	if err := r.check(t, phase); err != nil {
		return nil, err
	}
	var perm []int
	if r.Mode == Shuffle && phase == Read {
		perm = Permutation(t.NumTasks, ReorderSeed(r.Seed, rep))
	}
	out := make([]int, t.NumTasks)
	for rank := range out {
		out[rank] = r.pretend(rank, t, phase, rep, perm)
	}
	return out, nil
}

func (r Reorder) check(t Topology, phase Phase) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if err := t.Validate(); err != nil {
		return err
	}
	if phase < Write || phase > Read {
		return fmt.Errorf("%w: phase %d", ErrInvalid, int(phase))
	}
	return nil
}

// pretend assumes validated input; perm is the Shuffle permutation when
// the caller has it.
func (r Reorder) pretend(rank int, t Topology, phase Phase, rep int, perm []int) int {
	n := t.NumTasks
	switch {
	case phase == Write || r.Mode == NoReorder:
		return rank
	case r.Mode == Constant:
		return (rank + r.constantOffset(t, phase)) % n
	case phase == CheckWrite: // -Z and -Z -Z check the rank's own data, as in IOR
		return rank
	case r.Mode == Random:
		return (rank + r.randomOffset(rank, t, rep)) % n
	default: // Shuffle
		if perm == nil {
			perm = Permutation(n, ReorderSeed(r.Seed, rep))
		}
		return perm[rank]
	}
}
