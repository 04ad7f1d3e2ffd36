package imb

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

const us = 1e-6

// near reports whether a and b agree to 1e-9 relative.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// fixedOptions runs every size with exactly n repetitions.
func fixedOptions(n int, benches ...string) Options {
	o := NewOptions()
	o.IterPolicy = PolicyOff
	o.MsgsPerSample = n
	o.Benchmarks = benches
	o.MinLog, o.MaxLog = 0, 3
	return o
}

// TestAggregation: t_min, t_max and t_avg are the minimum, maximum and
// mean of the per-rank means; each rank's mean is kept as a sample; the
// repetition count is the one run.
func TestAggregation(t *testing.T) {
	w := newFakeWorld(3)
	w.cost = func(rank int, op string, _ int) float64 {
		if op == "allreduce" {
			return float64(rank+1) * us // rank r measures (r+1) µs
		}
		return 0
	}
	res := okJob(t, w, fixedOptions(7, "allreduce"), false)
	tb := table(t, res, "Allreduce np=3")
	for i, row := range tb.Rows {
		if got := metric(t, tb, i, "#repetitions"); got != 7 {
			t.Errorf("row %s: #repetitions = %v, want 7", row.Labels[0], got)
		}
		for _, c := range []struct {
			col  string
			want float64
		}{{"t_min", 1 * us}, {"t_max", 3 * us}, {"t_avg", 2 * us}} {
			if got := metric(t, tb, i, c.col); !near(got, c.want) {
				t.Errorf("row %s: %s = %g, want %g", row.Labels[0], c.col, got, c.want)
			}
		}
		samples := row.Samples["rank"]
		if len(samples) != 3 || !near(samples[0], 1*us) || !near(samples[2], 3*us) {
			t.Errorf("row %s: samples = %v, want 1, 2, 3 µs", row.Labels[0], samples)
		}
	}
	if got, want := rowLabels(tb), []string{"0", "4", "8"}; !slices.Equal(got, want) {
		t.Errorf("Allreduce sizes = %q, want %q (float32: 1 and 2 round up to 4)", got, want)
	}
}

func rowLabels(tb *report.Table) []string {
	var l []string
	for _, r := range tb.Rows {
		l = append(l, r.Labels[0])
	}
	return l
}

// TestPointToPointTimesAndBandwidth: PingPong halves the round trip, its t
// is the slowest rank's, and Mbytes/sec is scale × bytes / t_max[µs] with
// scale 1 (PingPong, PingPing), 2 (Sendrecv) and 4 (Exchange).
func TestPointToPointTimesAndBandwidth(t *testing.T) {
	w := newFakeWorld(2)
	w.cost = func(rank int, op string, _ int) float64 {
		switch op {
		case "send", "recv":
			return float64(rank+1) * us // round trip: 2 µs on rank 0, 4 µs on rank 1
		case "sendrecv":
			return float64(rank+1) * us
		}
		return 0
	}
	o := fixedOptions(5, "PingPong", "PingPing", "Sendrecv", "Exchange")
	o.MinLog, o.MaxLog = 0, 10
	res := okJob(t, w, o, false)
	last := func(name string) (*report.Table, int) {
		tb := table(t, res, name)
		i := len(tb.Rows) - 1
		if tb.Rows[i].Labels[0] != "1024" {
			t.Fatalf("%s: last size %s, want 1024", name, tb.Rows[i].Labels[0])
		}
		return tb, i
	}
	for _, c := range []struct {
		table    string
		tcol     string
		wantT    float64 // µs
		wantMBps float64
	}{
		{"PingPong np=2", "t", 2, 1024.0 / 2},
		{"PingPing np=2", "t", 2, 1024.0 / 2},
		{"Sendrecv np=2", "t_max", 2, 2 * 1024.0 / 2},
		{"Exchange np=2", "t_max", 4, 4 * 1024.0 / 4}, // two sendrecvs per repetition
	} {
		tb, i := last(c.table)
		if got := metric(t, tb, i, c.tcol); !near(got, c.wantT*us) {
			t.Errorf("%s: %s = %g, want %g µs", c.table, c.tcol, got, c.wantT)
		}
		if got := metric(t, tb, i, "Mbytes/sec"); !near(got, c.wantMBps) {
			t.Errorf("%s: Mbytes/sec = %g, want %g", c.table, got, c.wantMBps)
		}
		if got := metric(t, tb, 0, "Mbytes/sec"); got != 0 {
			t.Errorf("%s: Mbytes/sec at 0 bytes = %g, want 0", c.table, got)
		}
	}
	tb := table(t, res, "PingPong np=2")
	if s := tb.Rows[0].Samples["rank"]; len(s) != 2 || !near(s[0], 1*us) || !near(s[1], 2*us) {
		t.Errorf("PingPong samples = %v, want halved round trips 1 and 2 µs", s)
	}
}

