package twophase

import (
	"reflect"
	"testing"
)

// strided is IOR's shared-file layout: rank p of n, segments of n blocks
// of block bytes, in transfers of xfer bytes.
func strided(p, n int, block, xfer int64, segs int64) Request {
	k := block / xfer
	return Request{N: segs * k, Size: xfer, At: func(i int64) int64 {
		return (i/k)*int64(n)*block + int64(p)*block + (i%k)*xfer
	}}
}

// list is a request from explicit offsets.
func list(size int64, offs ...int64) Request {
	return Request{N: int64(len(offs)), Size: size, At: func(i int64) int64 { return offs[i] }}
}

func TestInterleaved(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ext  []Extent
		want bool
	}{
		// IOR's default contiguous blocks: rank 1 starts where rank 0 ends.
		{"adjacent blocks", []Extent{{0, 100}, {100, 200}}, false},
		{"ior-hard 2 ranks 3 segments", []Extent{strided(0, 2, 47008, 47008, 3).Extent(), strided(1, 2, 47008, 47008, 3).Extent()}, true},
		{"one segment of ior-hard", []Extent{strided(0, 2, 47008, 47008, 1).Extent(), strided(1, 2, 47008, 47008, 1).Extent()}, false},
		// ROMIO compares with the previous rank's last byte (inclusive):
		// one byte of overlap does not count.
		{"one byte overlap", []Extent{{0, 100}, {99, 200}}, false},
		{"two bytes overlap", []Extent{{0, 100}, {98, 200}}, true},
		// Only consecutive ranks are compared: out of order is not
		// interleaving.
		{"reverse order", []Extent{{100, 200}, {0, 100}}, true},
		{"empty rank between", []Extent{{0, 100}, {}, {50, 150}}, false},
		{"single rank", []Extent{{0, 1 << 30}}, false},
	} {
		if got := Interleaved(tc.ext); got != tc.want {
			t.Errorf("%s: Interleaved(%v) = %v, want %v", tc.name, tc.ext, got, tc.want)
		}
	}
}

func TestFileDomains(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rng  Extent
		n    int
		su   int64
		want []Extent
	}{
		{"even", Extent{0, 100}, 2, 0, []Extent{{0, 50}, {50, 100}}},
		// ROMIO's comment: "a range of 97 divided among 16 processes":
		// ceil(97/16) = 7 bytes each, the 14th gets 6, the 15th and
		// 16th nothing.
		{"97 over 16", Extent{0, 97}, 16, 0, []Extent{{0, 7}, {7, 14}, {14, 21}, {21, 28}, {28, 35}, {35, 42}, {42, 49},
			{49, 56}, {56, 63}, {63, 70}, {70, 77}, {77, 84}, {84, 91}, {91, 97}, {}, {}}},
		{"offset start", Extent{1000, 1010}, 3, 0, []Extent{{1000, 1004}, {1004, 1008}, {1008, 1010}}},
		{"one aggregator", Extent{5, 9}, 1, 0, []Extent{{5, 9}}},
		{"nothing to do", Extent{}, 2, 0, []Extent{{}, {}}},
		// striping_unit: ends move to the nearest multiple (ROMIO's
		// rem_front < rem_back test; a tie moves up), the last one
		// ends at the end.
		{"aligned 3 × 4096", Extent{0, 3 * 4096 * 10}, 3, 4096, []Extent{{0, 40960}, {40960, 81920}, {81920, 122880}}},
		{"aligned down and up", Extent{0, 10000}, 3, 1000, []Extent{{0, 3000}, {3000, 7000}, {7000, 10000}}},
		{"tie moves up", Extent{0, 300}, 2, 100, []Extent{{0, 200}, {200, 300}}},
		{"unit above the domains", Extent{0, 1000}, 4, 4096, []Extent{{}, {}, {}, {0, 1000}}},
		{"unaligned start", Extent{100, 4196}, 2, 1024, []Extent{{100, 2048}, {2048, 4196}}},
	} {
		if got := FileDomains(tc.rng, tc.n, tc.su); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: FileDomains(%v, %d, %d) = %v, want %v", tc.name, tc.rng, tc.n, tc.su, got, tc.want)
		}
	}
}

