package layout_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/hpcbench/hpcbench/internal/ior/layout"
)

func oneNode(n int) layout.Topology {
	return layout.Topology{NumTasks: n, Nodes: 1, TasksOnNode0: n, BySlot: n > 1}
}

func pretendRanks(t *testing.T, r layout.Reorder, top layout.Topology, ph layout.Phase, rep int) []int {
	t.Helper()
	all, err := r.PretendRanks(top, ph, rep)
	if err != nil {
		t.Fatalf("PretendRanks(%+v, %+v, %v): %v", r, top, ph, err)
	}
	for rank, want := range all {
		if got, err := r.PretendRank(rank, top, ph, rep); err != nil || got != want {
			t.Fatalf("PretendRank(%d) = %d, %v; PretendRanks says %d", rank, got, err, want)
		}
	}
	return all
}

func isPermutation(p []int) bool {
	s := slices.Clone(p)
	slices.Sort(s)
	for i, v := range s {
		if v != i {
			return false
		}
	}
	return true
}

// TestConstantOneNode: on one node -C reads another rank's data, in both
// the read and the -W check pass, for any -Q (IOR reads its own there).
func TestConstantOneNode(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3, 4, 8} {
		for q := range 6 {
			for _, ph := range []layout.Phase{layout.CheckWrite, layout.Read} {
				r := layout.Reorder{Mode: layout.Constant, Q: q}
				got := pretendRanks(t, r, oneNode(n), ph, 0)
				for rank, p := range got {
					if p == rank {
						t.Errorf("n=%d -Q %d %v: rank %d reads its own data", n, q, ph, rank)
					}
				}
				if !isPermutation(got) {
					t.Errorf("n=%d -Q %d %v: %v is not a permutation", n, q, ph, got)
				}
			}
		}
	}
}

func TestConstantOffsets(t *testing.T) {
	t.Parallel()
	twoBySlot := layout.Topology{NumTasks: 8, Nodes: 2, TasksOnNode0: 4, BySlot: true}
	threeBySlot := layout.Topology{NumTasks: 12, Nodes: 3, TasksOnNode0: 4, BySlot: true}
	twoRoundRobin := layout.Topology{NumTasks: 8, Nodes: 2, TasksOnNode0: 4}
	for _, tc := range []struct {
		name string
		top  layout.Topology
		q    int
		ph   layout.Phase
		want int // rank 0's pretend rank = the offset
	}{
		{"one node, 4 ranks, read", oneNode(4), 1, layout.Read, 1},
		{"one node, 4 ranks, -W: (Q+1)", oneNode(4), 1, layout.CheckWrite, 2},
		{"one node, 2 ranks, -W wraps: falls back to Q", oneNode(2), 1, layout.CheckWrite, 1},
		{"one node, -Q 3", oneNode(4), 3, layout.Read, 3},
		{"one node, -Q 4 wraps: falls back to 1", oneNode(4), 4, layout.Read, 1},
		{"2 nodes by slot, read: one node away", twoBySlot, 1, layout.Read, 4},
		{"2 nodes by slot, -W wraps: one node away", twoBySlot, 1, layout.CheckWrite, 4},
		{"2 nodes by slot, -Q 2 wraps", twoBySlot, 2, layout.Read, 4},
		{"3 nodes by slot, -W: two nodes away", threeBySlot, 1, layout.CheckWrite, 8},
		{"round robin: shift 1", twoRoundRobin, 1, layout.Read, 1},
		{"round robin, -W", twoRoundRobin, 1, layout.CheckWrite, 2},
		{"single rank", oneNode(1), 1, layout.Read, 0},
	} {
		r := layout.Reorder{Mode: layout.Constant, Q: tc.q}
		got := pretendRanks(t, r, tc.top, tc.ph, 0)
		for rank, p := range got {
			if want := (rank + tc.want) % tc.top.NumTasks; p != want {
				t.Errorf("%s: rank %d → %d, want %d", tc.name, rank, p, want)
			}
		}
	}
}

