package mdtest

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

// rowsOf returns the rows of tb whose first labels are labels.
func rowsOf(tb *report.Table, labels ...string) []report.Row {
	var out []report.Row
	for _, r := range tb.Rows {
		if len(r.Labels) >= len(labels) && slices.Equal(r.Labels[:len(labels)], labels) {
			out = append(out, r)
		}
	}
	return out
}

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

var filePhases = []string{report.MdtestFileCreate, report.MdtestFileStat, report.MdtestFileRead, report.MdtestFileRemove}

// TestDistTables: on the fake per-item clock (every reading 1 ms after the
// last, so that every item takes 1 ms and a rank's phase of 20 items ends
// at 21 ms, its last reading), every file phase of both iterations has
// its latency row (40 items of exactly 1 ms), its series (5 ms intervals
// of 4, 5, 5, 5 and 1 items per rank, the 1 ms tail merged into the
// interval before it, summing to the 40 items done), and
// its per-rank (20 items each, done at 21 ms) and per-host rows.
func TestDistTables(t *testing.T) {
	j := runJob(t, 2, "-a DUMMY -n 20 -F -i 2 --interval 5ms -d md", true, nil)
	noErrors(t, j)
	lat, ser := table(t, j.res, latencyTable), table(t, j.res, seriesTable)
	ranks, hosts := table(t, j.res, ranksTable), table(t, j.res, hostsTable)
	for _, tb := range []*report.Table{ser, ranks, hosts} {
		if !tb.Detail() {
			t.Errorf("%s: not a Detail table", tb.Name)
		}
	}
	for iter := range 2 {
		for _, ph := range filePhases {
			it := fmt.Sprint(iter)
			name := ph + " " + it
			if rs := rowsOf(lat, ph, it); len(rs) != 1 || !slices.Equal(rs[0].Metrics, []float64{40, 0.001, 0.001, 0.001, 0.001}) {
				t.Errorf("%s: latency rows %v, want 40 items of 1 ms", name, rs)
			}
			rs := rowsOf(ser, ph, it)
			wantEnd := []float64{0.005, 0.010, 0.015, 0.021}
			wantRate := []float64{1600, 2000, 2000, 2000}
			items, prev := 0.0, 0.0
			for i, r := range rs {
				if i < len(wantEnd) && (!near(r.Metrics[0], wantEnd[i]) || !near(r.Metrics[1], wantRate[i])) {
					t.Errorf("%s: series row %d = %v, want elapsed %g, rate %g", name, i, r.Metrics, wantEnd[i], wantRate[i])
				}
				items += r.Metrics[1] * (r.Metrics[0] - prev)
				prev = r.Metrics[0]
			}
			if len(rs) != len(wantEnd) || !near(items, 40) {
				t.Errorf("%s: %d series rows summing to %g items, want %d summing to 40", name, len(rs), items, len(wantEnd))
			}
			rr := rowsOf(ranks, ph, it)
			if len(rr) != 2 {
				t.Fatalf("%s: %d rank rows, want 2", name, len(rr))
			}
			for k, r := range rr {
				if r.Labels[2] != fmt.Sprint(k) || r.Labels[3] != "testhost" || !near(r.Metrics[0], 20) || !near(r.Metrics[1], 0.021) || !near(r.Metrics[2], 20/0.021) {
					t.Errorf("%s: rank row %d = %v %v, want rank %d on testhost, 20 items done at 21 ms", name, k, r.Labels, r.Metrics, k)
				}
			}
			hr := rowsOf(hosts, ph, it)
			if len(hr) != 1 || hr[0].Labels[2] != "testhost" || !slices.Equal(hr[0].Metrics[:2], []float64{2, 40}) || !near(hr[0].Metrics[3], 0.021) {
				t.Errorf("%s: host rows %v, want testhost's 2 ranks, 40 items, last done at 21 ms", name, hr)
			}
		}
	}
	// The tree of -F without -u is rank 0's alone: one directory.
	if rs := rowsOf(lat, report.MdtestTreeCreate, "0"); len(rs) != 1 || rs[0].Metrics[0] != 1 {
		t.Errorf("tree creation latency rows %v, want 1 directory", rs)
	}
	for _, p := range j.res.Params {
		if p.Name == "interval (--interval)" && p.Value != "5ms" {
			t.Errorf("Params: %s = %q, want 5ms", p.Name, p.Value)
		}
	}
}

// TestDistOneRank: with one rank there are no per-rank and per-host
// tables; without --interval and --until-steady the Params do not name
// them.
func TestDistOneRank(t *testing.T) {
	j := runJob(t, 1, "-a DUMMY -n 5 -F -d md", true, nil)
	noErrors(t, j)
	table(t, j.res, latencyTable)
	table(t, j.res, seriesTable)
	for _, tb := range j.res.Tables {
		if tb.Name == ranksTable || tb.Name == hostsTable {
			t.Errorf("one rank has a %q table", tb.Name)
		}
	}
	for _, p := range j.res.Params {
		if strings.Contains(p.Name, "--interval") || strings.Contains(p.Name, "--until-steady") {
			t.Errorf("Params name %s without the flag", p.Name)
		}
	}
}

