package fabtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/jobtest"
)

// TestRounds: every pair exactly once, no endpoint in two tests of a
// round, n-1 rounds for even n, n for odd.
func TestRounds(t *testing.T) {
	for n := 0; n <= 9; n++ {
		rounds := Rounds(n)
		want := n - 1
		if n%2 == 1 {
			want = n
		}
		if n < 2 {
			want = 0
		}
		if len(rounds) != want {
			t.Errorf("n=%d: %d rounds, want %d", n, len(rounds), want)
		}
		seen := map[Pair]int{}
		for r, round := range rounds {
			busy := map[int]bool{}
			for _, p := range round {
				if p.A >= p.B || p.B >= n {
					t.Errorf("n=%d round %d: pair %v", n, r, p)
				}
				if busy[p.A] || busy[p.B] {
					t.Errorf("n=%d round %d: %v meets an endpoint already busy", n, r, p)
				}
				busy[p.A], busy[p.B] = true, true
				seen[p]++
			}
		}
		if len(seen) != n*(n-1)/2 {
			t.Errorf("n=%d: %d distinct pairs, want %d", n, len(seen), n*(n-1)/2)
		}
		for p, c := range seen {
			if c != 1 {
				t.Errorf("n=%d: pair %v %d times", n, p, c)
			}
		}
	}
}

func TestOutliers(t *testing.T) {
	mesh := func(n int, f func(a, b int) LinkFigures) []LinkFigures {
		var l []LinkFigures
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				x := f(a, b)
				x.A, x.B = fmt.Sprintf("node%02d", a), fmt.Sprintf("node%02d", b)
				l = append(l, x)
			}
		}
		return l
	}
	even := func(a, b int) LinkFigures {
		return LinkFigures{Lat: (10 + float64((a*7+b*3)%5)*0.1) * 1e-6, BW: 3000 + float64((a*5+b)%7)*20}
	}
	for _, tc := range []struct {
		name  string
		links []LinkFigures
		want  []string
	}{
		{"tight", mesh(6, even), nil},
		{"one slow cable", mesh(6, func(a, b int) LinkFigures {
			l := even(a, b)
			if a == 1 && b == 4 {
				l.BW = 1200
			}
			return l
		}), []string{"slow link: node01 <-> node04: 1.20 GB/s, 0.39x the median"}},
		{"one slow latency", mesh(5, func(a, b int) LinkFigures {
			l := even(a, b)
			if a == 0 && b == 3 {
				l.Lat = 45e-6
			}
			return l
		}), []string{"slow link latency: node00 <-> node03: 45.00 us"}},
		{"slow host", mesh(6, func(a, b int) LinkFigures {
			l := even(a, b)
			if a == 2 || b == 2 {
				l.BW = 900
			}
			return l
		}), []string{"slow host: node02: a median of 900.0 MB/s over its 5 links"}},
		{"two endpoints", mesh(2, even), nil},
	} {
		got := Outliers(tc.links)
		joined := strings.Join(got, "\n")
		for _, w := range tc.want {
			if !strings.Contains(joined, w) {
				t.Errorf("%s: no %q in\n%s", tc.name, w, joined)
			}
		}
		if tc.want == nil && len(got) > 0 {
			t.Errorf("%s: outliers in a tight population:\n%s", tc.name, joined)
		}
	}
}

// TestAllPairs: 4 and 5 ranks (on fake hosts) run every pair once, one
// test per endpoint at a time, and a slowed pair is named.
func TestAllPairs(t *testing.T) {
	for _, n := range []int{4, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var res []PairResult
			eps := make([]Endpoint, n)
			for i := range eps {
				eps[i] = Endpoint{Rank: i, Name: fmt.Sprintf("node%d", i)}
			}
			o := AllPairsOptions{LatSize: 8, LatIters: 200, BWSize: 64 << 10, BWIters: 64, Window: 16, Warmup: 2,
				Timeout: 10 * time.Second, Slow: Slowdown{A: 1, B: 3, Delay: 2 * time.Millisecond}}
			errs := jobtest.Run(t, n, nil, func(ctx context.Context, c *collectives.Comm) error {
				r, err := AllPairs(ctx, c, eps, o)
				if c.Rank() == 0 {
					res = r
				}
				return err
			})
			jobtest.NoErrors(t, errs)
			if len(res) != n*(n-1)/2 {
				t.Fatalf("%d results, want %d", len(res), n*(n-1)/2)
			}
			seen := map[[2]int]bool{}
			for _, r := range res {
				k := [2]int{r.A.Rank, r.B.Rank}
				if seen[k] || r.A.Rank >= r.B.Rank {
					t.Errorf("pair %v twice or out of order", k)
				}
				seen[k] = true
				if r.Lat.Sent != 200 || r.BW.Sent != 64 || r.Lat.Acked != 200 || r.BW.Acked != 64 {
					t.Errorf("pair %v: lat %d/%d bw %d/%d", k, r.Lat.Sent, r.Lat.Acked, r.BW.Sent, r.BW.Acked)
				}
			}
			out := AllPairsResult(o, eps, res)
			notes := strings.Join(out.Tables[0].Notes, "\n")
			// The slowed link (2 ms a message) is slow in latency and in
			// bandwidth. In-process pipes on a shared CPU spread by factors
			// of 4 and more, so other links are named now and then too, and
			// on a loaded machine the slowed one may stand out in one of
			// the two only: it must come first (notes are slowest first)
			// among the bandwidth or the latency outliers.
			var bw, lat []string
			for _, l := range out.Tables[0].Notes {
				switch {
				case strings.HasPrefix(l, "slow link: "):
					bw = append(bw, l)
				case strings.HasPrefix(l, "slow link latency: "):
					lat = append(lat, l)
				}
			}
			first := func(ls []string) bool { return len(ls) > 0 && strings.Contains(ls[0], ": node1 <-> node3: ") }
			if !first(bw) && !first(lat) {
				t.Errorf("the slowed pair is not the first slow link:\n%s\n%+v", notes, out.Tables[0].Rows)
			}
			if len(out.Tables) != 3 || len(out.Tables[2].Rows) != n || len(out.Tables[2].Columns) != n+1 {
				t.Errorf("matrices: %+v", out.Tables)
			}
		})
	}
}