func TestWriteIsOwnData(t *testing.T) {
	t.Parallel()
	for _, m := range []layout.ReorderMode{layout.NoReorder, layout.Constant, layout.Random, layout.Shuffle} {
		r := layout.Reorder{Mode: m, Q: 1, Seed: 3}
		phases := []layout.Phase{layout.Write}
		if m != layout.Constant {
			phases = append(phases, layout.CheckWrite) // -Z checks its own data, as in IOR
		}
		if m == layout.NoReorder {
			phases = append(phases, layout.Read)
		}
		for _, ph := range phases {
			for rank, p := range pretendRanks(t, r, oneNode(6), ph, 1) {
				if p != rank {
					t.Errorf("%v %v: rank %d → %d, want itself", m, ph, rank, p)
				}
			}
		}
	}
}

func TestShuffleIsPermutation(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3, 7, 16, 33, 100} {
		fixed := 0
		for seed := range int64(300) {
			r := layout.Reorder{Mode: layout.Shuffle, Q: 1, Seed: seed}
			got := pretendRanks(t, r, oneNode(n), layout.Read, 0)
			if !isPermutation(got) {
				t.Fatalf("n=%d seed %d: %v is not a permutation", n, seed, got)
			}
			for rank, p := range got {
				if p == rank {
					fixed++
				}
			}
		}
		t.Logf("n=%d: %.2f fixed points per permutation", n, float64(fixed)/300)
	}
	if got, want := layout.Permutation(8, 11), []int{4, 7, 6, 2, 0, 3, 1, 5}; !slices.Equal(got, want) {
		t.Errorf("Permutation(8, 11) = %v, want %v (golden, from the Python reference)", got, want)
	}
	if got := layout.Permutation(0, 1); len(got) != 0 {
		t.Errorf("Permutation(0) = %v", got)
	}
}

// TestRandomOnce: -Z draws each rank's offset on its own, as IOR does:
// deterministic, at least lo away, and collisions are possible.
func TestRandomOnce(t *testing.T) {
	t.Parallel()
	r := layout.Reorder{Mode: layout.Random, Q: 1, Seed: 5}
	// Golden, from the Python reference: one node (lo = 0, so a rank may
	// read itself) and two nodes of 4 by slot (lo = 4).
	if got, want := pretendRanks(t, r, oneNode(8), layout.Read, 0), []int{5, 5, 3, 0, 7, 5, 3, 6}; !slices.Equal(got, want) {
		t.Errorf("one node: %v, want %v", got, want)
	}
	two := layout.Topology{NumTasks: 8, Nodes: 2, TasksOnNode0: 4, BySlot: true}
	if got, want := pretendRanks(t, r, two, layout.Read, 0), []int{6, 7, 6, 1, 1, 1, 4, 6}; !slices.Equal(got, want) {
		t.Errorf("two nodes: %v, want %v", got, want)
	}
	collisions := 0
	four := layout.Topology{NumTasks: 16, Nodes: 4, TasksOnNode0: 4, BySlot: true}
	for seed := range int64(50) {
		r := layout.Reorder{Mode: layout.Random, Q: 2, Seed: seed}
		got := pretendRanks(t, r, four, layout.Read, 0)
		for rank, p := range got {
			if off := (p - rank + 16) % 16; off < 8 {
				t.Fatalf("seed %d: rank %d offset %d, below min(Q, nodes-1)*4 = 8", seed, rank, off)
			}
		}
		if !isPermutation(got) {
			collisions++
		}
	}
	if collisions == 0 {
		t.Error("-Z once never collided in 50 seeds; IOR's independent draws should")
	}
	// Uneven nodes: lo = min(2, 2)*4 = 8 > N-1 = 5 is capped instead of
	// looping forever as IOR would.
	uneven := layout.Topology{NumTasks: 6, Nodes: 3, TasksOnNode0: 4, BySlot: true}
	for rank, p := range pretendRanks(t, layout.Reorder{Mode: layout.Random, Q: 2}, uneven, layout.Read, 0) {
		if p != (rank+5)%6 {
			t.Errorf("uneven: rank %d → %d, want %d", rank, p, (rank+5)%6)
		}
	}
}