func TestAggregators(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                   string
		hosts                  []string
		active, nodes, perHost int
		want                   []int
	}{
		{"one host", []string{"a", "a", "a", "a"}, 4, 0, 1, []int{0}},
		{"two hosts by slot", []string{"a", "a", "b", "b"}, 4, 0, 1, []int{0, 2}},
		{"two hosts round robin", []string{"a", "b", "a", "b"}, 4, 0, 1, []int{0, 1}},
		{"cb_nodes cuts", []string{"a", "b", "c"}, 3, 2, 1, []int{0, 1}},
		// "*:1" caps cb_nodes at the number of hosts, as in ROMIO.
		{"cb_nodes above hosts", []string{"a", "a", "b", "b"}, 4, 8, 1, []int{0, 2}},
		{"*:2", []string{"a", "a", "a", "b", "b"}, 5, 0, 2, []int{0, 1, 3, 4}},
		{"*:* with cb_nodes", []string{"a", "a", "a", "a"}, 4, 3, 0, []int{0, 1, 2}},
		{"-N leaves ranks out", []string{"a", "b", "c", "d"}, 2, 0, 1, []int{0, 1}},
		{"no host names", nil, 3, 0, 1, []int{0}},
	} {
		if got := Aggregators(tc.hosts, tc.active, tc.nodes, tc.perHost); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Aggregators = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPlanRounds(t *testing.T) {
	t.Parallel()
	const b = 47008
	hard := func(n int, segs int64) []Request {
		reqs := make([]Request, n)
		for p := range reqs {
			reqs[p] = strided(p, n, b, b, segs)
		}
		return reqs
	}
	for _, tc := range []struct {
		name    string
		reqs    []Request
		aggs    []int
		buf     int64
		domains []Extent
		spans   []Extent
		rounds  int
	}{
		{"ior-hard one aggregator", hard(2, 400), []int{0}, 16 << 20,
			[]Extent{{0, 800 * b}}, []Extent{{0, 800 * b}}, 3}, // 37.6 MB in 16 MiB rounds
		{"ior-hard two aggregators", hard(2, 400), []int{0, 1}, 16 << 20,
			[]Extent{{0, 400 * b}, {400 * b, 800 * b}}, []Extent{{0, 400 * b}, {400 * b, 800 * b}}, 2},
		// Holes at the domain's edges: the span starts at the first
		// requested byte, as ROMIO's st_loc.
		{"span skips leading hole", []Request{list(10, 100, 300), list(10, 150)}, []int{0, 1}, 64,
			[]Extent{{100, 205}, {205, 310}}, []Extent{{100, 160}, {300, 310}}, 1},
		{"small buffer", []Request{list(8, 0, 16, 32), list(8, 8, 24, 40)}, []int{0}, 10,
			[]Extent{{0, 48}}, []Extent{{0, 48}}, 5},
	} {
		p, err := NewPlan(tc.reqs, tc.aggs, tc.buf, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(p.Domains, tc.domains) || !reflect.DeepEqual(p.Spans, tc.spans) || p.Rounds != tc.rounds {
			t.Errorf("%s: domains %v spans %v rounds %d, want %v %v %d", tc.name, p.Domains, p.Spans, p.Rounds, tc.domains, tc.spans, tc.rounds)
		}
	}
}

// TestRoundsCoverEveryByteOnce: over all rounds and aggregators, the parts
// of every rank's pieces add up to each piece exactly once.
func TestRoundsCoverEveryByteOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		reqs []Request
		aggs []int
		buf  int64
	}{
		{"ior-hard 3 ranks 2 aggs", []Request{strided(0, 3, 4700, 4700, 50), strided(1, 3, 4700, 4700, 50), strided(2, 3, 4700, 4700, 50)}, []int{0, 2}, 10000},
		{"ior-easy-like 2 transfers per block", []Request{strided(0, 2, 2048, 1024, 9), strided(1, 2, 2048, 1024, 9)}, []int{0, 1}, 3000},
		{"holes", []Request{list(100, 0, 1000, 5000), list(100, 200, 4000)}, []int{0, 1}, 333},
		{"a rank with nothing", []Request{list(64, 0, 128), {}, list(64, 64)}, []int{0, 2}, 50},
	} {
		p, err := NewPlan(tc.reqs, tc.aggs, tc.buf, 0)
		if err != nil {
			t.Fatal(err)
		}
		for r, q := range tc.reqs {
			got := make([]int64, q.N)
			for m := range p.Rounds {
				for a := range p.Aggs {
					rng := p.Round(a, m)
					if rng.Len() > tc.buf {
						t.Errorf("%s: round %d of aggregator %d is %v, longer than %d", tc.name, m, a, rng, tc.buf)
					}
					if !rng.Empty() && (rng.Start < p.Domains[a].Start || rng.End > p.Domains[a].End) {
						t.Errorf("%s: round %v outside domain %v", tc.name, rng, p.Domains[a])
					}
					q.Parts(rng, func(pt Part) {
						if pt.Off != q.At(pt.Piece)+pt.From || pt.Off < rng.Start || pt.Off+pt.Len() > rng.End {
							t.Errorf("%s: part %+v outside %v", tc.name, pt, rng)
						}
						got[pt.Piece] += pt.Len()
					})
				}
			}
			for i, n := range got {
				if n != q.Size {
					t.Errorf("%s: rank %d piece %d: %d bytes moved, want %d", tc.name, r, i, n, q.Size)
				}
			}
		}
	}
}

func TestNewPlanRefuses(t *testing.T) {
	t.Parallel()
	if _, err := NewPlan([]Request{list(1, 0)}, nil, 10, 0); err == nil {
		t.Error("no aggregator: no error")
	}
	if _, err := NewPlan([]Request{list(1, 0)}, []int{0}, 0, 0); err == nil {
		t.Error("buffer 0: no error")
	}
}