// TestDynamicSchedule: with the dynamic policy the count is
// min(start, 1 + Time/t) for the slowest rank's time t, and never grows
// with the size.
func TestDynamicSchedule(t *testing.T) {
	w := newFakeWorld(2)
	w.cost = func(rank int, op string, n int) float64 {
		if op != "allgather" {
			return 0
		}
		slow := 1e-3 // rank 1 is slower: its time decides
		if rank == 0 {
			slow = 0
		}
		if n == 8 {
			return 9e-3 + slow // 10 ms at 8 bytes: 1 + 50.5/10 → 6 repetitions
		}
		return slow // 1 ms: 1 + 50.5/1 → 51 repetitions
	}
	o := NewOptions()
	o.Benchmarks = []string{"Allgather"}
	o.MinLog, o.MaxLog = 0, 5
	o.Time = 50500 * time.Microsecond
	res := okJob(t, w, o, false)
	tb := table(t, res, "Allgather np=2")
	var got []float64
	for i := range tb.Rows {
		got = append(got, metric(t, tb, i, "#repetitions"))
	}
	want := []float64{51, 51, 51, 51, 6, 6, 6} // 0 1 2 4 8 16 32: never more after 8
	if !slices.Equal(got, want) {
		t.Errorf("#repetitions = %v, want %v", got, want)
	}
}

// TestDynamicScheduleMsglen: for a -msglen list in any order, a size gets
// no more repetitions than any smaller size and no fewer than any larger
// one, as IMB's numiters rule.
func TestDynamicScheduleMsglen(t *testing.T) {
	w := newFakeWorld(2)
	w.cost = func(_ int, op string, n int) float64 {
		if op != "bcast" {
			return 0
		}
		if n == 1024 {
			return 10e-3
		}
		return 1e-3
	}
	o := NewOptions()
	o.Benchmarks = []string{"Bcast"}
	o.MsgLen = []int{1024, 8, 65536}
	o.Time = 50500 * time.Microsecond
	res := okJob(t, w, o, false)
	tb := table(t, res, "Bcast np=2")
	if got, want := rowLabels(tb), []string{"1024", "8", "65536"}; !slices.Equal(got, want) {
		t.Fatalf("sizes = %q, want the file's order %q", got, want)
	}
	var got []float64
	for i := range tb.Rows {
		got = append(got, metric(t, tb, i, "#repetitions"))
	}
	if want := []float64{6, 51, 6}; !slices.Equal(got, want) {
		t.Errorf("#repetitions = %v, want %v", got, want)
	}
}

// TestStartingCount: before the time cap, a size runs
// min(N, max(1, VOL/size)) repetitions; size 0 and Barrier run N.
func TestStartingCount(t *testing.T) {
	o := NewOptions()
	s := newSchedule(&o, nil)
	for _, c := range []struct {
		size int
		sync bool
		want int
	}{
		{0, false, 1000}, {1, false, 1000}, {65536, false, 640}, {1 << 20, false, 40},
		{4 << 20, false, 10}, {1 << 30, false, 1}, {4 << 20, true, 1000},
	} {
		if got := s.selected(c.size, c.sync); got != c.want {
			t.Errorf("selected(%d, sync %v) = %d, want %d", c.size, c.sync, got, c.want)
		}
	}
	o.IterPolicy = PolicyOff
	if got := s.selected(4<<20, false); got != 1000 {
		t.Errorf("policy off: selected = %d, want 1000", got)
	}
}

