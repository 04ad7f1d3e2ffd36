package imb

import (
	"math"
	"slices"
	"testing"
)

func TestSizes(t *testing.T) {
	pow2 := func(lo, hi int) []int {
		out := []int{0}
		for e := lo; e <= hi; e++ {
			out = append(out, 1<<e)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		bench  string
		minLog int
		maxLog int
		msglen []int
		want   []int
	}{
		// IMB's default: 0, 1, 2, 4, …, 4 MiB.
		{"default bytes", "PingPong", 0, 22, nil, pow2(0, 22)},
		// float32 reductions: 1 and 2 round up to 4, so 0, 4, 8, …, 4 MiB.
		{"default reduction", "Allreduce", 0, 22, nil, pow2(2, 22)},
		{"msglog 3:5", "Bcast", 3, 5, nil, []int{0, 8, 16, 32}},
		{"msglog 0:1 reduction", "Reduce", 0, 1, nil, []int{0}},
		{"msglog 1:3 reduction", "Reduce", 1, 3, nil, []int{0, 4, 8}},
		{"barrier", "Barrier", 0, 22, nil, []int{0}},
		{"msglen order kept", "Alltoall", 0, 22, []int{1024, 8, 0, 8}, []int{1024, 8, 0}},
		{"msglen reduction rounds up", "Allreduce", 0, 22, []int{1, 2, 4, 6, 8, 1 << 20}, []int{4, 8, 1 << 20}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := NewOptions()
			o.MinLog, o.MaxLog, o.MsgLen = c.minLog, c.maxLog, c.msglen
			b, err := lookup(c.bench)
			if err != nil {
				t.Fatal(err)
			}
			if got := sizes(&o, b); !slices.Equal(got, c.want) {
				t.Errorf("sizes = %v, want %v", got, c.want)
			}
		})
	}
}

func TestProcessCounts(t *testing.T) {
	for _, c := range []struct {
		k           kind
		size, npmin int
		want        []int
	}{
		{kindSingle, 1, 2, nil},
		{kindSingle, 2, 2, []int{2}},
		{kindSingle, 8, 4, []int{2}},
		{kindCollective, 1, 2, []int{1}},
		{kindCollective, 2, 2, []int{2}},
		{kindCollective, 5, 2, []int{2, 4, 5}},
		{kindCollective, 8, 1, []int{1, 2, 4, 8}},
		{kindParallel, 6, 3, []int{3, 6}},
		{kindSync, 4, 9, []int{4}},
	} {
		if got := processCounts(c.k, c.size, c.npmin); !slices.Equal(got, c.want) {
			t.Errorf("processCounts(%v, %d, %d) = %v, want %v", c.k, c.size, c.npmin, got, c.want)
		}
	}
}

func TestRowTimes(t *testing.T) {
	nan := math.NaN()
	coll := benchmark{name: "Allreduce", kind: kindCollective}
	for _, c := range []struct {
		name    string
		all     []rankFigures
		want    []float64 // #repetitions, t_min, t_max, t_avg
		samples []float64
	}{
		// Idle ranks (negative time) take no part in t_min, t_max, t_avg.
		{"idle skipped", []rankFigures{{time: 3e-6}, {time: -1}, {time: 1e-6}, {time: 2e-6}, {time: 6e-6}},
			[]float64{10, 1e-6, 6e-6, 3e-6}, []float64{3e-6, 1e-6, 2e-6, 6e-6}},
		{"no active rank", []rankFigures{{time: -1}}, []float64{10, nan, nan, nan}, nil},
	} {
		row, _ := newTable(coll, len(c.all), false).row(8, 10, c.all)
		if len(row.Metrics) != len(c.want) {
			t.Fatalf("%s: row metrics %v, want %v", c.name, row.Metrics, c.want)
		}
		for i, w := range c.want {
			if g := row.Metrics[i]; !(near(g, w) || g == w || math.IsNaN(g) && math.IsNaN(w)) {
				t.Errorf("%s: metric %d = %g, want %g", c.name, i, g, w)
			}
		}
		if !slices.Equal(row.Samples[sampleRank], c.samples) {
			t.Errorf("%s: samples %v, want %v", c.name, row.Samples[sampleRank], c.samples)
		}
	}
}

func TestBandwidth(t *testing.T) {
	for _, c := range []struct {
		scale float64
		size  int
		tmax  float64
		want  float64
	}{
		{1, 4194304, 268e-6, 4194304 / 268.0}, // the Addendum's 4 MiB PingPong: 15.6 GB/s
		{2, 1024, 1e-6, 2048},
		{4, 1000, 2e-6, 2000},
		{1, 0, 1e-6, 0},
		{1, 8, 0, 0},
	} {
		if got := bandwidth(c.scale, c.size, c.tmax); !near(got, c.want) && got != c.want {
			t.Errorf("bandwidth(%g, %d, %g) = %g, want %g", c.scale, c.size, c.tmax, got, c.want)
		}
	}
}

func TestRunEnvOversubscribed(t *testing.T) {
	for _, c := range []struct {
		env   Env
		ranks int
		want  string
	}{
		{Env{CPUs: 2}, 4, "4 ranks / 2 CPUs"},
		{Env{CPUs: 2}, 2, ""},
		{Env{CPUs: 2, HostRanks: 3}, 6, "3 ranks / 2 CPUs"},
		{Env{CPUs: 8, HostRanks: 4}, 16, ""},
		{Env{}, 64, ""},
	} {
		m := runEnv(&c.env, c.ranks)
		if got := m["oversubscribed"]; got != c.want {
			t.Errorf("runEnv(%+v, %d): oversubscribed %q, want %q", c.env, c.ranks, got, c.want)
		}
	}
}

func TestPatternDistinguishes(t *testing.T) {
	// Data from another rank, size or offset must differ somewhere in any
	// block of 16 bytes.
	same := func(r1, s1, o1, r2, s2, o2 int) bool {
		for i := range 16 {
			if patternByte(r1, s1, o1+i) != patternByte(r2, s2, o2+i) {
				return false
			}
		}
		return true
	}
	for _, c := range [][6]int{{0, 64, 0, 1, 64, 0}, {0, 64, 0, 0, 128, 0}, {0, 64, 0, 0, 64, 64}, {3, 8, 8, 3, 8, 16}} {
		if same(c[0], c[1], c[2], c[3], c[4], c[5]) {
			t.Errorf("pattern of %v is the same", c)
		}
	}
}
