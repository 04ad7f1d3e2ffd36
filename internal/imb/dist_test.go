package imb

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

// within reports whether got is within frac of want.
func within(got, want, frac float64) bool {
	return math.Abs(got-want) <= frac*math.Abs(want)
}

// distRows returns the rows of the distribution table name whose labels
// start with benchmark and size.
func distRows(t *testing.T, res *report.Result, name, bench, size string) []report.Row {
	t.Helper()
	var rows []report.Row
	for _, r := range table(t, res, name).Rows {
		if r.Labels[0] == bench && r.Labels[1] == size {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows for %s #bytes %s", name, bench, size)
	}
	return rows
}

// TestDistCollective: the latency table holds the percentiles of every
// repetition of the measured run over every rank (not the warm-up's), the
// series the job's repetitions per second in each interval, and the ranks
// and hosts tables each rank's repetitions and time. The fake Allreduce
// takes 1, 2, ... 100 µs in turn on both ranks, so any 100 calls in a row
// take each of those times once.
func TestDistCollective(t *testing.T) {
	const n = 100
	w := newFakeWorld(2).withDist(t)
	calls := make([]int, 2) // each written by its rank's goroutine only
	w.cost = func(rank int, op string, _ int) float64 {
		if op != "allreduce" {
			return 0
		}
		calls[rank]++
		return float64(calls[rank]%n+1) * us
	}
	o := fixedOptions(n, "Allreduce")
	o.MinLog, o.MaxLog = 2, 3 // sizes 0, 4, 8
	o.Interval = time.Millisecond
	o.Env.RankHosts = []string{"nodeA", "nodeB"}
	res := okJob(t, w, o, false)
	if got := len(res.Tables); got != 5 {
		t.Fatalf("%d tables, want Allreduce np=2, latency, series, ranks, hosts", got)
	}
	lat := table(t, res, distLatency)
	if len(lat.Rows) != 3 || len(lat.Notes) != 0 {
		t.Errorf("latency: %d rows, notes %q; want 3 sizes and no note (collectives time every repetition)", len(lat.Rows), lat.Notes)
	}
	for si, size := range []string{"0", "4", "8"} {
		row := distRows(t, res, distLatency, "Allreduce np=2", size)[0]
		m := row.Metrics // ops, p50, p90, p99, max
		if m[0] != 2*n {
			t.Errorf("#bytes %s: ops %v, want %d (both ranks' repetitions)", size, m[0], 2*n)
		}
		for i, want := range []float64{50, 90, 99, 100} {
			if !within(m[i+1], want*us, 0.025) {
				t.Errorf("#bytes %s: %s = %g, want %g µs", size, lat.Columns[i+3].Name, m[i+1], want)
			}
		}
		// Series: the run takes 5.05 ms on each rank, so 5 intervals of
		// 1 ms, the last with the 0.05 ms tail and ending at 5.05 ms; the
		// rates times the intervals add up to the 100 repetitions.
		ser := distRows(t, res, distSeries, "Allreduce np=2", size)
		if len(ser) != 5 {
			t.Fatalf("#bytes %s: %d intervals, want 5", size, len(ser))
		}
		total, from := 0.0, 0.0
		for i, r := range ser {
			to, rate := r.Metrics[0], r.Metrics[1]
			if i < 4 && !within(to, float64(i+1)*1e-3, 1e-9) || i == 4 && !within(to, 5050*us, 1e-6) {
				t.Errorf("#bytes %s: interval %d ends at %g s", size, i, to)
			}
			total += rate * (to - from)
			from = to
		}
		if !within(total, n, 1e-6) {
			t.Errorf("#bytes %s: rates add up to %g repetitions, want %d", size, total, n)
		}
		// The first ms holds the repetitions that end before it: each
		// size's measured run follows its warm-up of 10 calls.
		first, end := 0, 0
		for call := si*(n+10) + 10 + 1; ; call++ {
			if end += call%n + 1; end >= 1000 {
				break
			}
			first++
		}
		if r := ser[0].Metrics[1]; !within(r, float64(first)/1e-3, 1e-9) {
			t.Errorf("#bytes %s: first interval's rate %g, want %d000/s", size, r, first)
		}
		ranks := distRows(t, res, distRanks, "Allreduce np=2", size)
		if len(ranks) != 2 {
			t.Fatalf("#bytes %s: %d ranks, want 2", size, len(ranks))
		}
		for r, row := range ranks {
			host := []string{"nodeA", "nodeB"}[r]
			if row.Labels[3] != host || row.Metrics[0] != n || !within(row.Metrics[1], 5050*us, 1e-6) || !within(row.Metrics[2], n/(5050*us), 1e-6) {
				t.Errorf("#bytes %s: rank %d: %q %v; want %s, %d repetitions in 5.05 ms", size, r, row.Labels, row.Metrics, host, n)
			}
		}
		if hosts := distRows(t, res, distHosts, "Allreduce np=2", size); len(hosts) != 2 || hosts[0].Metrics[1] != n {
			t.Errorf("#bytes %s: hosts %v, want nodeA and nodeB with %d repetitions each", size, hosts, n)
		}
	}
	if notes := table(t, res, distRanks).Notes; len(notes) != 0 {
		t.Errorf("ranks notes %q, want none: the ranks end together", notes)
	}
	if !slices.Contains(res.Params, report.Param{Name: "interval", Value: "1ms", Incidental: true}) {
		t.Errorf("params %v lack interval 1ms", res.Params)
	}
}

// TestDistSampled: the loops IMB times as a whole time the repetitions
// dist's sampling picks, each alone: the first 64 of a size, then one in
// 10 µs over their mean. Rank 0's round trip takes 3 µs (then one in 4 is
// timed), rank 1's 6 µs (one in 2); PingPong's latencies are halved as
// its t is, and t still comes from the loop's span.
func TestDistSampled(t *testing.T) {
	const n = 200
	w := newFakeWorld(2).withDist(t)
	w.cost = func(rank int, op string, _ int) float64 {
		if op == "send" || op == "recv" {
			return float64(rank+1) * 1.5 * us
		}
		return 0
	}
	o := fixedOptions(n, "PingPong")
	o.MinLog, o.MaxLog = 0, 1 // sizes 0, 1, 2
	res := okJob(t, w, o, false)
	pp := table(t, res, "PingPong np=2")
	if got := metric(t, pp, 1, "t"); !near(got, 3*us) {
		t.Errorf("t = %g, want 3 µs (rank 1's half round trip)", got)
	}
	lat := table(t, res, distLatency)
	for _, size := range []string{"0", "1", "2"} {
		m := distRows(t, res, distLatency, "PingPong np=2", size)[0].Metrics
		// Rank 0: 64 + about 136/4 timed of 1.5 µs; rank 1: 64 + about
		// 136/2 of 3 µs (dist jitters the skips around one in k).
		if math.Abs(m[0]-(98+132)) > 0.15*(34+68) {
			t.Errorf("#bytes %s: %v timed, want about 230", size, m[0])
		}
		for i, want := range []float64{3, 3, 3, 3} {
			if !within(m[i+1], want*us, 0.02) {
				t.Errorf("#bytes %s: %s = %g, want %g µs", size, lat.Columns[i+3].Name, m[i+1], want)
			}
		}
		// Every repetition counts in the series and the ranks' table.
		ser := distRows(t, res, distSeries, "PingPong np=2", size)
		if len(ser) != 1 || !within(ser[0].Metrics[0], n*6*us, 1e-6) || !within(ser[0].Metrics[1], n/(n*6*us), 1e-6) {
			t.Errorf("#bytes %s: series %v, want one interval to %g s at %g/s", size, ser, n*6*us, n/(n*6*us))
		}
		for r, row := range distRows(t, res, distRanks, "PingPong np=2", size) {
			if row.Metrics[0] != n || !within(row.Metrics[1], float64(n*(r+1))*3*us, 1e-6) {
				t.Errorf("#bytes %s: rank %d: %v, want %d repetitions in %g s", size, r, row.Metrics, n, float64(n*(r+1))*3*us)
			}
		}
	}
	// Rank 1 is twice as slow, by microseconds: below
	// report.StragglerMinLag, noise rather than news, so no line.
	if tb := table(t, res, distRanks); len(tb.Notes) != 0 || len(tb.Stragglers) != 0 {
		t.Errorf("ranks notes %q, stragglers %q; want none for microseconds", tb.Notes, tb.Stragglers)
	}
}

// TestDistOneRank: a one-rank job has the latency and series tables but
// no ranks or hosts table.
func TestDistOneRank(t *testing.T) {
	w := newFakeWorld(1).withDist(t)
	w.cost = func(_ int, op string, _ int) float64 {
		if op == "barrier" {
			return 20 * us
		}
		return 0
	}
	res := okJob(t, w, fixedOptions(10, "Barrier"), false)
	var names []string
	for _, tb := range res.Tables {
		names = append(names, tb.Name)
	}
	if want := []string{"Barrier np=1", distLatency, distSeries}; !slices.Equal(names, want) {
		t.Fatalf("tables %q, want %q", names, want)
	}
	m := distRows(t, res, distLatency, "Barrier np=1", "0")[0].Metrics
	if m[0] != 10 || !within(m[1], 20*us, 0.02) || !within(m[4], 20*us, 1e-4) {
		t.Errorf("latency %v, want 10 barriers of 20 µs", m)
	}
}
