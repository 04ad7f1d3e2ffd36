package layout_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/ior/layout"
)

func plan(t *testing.T, g layout.Geometry, rank int) []int64 {
	t.Helper()
	p, err := g.Plan(rank)
	if err != nil {
		t.Fatalf("Plan(%+v, %d): %v", g, rank, err)
	}
	if got, want := p.Len(), g.Segments*int(g.BlockSize/g.TransferSize); got != want {
		t.Fatalf("Len = %d, want %d", got, want)
	}
	offs := p.AppendOffsets(nil)
	for n, o := range offs {
		if p.At(n) != o {
			t.Fatalf("At(%d) = %d, want %d", n, p.At(n), o)
		}
	}
	return offs
}

// TestPlanGolden pins the offsets: a later version must read back, with the
// same seed, exactly what an earlier one wrote. The random cases come from
// an independent (Python) implementation of the package documentation.
func TestPlanGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		g    layout.Geometry
		rank int
		want []int64
	}{
		{"sequential shared", layout.Geometry{BlockSize: 300, TransferSize: 100, Segments: 2, NumTasks: 3}, 1,
			[]int64{300, 400, 500, 1200, 1300, 1400}},
		{"sequential -F", layout.Geometry{BlockSize: 300, TransferSize: 100, Segments: 2, NumTasks: 3, FilePerProc: true}, 1,
			[]int64{0, 100, 200, 300, 400, 500}},
		{"-z -F", layout.Geometry{BlockSize: 800, TransferSize: 100, Segments: 2, NumTasks: 4, FilePerProc: true, RandomOffset: 1, Seed: 42}, 1,
			[]int64{200, 300, 700, 0, 400, 100, 600, 500, 1000, 1100, 1500, 800, 1200, 900, 1400, 1300}},
		{"-z shared rank 0", layout.Geometry{BlockSize: 200, TransferSize: 100, Segments: 2, NumTasks: 3, RandomOffset: 1, Seed: 7}, 0,
			[]int64{0, 300, 600, 900}},
		{"-z shared rank 1", layout.Geometry{BlockSize: 200, TransferSize: 100, Segments: 2, NumTasks: 3, RandomOffset: 1, Seed: 7}, 1,
			[]int64{100, 200, 700, 800}},
		{"-z shared rank 2", layout.Geometry{BlockSize: 200, TransferSize: 100, Segments: 2, NumTasks: 3, RandomOffset: 1, Seed: 7}, 2,
			[]int64{500, 400, 1100, 1000}},
		{"-z -z shared rank 0", layout.Geometry{BlockSize: 200, TransferSize: 100, Segments: 3, NumTasks: 2, RandomOffset: 2, Seed: 9}, 0,
			[]int64{1000, 1100, 200, 300, 600, 700}},
		{"-z -z shared rank 1", layout.Geometry{BlockSize: 200, TransferSize: 100, Segments: 3, NumTasks: 2, RandomOffset: 2, Seed: 9}, 1,
			[]int64{0, 100, 200, 300, 800, 900}},
		{"-z -z -F", layout.Geometry{BlockSize: 200, TransferSize: 100, Segments: 4, NumTasks: 2, FilePerProc: true, RandomOffset: 2, Seed: 9}, 1,
			[]int64{600, 700, 200, 300, 600, 700, 0, 100}},
		{"-z -z -z is -z -z", layout.Geometry{BlockSize: 200, TransferSize: 100, Segments: 4, NumTasks: 2, FilePerProc: true, RandomOffset: 3, Seed: 9}, 1,
			[]int64{600, 700, 200, 300, 600, 700, 0, 100}},
		{"no segments", layout.Geometry{BlockSize: 200, TransferSize: 100, NumTasks: 2, RandomOffset: 2}, 1, []int64{}},
	} {
		if got := plan(t, tc.g, tc.rank); !slices.Equal(got, tc.want) {
			t.Errorf("%s: offsets %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestShuffledFilePerProc: each segment is the block's transfers in one
// order, the same for every segment, fixed by seed and rank.
func TestShuffledFilePerProc(t *testing.T) {
	t.Parallel()
	g := layout.Geometry{BlockSize: 64 << 10, TransferSize: 1 << 10, Segments: 3, NumTasks: 2, FilePerProc: true, RandomOffset: 1, Seed: 1}
	a := plan(t, g, 0)
	k := 64
	first := slices.Clone(a[:k])
	for s := range 3 {
		seg := slices.Clone(a[s*k : (s+1)*k])
		for j := range seg {
			seg[j] -= int64(s) * g.BlockSize
		}
		if !slices.Equal(seg, first) {
			t.Errorf("segment %d is not ordered like segment 0", s)
		}
	}
	slices.Sort(first)
	for j, o := range first {
		if o != int64(j)<<10 {
			t.Fatalf("segment 0 is not a permutation of the block's transfers: %v", first)
		}
	}
	if slices.Equal(a, plan(t, g, 1)) {
		t.Error("ranks 0 and 1 use the same order")
	}
	if !slices.Equal(a, plan(t, g, 0)) {
		t.Error("the same seed gives another order")
	}
	g.Seed = 2
	if slices.Equal(a, plan(t, g, 0)) {
		t.Error("seeds 1 and 2 give the same order")
	}
}

// TestShuffledSharedCoversFile: on a shared file every transfer is written
// exactly once, each rank moves k per segment, for many sizes and seeds.
func TestShuffledSharedCoversFile(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3, 5, 8, 13} {
		for _, k := range []int{1, 2, 3, 7, 16, 33} {
			for seed := range uint64(5) {
				g := layout.Geometry{BlockSize: int64(k) * 8, TransferSize: 8, Segments: 2, NumTasks: n, RandomOffset: 1, Seed: seed}
				seen := make([]int, g.FileSize()/8)
				for r := range n {
					offs := plan(t, g, r)
					for i, o := range offs {
						seg := int64(i / k)
						if o < seg*int64(n*k*8) || o >= (seg+1)*int64(n*k*8) || o%8 != 0 {
							t.Fatalf("n=%d k=%d rank %d: offset %d outside segment %d", n, k, r, o, seg)
						}
						seen[o/8]++
					}
				}
				for i, c := range seen {
					if c != 1 {
						t.Fatalf("n=%d k=%d seed %d: transfer %d written %d times", n, k, seed, i, c)
					}
				}
			}
		}
	}
}

func TestRandomBlocks(t *testing.T) {
	t.Parallel()
	for _, fpp := range []bool{false, true} {
		g := layout.Geometry{BlockSize: 4 << 10, TransferSize: 1 << 10, Segments: 50, NumTasks: 3, FilePerProc: fpp, RandomOffset: 2, Seed: 99}
		size := g.FileSize()
		for r := range 3 {
			offs := plan(t, g, r)
			for s := range g.Segments {
				start := offs[4*s]
				if start%g.BlockSize != 0 || start < 0 || start+g.BlockSize > size {
					t.Fatalf("fpp=%v rank %d segment %d starts at %d", fpp, r, s, start)
				}
				for j := range 4 {
					if offs[4*s+j] != start+int64(j)*g.TransferSize {
						t.Fatalf("fpp=%v rank %d segment %d not sequential in its block: %v", fpp, r, s, offs[4*s:4*s+4])
					}
				}
			}
			if last := size - g.BlockSize; (fpp || r == 0) && offs[0] != last {
				t.Errorf("fpp=%v rank %d starts at %d, want the last block %d", fpp, r, offs[0], last)
			}
		}
	}
}

func TestPlanNoAllocs(t *testing.T) {
	for _, z := range []int{0, 1, 2} {
		g := layout.Geometry{BlockSize: 1 << 20, TransferSize: 1 << 12, Segments: 4, NumTasks: 4, RandomOffset: z, Seed: 3}
		p, err := g.Plan(2)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		allocs := testing.AllocsPerRun(5, func() {
			for s := range p.Segments() {
				for j := range p.PerSegment() {
					sum += p.Offset(s, j)
				}
			}
			for n := range p.Len() {
				sum += p.At(n)
			}
		})
		if allocs != 0 {
			t.Errorf("-z×%d: the offset loop allocates %.1f times", z, allocs)
		}
	}
}

// TestRandomBlocksSmallerFile: with FileBlocks, -z -z draws only among the
// blocks a smaller file has (the read of a file written with fewer
// segments), starting at its last block; FileBlocks of 0 or beyond the
// test's file changes nothing.
func TestRandomBlocksSmallerFile(t *testing.T) {
	t.Parallel()
	for _, fpp := range []bool{false, true} {
		g := layout.Geometry{BlockSize: 4 << 10, TransferSize: 1 << 10, Segments: 10, NumTasks: 2, FilePerProc: fpp, RandomOffset: 2, Seed: 7}
		full := plan(t, g, 0)
		for _, blocks := range []int64{0, g.FileSize() / g.BlockSize, 1 << 40} {
			h := g
			h.FileBlocks = blocks
			if got := plan(t, h, 0); !slices.Equal(got, full) {
				t.Errorf("fpp=%v FileBlocks %d changed the plan", fpp, blocks)
			}
		}
		g.FileBlocks = 2
		seen := map[int64]bool{}
		for r := range 2 {
			offs := plan(t, g, r)
			for _, off := range offs {
				if off < 0 || off+g.TransferSize > 2*g.BlockSize {
					t.Fatalf("fpp=%v rank %d: offset %d beyond the file's 2 blocks", fpp, r, off)
				}
				seen[off/g.BlockSize] = true
			}
			if (fpp || r == 0) && offs[0] != g.BlockSize {
				t.Errorf("fpp=%v rank %d starts at %d, want the file's last block %d", fpp, r, offs[0], g.BlockSize)
			}
		}
		if !seen[0] || !seen[1] {
			t.Errorf("fpp=%v: blocks read %v, want both", fpp, seen)
		}
	}
}

func TestGeometryValidate(t *testing.T) {
	t.Parallel()
	ok := layout.Geometry{BlockSize: 1 << 20, TransferSize: 1 << 18, Segments: 1, NumTasks: 2}
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate(%+v): %v", ok, err)
	}
	for _, tc := range []struct {
		name string
		edit func(*layout.Geometry)
		want string
	}{
		{"zero transfer", func(g *layout.Geometry) { g.TransferSize = 0 }, "-t must be > 0 (got 0)"},
		{"block < transfer", func(g *layout.Geometry) { g.BlockSize = 1 << 10 }, "(it is smaller)"},
		{"not a multiple", func(g *layout.Geometry) { g.BlockSize = 3 << 17 }, "is not a multiple of -t"},
		{"negative segments", func(g *layout.Geometry) { g.Segments = -1 }, "-s -1"},
		{"no tasks", func(g *layout.Geometry) { g.NumTasks = 0 }, "0 tasks"},
		{"negative -z", func(g *layout.Geometry) { g.RandomOffset = -1 }, "random offset"},
		{"negative file blocks", func(g *layout.Geometry) { g.FileBlocks = -1 }, "file blocks"},
		{"file too big", func(g *layout.Geometry) { g.Segments = 1 << 62 }, "overflow"},
		{"tasks × block too big", func(g *layout.Geometry) { g.NumTasks = 1 << 62 }, "overflow"},
	} {
		g := ok
		tc.edit(&g)
		err := g.Validate()
		if !errors.Is(err, layout.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate = %v, want ErrInvalid containing %q", tc.name, err, tc.want)
		}
		if _, perr := g.Plan(0); perr == nil {
			t.Errorf("%s: Plan succeeded", tc.name)
		}
	}
	for _, r := range []int{-1, 2} {
		if _, err := ok.Plan(r); !errors.Is(err, layout.ErrInvalid) {
			t.Errorf("Plan(%d) = %v, want ErrInvalid", r, err)
		}
	}
}

func TestFileSizeAndSeed(t *testing.T) {
	t.Parallel()
	g := layout.Geometry{BlockSize: 1 << 20, TransferSize: 1 << 18, Segments: 3, NumTasks: 4}
	if got, want := g.FileSize(), int64(12<<20); got != want {
		t.Errorf("shared FileSize = %d, want %d", got, want)
	}
	g.FilePerProc = true
	if got, want := g.FileSize(), int64(3<<20); got != want {
		t.Errorf("-F FileSize = %d, want %d", got, want)
	}
	if got := layout.OffsetSeed(-1, 1600000000); got != 1600000000 {
		t.Errorf("OffsetSeed(-1) = %d, want the signature", got)
	}
	if got := layout.OffsetSeed(5, 1600000000); got != 5 {
		t.Errorf("OffsetSeed(5) = %d, want 5", got)
	}
}