func TestReorderSeed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		x    int64
		rep  int
		want uint64
	}{
		{7, 0, 7},
		{7, 3, 7},
		{0, 2, 0},
		{-5, 0, 5},
		{-5, 3, 8},
		{math.MinInt64, 1, 1<<63 + 1},
	} {
		if got := layout.ReorderSeed(tc.x, tc.rep); got != tc.want {
			t.Errorf("ReorderSeed(%d, %d) = %d, want %d", tc.x, tc.rep, got, tc.want)
		}
	}
	// A negative -X changes the shuffle from one repetition to the next.
	r := layout.Reorder{Mode: layout.Shuffle, Seed: -1}
	if slices.Equal(pretendRanks(t, r, oneNode(16), layout.Read, 0), pretendRanks(t, r, oneNode(16), layout.Read, 1)) {
		t.Error("-X -1: repetitions 0 and 1 shuffle alike")
	}
	r.Seed = 1
	if !slices.Equal(pretendRanks(t, r, oneNode(16), layout.Read, 0), pretendRanks(t, r, oneNode(16), layout.Read, 1)) {
		t.Error("-X 1: repetitions 0 and 1 shuffle differently")
	}
}

func TestTopologyFromHosts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		hosts []string
		want  layout.Topology
	}{
		{[]string{"a"}, layout.Topology{NumTasks: 1, Nodes: 1, TasksOnNode0: 1}},
		{[]string{"a", "a"}, layout.Topology{NumTasks: 2, Nodes: 1, TasksOnNode0: 2, BySlot: true}},
		{[]string{"a", "a", "b", "b"}, layout.Topology{NumTasks: 4, Nodes: 2, TasksOnNode0: 2, BySlot: true}},
		{[]string{"a", "b", "a", "b"}, layout.Topology{NumTasks: 4, Nodes: 2, TasksOnNode0: 2}},
		{[]string{"a", "a", "a", "b"}, layout.Topology{NumTasks: 4, Nodes: 2, TasksOnNode0: 3, BySlot: true}},
	} {
		got := layout.TopologyFromHosts(tc.hosts)
		if got != tc.want {
			t.Errorf("TopologyFromHosts(%v) = %+v, want %+v", tc.hosts, got, tc.want)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("Validate(%+v): %v", got, err)
		}
	}
}

func TestReorderValidate(t *testing.T) {
	t.Parallel()
	good := oneNode(4)
	for _, tc := range []struct {
		name  string
		r     layout.Reorder
		top   layout.Topology
		rank  int
		phase layout.Phase
	}{
		{"negative -Q", layout.Reorder{Mode: layout.Constant, Q: -1}, good, 0, layout.Read},
		{"bad mode", layout.Reorder{Mode: 9}, good, 0, layout.Read},
		{"no tasks", layout.Reorder{}, layout.Topology{}, 0, layout.Read},
		{"too many nodes", layout.Reorder{}, layout.Topology{NumTasks: 2, Nodes: 3, TasksOnNode0: 1}, 0, layout.Read},
		{"node 0 too full", layout.Reorder{}, layout.Topology{NumTasks: 4, Nodes: 2, TasksOnNode0: 4}, 0, layout.Read},
		{"rank out of range", layout.Reorder{}, good, 4, layout.Read},
		{"negative rank", layout.Reorder{}, good, -1, layout.Read},
		{"bad phase", layout.Reorder{}, good, 0, 7},
	} {
		if _, err := tc.r.PretendRank(tc.rank, tc.top, tc.phase, 0); !errors.Is(err, layout.ErrInvalid) {
			t.Errorf("%s: PretendRank error = %v, want ErrInvalid", tc.name, err)
		}
	}
	for m, want := range map[layout.ReorderMode]string{layout.NoReorder: "none", layout.Constant: "constant", layout.Random: "random", layout.Shuffle: "shuffle", 7: "ReorderMode(7)"} {
		if m.String() != want {
			t.Errorf("String(%d) = %q, want %q", int(m), m.String(), want)
		}
	}
	for p, want := range map[layout.Phase]string{layout.Write: "write", layout.CheckWrite: "check-write", layout.Read: "read", 5: "Phase(5)"} {
		if p.String() != want {
			t.Errorf("String(%d) = %q, want %q", int(p), p.String(), want)
		}
	}
}