// TestProbeReps: the second probe runs about a second's worth.
func TestProbeReps(t *testing.T) {
	for _, c := range []struct {
		sel  int
		t1   float64
		want int
	}{
		{1000, 1e-6, 1000}, {10, 1e-6, 10}, {1000, 0.002, 500}, {1000, 0.3, 3}, {1000, 2, 1}, {1000, 0.001, 1000},
	} {
		if got := probeReps(c.sel, c.t1); got != c.want {
			t.Errorf("probeReps(%d, %g) = %d, want %d", c.sel, c.t1, got, c.want)
		}
	}
}

// TestWarmupReps: a tenth, at least min(10, n).
func TestWarmupReps(t *testing.T) {
	for n, want := range map[int]int{1: 1, 5: 5, 10: 10, 50: 10, 640: 64, 1000: 100} {
		if got := warmupReps(n); got != want {
			t.Errorf("warmupReps(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestSettledWarmup: IMB's warm-up, lengthened to last settleTime when the
// repetition time is known.
func TestSettledWarmup(t *testing.T) {
	for _, c := range []struct {
		n    int
		t    float64
		want int
	}{
		{1000, 0, 100},          // unknown time: IMB's
		{1000, 1e-3, 100},       // 100 ms already
		{1000, 0.5e-6, 10001},   // 50 µs → 5 ms
		{40, 100e-6, 51},        // 1 ms → 5 ms
		{1000, 1e-12, 10000000}, // capped
	} {
		if got := settledWarmup(c.n, c.t); got != c.want {
			t.Errorf("settledWarmup(%d, %g) = %d, want %d", c.n, c.t, got, c.want)
		}
	}
}

// TestCheckClean: with -check every benchmark's results verify on 1 to 5
// ranks, at odd and even sizes, with and without sub-communicators and root
// shifting.
func TestCheckClean(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for _, group := range []bool{false, true} {
			w := newFakeWorld(n)
			o := fixedOptions(3)
			o.Check = true
			o.MsgLen = []int{0, 1, 3, 8, 1000}
			o.RootShift = group
			o.Root = n - 1
			res := okJob(t, w, o, group)
			for _, tb := range res.Tables {
				for i := range tb.Rows {
					if strings.HasPrefix(tb.Name, "Barrier") {
						continue
					}
					if d := metric(t, &tb, i, "defects"); d != 0 {
						t.Errorf("n=%d group=%v %s row %d: %v defects", n, group, tb.Name, i, d)
					}
				}
			}
		}
	}
}

// TestCheckDetectsCorruption: a transport that flips a byte of a result is
// caught, counted, and fails the run on every rank.
func TestCheckDetectsCorruption(t *testing.T) {
	for _, c := range []struct {
		bench, op string
		rank      int // whose result is corrupted
	}{
		{"Allreduce", "allreduce", 1}, {"Bcast", "bcast", 0}, {"PingPong", "recv", 1}, {"Alltoall", "alltoall", 1},
		{"Exchange", "sendrecv", 1}, {"Gather", "gather", 2}, {"Scatter", "scatter", 1}, {"Reduce", "reduce", 2},
	} {
		t.Run(c.bench, func(t *testing.T) {
			w := newFakeWorld(3)
			w.corrupt = func(rank int, op string, buf []byte) {
				if rank == c.rank && op == c.op && len(buf) >= 8 {
					buf[5] ^= 0x40
				}
			}
			o := fixedOptions(4, c.bench)
			o.Check = true
			o.Root = 2 // the root of Bcast, Gather, Scatter and Reduce
			out := runJob(t, w, o, false)
			for r, err := range out.errs {
				if !errors.Is(err, ErrCheck) {
					t.Errorf("rank %d: error %v, want ErrCheck", r, err)
				}
			}
			if out.res == nil {
				t.Fatal("no result with the check failure")
			}
			tb := &out.res.Tables[0]
			last := len(tb.Rows) - 1
			if d := metric(t, tb, last, "defects"); d != 4 {
				t.Errorf("%s at %s bytes: %v defects, want 4 (every repetition, one rank)", tb.Name, tb.Rows[last].Labels[0], d)
			}
			if d := metric(t, tb, 0, "defects"); d != 0 {
				t.Errorf("%s at 0 bytes: %v defects, want 0", tb.Name, d)
			}
		})
	}
}

// TestIdleRanks: with sub-communicators, collectives run at npmin, doubling,
// up to the job size; ranks outside the group make no call of the
// benchmark, and the table's samples hold only the active ranks.
func TestIdleRanks(t *testing.T) {
	w := newFakeWorld(5)
	o := fixedOptions(3, "PingPong", "Allreduce", "Sendrecv")
	res := okJob(t, w, o, true)
	var names []string
	for _, tb := range res.Tables {
		names = append(names, tb.Name)
	}
	want := []string{"PingPong np=2", "Allreduce np=2", "Allreduce np=4", "Allreduce np=5",
		"Sendrecv np=2", "Sendrecv np=4", "Sendrecv np=5"}
	if !slices.Equal(names, want) {
		t.Fatalf("tables %q, want %q", names, want)
	}
	for _, tb := range res.Tables {
		np := map[string]int{"np=2": 2, "np=4": 4, "np=5": 5}[tb.Name[strings.LastIndex(tb.Name, " ")+1:]]
		if got := len(tb.Rows[0].Samples["rank"]); got != np {
			t.Errorf("%s: %d samples, want %d", tb.Name, got, np)
		}
	}
	for r := range 5 {
		got := w.calls[r]["allreduce/2"]
		if (r < 2) != (got > 0) {
			t.Errorf("rank %d made %d Allreduce calls on 2 processes", r, got)
		}
		if got := w.calls[r]["allreduce/4"]; (r < 4) != (got > 0) {
			t.Errorf("rank %d made %d Allreduce calls on 4 processes", r, got)
		}
	}
	var b bytes.Buffer
	if err := report.WriteIMB(&b, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "# Benchmarking Allreduce \n# #processes = 2 \n# ( 3 additional processes waiting in MPI_Barrier)\n") {
		t.Errorf("IMB output lacks the idle line:\n%s", b.String())
	}
}

// TestNoGroups: without sub-communicators, collectives run at the job size
// only and the result says what was skipped; point-to-point benchmarks
// still run on fewer processes.
func TestNoGroups(t *testing.T) {
	w := newFakeWorld(3)
	o := fixedOptions(2, "Barrier", "Sendrecv", "PingPong")
	o.Check = true
	res := okJob(t, w, o, false)
	var names []string
	for _, tb := range res.Tables {
		names = append(names, tb.Name)
	}
	if want := []string{"Barrier np=3", "Sendrecv np=2", "Sendrecv np=3", "PingPong np=2"}; !slices.Equal(names, want) {
		t.Errorf("tables %q, want %q", names, want)
	}
	skipped := false
	for _, p := range res.Params {
		if p.Name == "skipped" && strings.Contains(p.Value, "Barrier at 2 processes") {
			skipped = true
		}
	}
	if !skipped {
		t.Errorf("params %v do not say Barrier at 2 processes was skipped", res.Params)
	}
}

// TestOneRank: PingPong needs two processes (IMB calls it invalid on one);
// everything else runs.
func TestOneRank(t *testing.T) {
	res := okJob(t, newFakeWorld(1), fixedOptions(2, "PingPong", "Sendrecv", "Allreduce"), false)
	var names []string
	for _, tb := range res.Tables {
		names = append(names, tb.Name)
	}
	if want := []string{"Sendrecv np=1", "Allreduce np=1"}; !slices.Equal(names, want) {
		t.Errorf("tables %q, want %q", names, want)
	}
}

// TestRunRejects: invalid options and a root outside the job fail before
// anything runs, naming the flag.
func TestRunRejects(t *testing.T) {
	o := fixedOptions(1, "Bcast")
	o.Root = 3
	out := runJob(t, newFakeWorld(2), o, false)
	for r, err := range out.errs {
		if err == nil || !strings.Contains(err.Error(), "-root 3") {
			t.Errorf("rank %d: error %v, want one naming -root 3", r, err)
		}
	}
	o = fixedOptions(0)
	out = runJob(t, newFakeWorld(1), o, false)
	if err := out.errs[0]; err == nil || !strings.Contains(err.Error(), "-iter") {
		t.Errorf("error %v, want one naming -iter", err)
	}
}

// TestResultWriters: the result renders as JSON that reads back the same,
// and as CSV with the units in the headings.
func TestResultWriters(t *testing.T) {
	w := newFakeWorld(2)
	w.cost = func(rank int, _ string, n int) float64 { return float64(rank+1)*us + float64(n)*1e-9 }
	o := fixedOptions(2, "PingPong", "Allreduce", "Barrier")
	o.Env = Env{Transport: "shm", CPUs: 1, Run: report.Run{Hostnames: []string{"node01"}, Command: []string{"hpcbench", "coll"}}}
	res := okJob(t, w, o, false)
	if got := res.Run.Env["oversubscribed"]; got != "2 ranks / 1 CPUs" {
		t.Errorf("oversubscribed = %q, want %q", got, "2 ranks / 1 CPUs")
	}
	var js bytes.Buffer
	if err := report.WriteJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	back, err := report.ReadJSON(&js)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Tables) != len(res.Tables) {
		t.Fatalf("JSON round trip: %d tables, want %d", len(back.Tables), len(res.Tables))
	}
	for i := range back.Tables {
		a, b := back.Tables[i], res.Tables[i]
		if a.Name != b.Name || len(a.Rows) != len(b.Rows) {
			t.Fatalf("JSON round trip: table %q/%d rows, want %q/%d", a.Name, len(a.Rows), b.Name, len(b.Rows))
		}
		for j := range a.Rows {
			if !slices.Equal(a.Rows[j].Metrics, b.Rows[j].Metrics) || !slices.Equal(a.Rows[j].Samples["rank"], b.Rows[j].Samples["rank"]) {
				t.Errorf("JSON round trip: %s row %d differs", a.Name, j)
			}
		}
	}
	var text bytes.Buffer
	if err := report.WriteText(&text, res); err != nil {
		t.Errorf("WriteText: %v", err)
	}
	var csv bytes.Buffer
	if err := report.WriteCSV(&csv, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"table,#bytes,#repetitions,t(s),Mbytes/sec(MB/s)\n",
		"table,#bytes,#repetitions,t_min(s),t_max(s),t_avg(s)\n",
		"table,#repetitions,t_min(s),t_max(s),t_avg(s)\n",
		"PingPong np=2,8,2,",
	} {
		if !strings.Contains(csv.String(), want) {
			t.Errorf("CSV lacks %q:\n%s", want, csv.String())
		}
	}
}

// TestRendezvous: the point-to-point benchmarks and the groups built from
// point-to-point messages never rely on a send being buffered.
func TestRendezvous(t *testing.T) {
	w := newFakeWorld(3)
	w.rendezvous = true
	o := NewOptions()
	o.Benchmarks = []string{"PingPong", "PingPing", "Sendrecv", "Exchange", "Barrier"}
	o.MsgLen = []int{0, 8, 4096}
	o.MsgsPerSample = 20
	o.Time = 10 * time.Millisecond
	o.Check = true
	res := okJob(t, w, o, false)
	if got := len(res.Tables); got != 7 {
		t.Errorf("%d tables, want 7", got)
	}
}

// TestWarmupCountsBarriers: the warm-up is lengthened to last settleTime
// by the wall-clock time of a repetition, the -sync barrier included, not
// by the collective's own time: a 0-byte Allreduce that takes 1 ns next to
// a 100 µs barrier gets IMB's 100 warm-up repetitions (100 × 100 µs is
// already 10 ms), not the 5 million that 5 ms of 1 ns calls would need.
func TestWarmupCountsBarriers(t *testing.T) {
	w := newFakeWorld(2)
	w.cost = func(_ int, op string, _ int) float64 {
		switch op {
		case "allreduce":
			return 1e-9
		case "barrier":
			return 100e-6
		}
		return 0
	}
	o := NewOptions()
	o.Benchmarks = []string{"Allreduce"}
	o.MinLog, o.MaxLog = 0, 1 // size 0 alone: a reduction moves whole float32s
	res := okJob(t, w, o, false)
	tb := table(t, res, "Allreduce np=2")
	reps := 0
	for i := range tb.Rows {
		reps += int(metric(t, tb, i, "#repetitions"))
	}
	// Per size: probes of 1 and of up to the count, IMB's warm-up of a
	// tenth, the measured run.
	for r := range 2 {
		if got, most := w.calls[r]["allreduce/2"], 3*reps; got > most {
			t.Errorf("rank %d ran %d Allreduces for %d measured repetitions; want at most %d (a warm-up sized by the barrier's time)", r, got, reps, most)
		}
	}
}
