package collectives

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/pipe"
)

func TestParseAlgorithms(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want map[string]string
		err  string
	}{
		{"", map[string]string{}, ""},
		{"allreduce=ring", map[string]string{"allreduce": "ring"}, ""},
		{" Allreduce = Ring , bcast=binomial,", map[string]string{"allreduce": "ring", "bcast": "binomial"}, ""},
		{"alltoall=auto", map[string]string{"alltoall": "auto"}, ""},
		{"allreduce=tree", nil, `collectives: algorithm choice "allreduce=tree": unknown allreduce algorithm "tree": have auto, recursive-doubling, rabenseifner, ring`},
		{"scan=linear", nil, `collectives: algorithm choice "scan=linear": unknown collective "scan": have barrier, bcast, scatter, gather, allgather, alltoall, reduce, allreduce`},
		{"ring", nil, `collectives: algorithm choice "ring": want collective=algorithm, for example allreduce=ring`},
		{"bcast=", nil, `want collective=algorithm`},
		{"bcast=binomial,bcast=scatter-ring", nil, `bcast already set to binomial`},
	} {
		got, err := ParseAlgorithms(tc.spec)
		if tc.err != "" {
			if err == nil || !contains(err.Error(), tc.err) {
				t.Errorf("ParseAlgorithms(%q) error = %v; want %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("ParseAlgorithms(%q) = %v, %v; want %v", tc.spec, got, err, tc.want)
		}
	}
}

func TestAlgorithmsLists(t *testing.T) {
	if got := Collectives(); !slices.Equal(got, []string{"barrier", "bcast", "scatter", "gather", "allgather", "alltoall", "reduce", "allreduce"}) {
		t.Errorf("Collectives() = %v", got)
	}
	if got := Algorithms("allgather"); !slices.Equal(got, []string{"recursive-doubling", "bruck", "ring"}) {
		t.Errorf(`Algorithms("allgather") = %v`, got)
	}
	if got := Algorithms("nope"); got != nil {
		t.Errorf(`Algorithms("nope") = %v; want nil`, got)
	}
	// Every algorithm named is distinct within its collective and has a name.
	for _, c := range Collectives() {
		algs := Algorithms(c)
		if len(algs) == 0 || len(slices.Compact(slices.Sorted(slices.Values(algs)))) != len(algs) {
			t.Errorf("Algorithms(%q) = %v", c, algs)
		}
	}
}

// commOfSize returns rank 0's Comm of a p-rank pipe mesh with options o.
func commOfSize(t *testing.T, p int, o Options) *Comm {
	t.Helper()
	conns := make([]fabric.Conn, p)
	if p > 1 {
		conns = pipe.Mesh(p)[0]
	}
	c, err := New(0, p, conns, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sharedConn is a connection that says it is through shared memory, as
// fabric/shm's are.
type sharedConn struct{ fabric.Conn }

func (sharedConn) SharedMemory() bool { return true }

// crowdedConnTest is a shared-memory connection that says it joins two ranks
// of a crowded host, as fabric/shm's do with more than four ranks per CPU.
type crowdedConnTest struct{ sharedConn }

func (crowdedConnTest) Crowded() bool { return true }

// TestAlgorithmSelectionCrowded checks that a Comm whose every connection
// is crowded picks the algorithms with the fewest messages, unless forced
// or of two ranks; and that one connection that is not crowded (a peer on
// another host) keeps the default table, on every rank alike.
func TestAlgorithmSelectionCrowded(t *testing.T) {
	for _, tc := range []struct {
		name       string
		p          int
		notCrowded int // a peer whose connection is not crowded, or -1
		force      map[string]string
		coll       string
		n          int
		want       string
	}{
		{"barrier", 256, -1, nil, "barrier", 0, "gather-release"},
		{"barrier of 3", 3, -1, nil, "barrier", 0, "gather-release"},
		{"allreduce short", 256, -1, nil, "allreduce", 4, "reduce-bcast"},
		{"allreduce long", 256, -1, nil, "allreduce", 4 << 20, "reduce-bcast"},
		{"allreduce odd p", 5, -1, nil, "allreduce", 1 << 20, "reduce-bcast"},
		{"two ranks", 2, -1, nil, "allreduce", 8, "recursive-doubling"},
		{"forced", 8, -1, map[string]string{"allreduce": "ring", "barrier": "dissemination"}, "allreduce", 8, "ring"},
		{"forced barrier", 8, -1, map[string]string{"barrier": "dissemination"}, "barrier", 0, "dissemination"},
		{"one peer elsewhere", 8, 5, nil, "allreduce", 8, "recursive-doubling"},
		{"one peer elsewhere, barrier", 8, 5, nil, "barrier", 0, "dissemination"},
		{"bcast unchanged", 8, -1, nil, "bcast", 1 << 20, "scatter-ring"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mesh := pipe.Mesh(tc.p)
			for r := range tc.p { // every rank must choose alike
				conns := mesh[r]
				for i, cn := range conns {
					switch {
					case cn == nil:
					case i == tc.notCrowded || r == tc.notCrowded:
						conns[i] = sharedConn{cn}
					default:
						conns[i] = crowdedConnTest{sharedConn{cn}}
					}
				}
				c, err := New(r, tc.p, conns, Options{Algorithms: tc.force})
				if err != nil {
					t.Fatal(err)
				}
				if got := c.Algorithm(tc.coll, tc.n); got != tc.want {
					t.Errorf("rank %d: Algorithm(%q, %d) = %q; want %q", r, tc.coll, tc.n, got, tc.want)
				}
				c.Close()
			}
		})
	}
}

// TestAlgorithmSelection checks the default table at its edges.
func TestAlgorithmSelection(t *testing.T) {
	for _, tc := range []struct {
		coll  string
		p, n  int
		want  string
		force string
	}{
		{"barrier", 5, 0, "dissemination", ""},
		{"barrier", 3, 0, "dissemination", ""},
		{"barrier", 2, 0, "dissemination", ""}, // pipes are not shared memory
		{"barrier", 2, 0, "gather-release", "gather-release"},
		{"bcast", 4, 1 << 20, "binomial", ""},
		{"bcast", 8, 12288, "binomial", ""},
		{"bcast", 8, 12289, "scatter-ring", ""},
		{"scatter", 9, 1 << 20, "binomial", ""},
		{"gather", 9, 1, "binomial", ""},
		{"allgather", 4, 524288/4 - 1, "recursive-doubling", ""},
		{"allgather", 4, 524288 / 4, "ring", ""},
		{"allgather", 5, 81920/5 - 1, "bruck", ""},
		{"allgather", 5, 81920 / 5, "ring", ""},
		{"allgather", 5, 8, "bruck", "recursive-doubling"},
		{"allgather", 8, 8, "recursive-doubling", "recursive-doubling"},
		{"alltoall", 8, 256, "bruck", ""},
		{"alltoall", 7, 256, "scattered", ""},
		{"alltoall", 8, 257, "scattered", ""},
		{"alltoall", 8, 32768, "scattered", ""},
		{"alltoall", 8, 32769, "pairwise", ""},
		{"reduce", 4, 2048, "binomial", ""},
		{"reduce", 4, 2056, "rabenseifner", ""},
		{"reduce", 4, 2056, "binomial", "binomial"},
		{"allreduce", 4, 2048, "recursive-doubling", ""},
		{"allreduce", 4, 4 << 20, "rabenseifner", ""},
		{"allreduce", 5, 1 << 30, "rabenseifner", ""},
		{"allreduce", 4, 8, "ring", "ring"},
		{"nope", 4, 8, "", ""},
	} {
		o := Options{}
		if tc.force != "" {
			o.Algorithms = map[string]string{tc.coll: tc.force}
		}
		if got := commOfSize(t, tc.p, o).Algorithm(tc.coll, tc.n); got != tc.want {
			t.Errorf("p=%d forced %q: Algorithm(%q, %d) = %q; want %q", tc.p, tc.force, tc.coll, tc.n, got, tc.want)
		}
	}
	// Two ranks joined by shared memory default to gather-release; three
	// do not, nor two with the algorithm forced.
	for _, tc := range []struct {
		p     int
		force string
		want  string
	}{{2, "", "gather-release"}, {3, "", "dissemination"}, {2, "dissemination", "dissemination"}} {
		o := Options{}
		if tc.force != "" {
			o.Algorithms = map[string]string{"barrier": tc.force}
		}
		conns := pipe.Mesh(tc.p)[0]
		for i, cn := range conns {
			if cn != nil {
				conns[i] = sharedConn{cn}
			}
		}
		c, err := New(0, tc.p, conns, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Algorithm("barrier", 0); got != tc.want {
			t.Errorf("p=%d over shared memory, forced %q: Algorithm(barrier) = %q; want %q", tc.p, tc.force, got, tc.want)
		}
		c.Close()
	}
	// Thresholds change the choice; zero fields keep their defaults.
	c := commOfSize(t, 4, Options{Thresholds: Thresholds{AllreduceShortMsg: 1 << 30}})
	if got := c.Algorithm("allreduce", 4<<20); got != "recursive-doubling" {
		t.Errorf("with AllreduceShortMsg 1 GiB: %q", got)
	}
	if got := c.Options().Thresholds.BcastShortMsg; got != 12288 {
		t.Errorf("BcastShortMsg = %d; want the default", got)
	}
	// The ring rule, off by default, applies to p not a power of two.
	for _, tc := range []struct {
		p, n int
		want string
	}{{5, 1<<20 - 8, "rabenseifner"}, {5, 1 << 20, "ring"}, {4, 1 << 20, "rabenseifner"}} {
		c := commOfSize(t, tc.p, Options{Thresholds: Thresholds{AllreduceLongMsg: 1 << 20}})
		if got := c.Algorithm("allreduce", tc.n); got != tc.want {
			t.Errorf("AllreduceLongMsg 1 MiB, p=%d: Algorithm(allreduce, %d) = %q; want %q", tc.p, tc.n, got, tc.want)
		}
	}
	c = commOfSize(t, 4, Options{Thresholds: Thresholds{AllreduceShortMsg: -1}})
	if got := c.Algorithm("allreduce", 1024); got != "rabenseifner" {
		t.Errorf("with AllreduceShortMsg -1: %q", got)
	}
	if got := c.Algorithm("allreduce", 24); got != "recursive-doubling" {
		t.Errorf("with AllreduceShortMsg -1, fewer elements than ranks: %q", got)
	}
}

func TestDefaultThresholds(t *testing.T) {
	d := DefaultThresholds()
	// No default is zero, so that a zero field always means "default".
	v := reflect.ValueOf(d)
	for i := range v.NumField() {
		if v.Field(i).Int() == 0 {
			t.Errorf("DefaultThresholds().%s = 0", v.Type().Field(i).Name)
		}
	}
	if (Thresholds{}).withDefaults() != d {
		t.Error("zero Thresholds do not resolve to the defaults")
	}
	if err := (Options{Thresholds: Thresholds{AlltoallThrottle: -1}}).Validate(); err == nil {
		t.Error("negative AlltoallThrottle accepted")
	}
}

func TestSetOptions(t *testing.T) {
	c := commOfSize(t, 3, Options{})
	if err := c.SetOptions(Options{Algorithms: map[string]string{"Bcast": "Scatter-Ring"}}); err != nil {
		t.Fatal(err)
	}
	if got := c.Options().Algorithms; !maps.Equal(got, map[string]string{"bcast": "scatter-ring"}) {
		t.Errorf("Options().Algorithms = %v", got)
	}
	if err := c.SetOptions(Options{Algorithms: map[string]string{"bcast": "ring"}}); err == nil {
		t.Error("bad algorithm accepted")
	}
}