// TestDistLatencyCost: on the real clock, DUMMY's --dummy.delay-create
// of 3 ms is in every creation's latency, and not in the removals'.
func TestDistLatencyCost(t *testing.T) {
	j := runJob(t, 2, "-a DUMMY -n 4 -F -C -r --dummy.delay-create 3000 -d md", false, nil)
	noErrors(t, j)
	lat := table(t, j.res, latencyTable)
	c, r := rowsOf(lat, report.MdtestFileCreate, "0"), rowsOf(lat, report.MdtestFileRemove, "0")
	if len(c) != 1 || len(r) != 1 {
		t.Fatalf("latency rows: create %v, removal %v", c, r)
	}
	// p50, p90, p99, max: the histogram's buckets are within 1.6%.
	for i, v := range c[0].Metrics[1:] {
		if v < 0.003*0.98 || v > 1 {
			t.Errorf("creation latency %d = %g s, want >= 3 ms", i, v)
		}
	}
	if c[0].Metrics[0] != 8 || r[0].Metrics[0] != 8 || r[0].Metrics[1] >= 0.003 {
		t.Errorf("create %v, removal %v: want 8 items each, removals' p50 under 3 ms", c[0].Metrics, r[0].Metrics)
	}
}

// TestUntilSteady: --until-steady ends each rank's creation phase once its
// rate is steady, and the run goes on as a stonewalled one: every later
// phase works on exactly the items created, nothing fails, nothing is left
// behind, and the archive says it stopped early. On the fake clock each
// item takes 1 ms: the 5 ms intervals hold 4, 5, 5 items, and the last 10
// ms (5, 5) are steady at the 15th item.
func TestUntilSteady(t *testing.T) {
	for _, tc := range []struct {
		flag, create string
		phases       []string
	}{
		{"-F", report.MdtestFileCreate, filePhases},
		{"-D", report.MdtestDirCreate, []string{report.MdtestDirCreate, report.MdtestDirStat, report.MdtestDirRead,
			report.MdtestDirRename, report.MdtestDirRemove}},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			dir := t.TempDir()
			j := runJob(t, 2, "-a POSIX -n 200 -u -i 2 --interval 5ms --until-steady=10ms,1% -d "+dir+" "+tc.flag, true, nil)
			noErrors(t, j)
			ranks := table(t, j.res, ranksTable)
			for iter := range 2 {
				for _, ph := range tc.phases {
					rs := rowsOf(ranks, ph, fmt.Sprint(iter))
					if len(rs) != 2 {
						t.Errorf("%s %d: %d rank rows, want 2", ph, iter, len(rs))
					}
					for _, r := range rs {
						if r.Metrics[0] != 15 {
							t.Errorf("%s %d, rank %s: %g items, want the 15 created", ph, iter, r.Labels[2], r.Metrics[0])
						}
					}
				}
			}
			ser := table(t, j.res, seriesTable)
			for iter := range 2 {
				want := fmt.Sprintf("%s, iteration %d: stopped early by --until-steady=10ms,1%% on 2 of 2 ranks", tc.create, iter)
				if !slices.ContainsFunc(ser.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
					t.Errorf("series notes %q lack %q", ser.Notes, want)
				}
			}
			want := fmt.Sprintf("--until-steady=10ms,1%% stopped early: %[1]s, iteration 0, at 15 of 200 items per rank; %[1]s, iteration 1, at 15 of 200 items per rank", tc.create)
			if got := j.res.Run.Env[envUntilSteady]; got != want {
				t.Errorf("Run.Env[%q] = %q, want %q", envUntilSteady, got, want)
			}
			if w := tc.create + ": --until-steady=10ms,1%: a rank's creation rate was steady: every rank went on to 15 items of 200"; !slices.Contains(j.warn, w) {
				t.Errorf("warnings %q lack %q", j.warn, w)
			}
			for _, p := range []report.Param{{Name: "interval (--interval)", Value: "5ms"}, {Name: "until steady (--until-steady)", Value: "10ms,1%"}} {
				if !slices.Contains(j.res.Params, p) {
					t.Errorf("Params lack %v", p)
				}
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestUntilSteadyNever: a rate that never settles within the tolerance
// runs the creation phase to its end, and the note says so.
func TestUntilSteadyNever(t *testing.T) {
	// 2 ms items in 5 ms intervals: 2, 2, 3, 2, 3, 2, ... items; no three
	// in a row within 1% of their mean.
	j := runJobTick(t, 2, "-a DUMMY -n 30 -F -C --interval 5ms --until-steady=15ms,1% -d md", true, nil, 2*time.Millisecond)
	noErrors(t, j)
	rs := rowsOf(table(t, j.res, ranksTable), report.MdtestFileCreate)
	if len(rs) != 2 {
		t.Errorf("%d rank rows of File creation, want 2", len(rs))
	}
	for _, r := range rs {
		if r.Metrics[0] != 30 {
			t.Errorf("rank %s created %g items, want all 30", r.Labels[2], r.Metrics[0])
		}
	}
	ser := table(t, j.res, seriesTable)
	if len(ser.Notes) != 1 || !strings.Contains(ser.Notes[0], "ran to its end") {
		t.Errorf("series notes %q, want one saying the phase ran to its end", ser.Notes)
	}
	if got := j.res.Run.Env[envUntilSteady]; !strings.Contains(got, "every creation phase ran to its end") {
		t.Errorf("Run.Env[%q] = %q", envUntilSteady, got)
	}
}
