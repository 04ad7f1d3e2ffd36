package ior

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

// distTable returns the table named name, failing the test without it.
func distTable(t *testing.T, r *report.Result, name string) *report.Table {
	t.Helper()
	for i := range r.Tables {
		if r.Tables[i].Name == name {
			return &r.Tables[i]
		}
	}
	t.Fatalf("no table %q", name)
	return nil
}

// cells returns a table's rows as column name → label or metric.
func cells(tab *report.Table) []map[string]any {
	var out []map[string]any
	for _, row := range tab.Rows {
		m := map[string]any{}
		li, mi := 0, 0
		for _, c := range tab.Columns {
			if c.Kind == report.KindLabel {
				m[c.Name] = row.Labels[li]
				li++
			} else {
				m[c.Name] = row.Metrics[mi]
				mi++
			}
		}
		out = append(out, m)
	}
	return out
}

// phaseKey names a row's phase by its labels.
func phaseKey(m map[string]any) string {
	return m["test"].(string) + " " + m["access"].(string) + " " + m["iter"].(string)
}

// seriesBytes sums a series table's bytes per phase: each interval's
// rate times its length (from the previous row's elapsed).
func seriesBytes(tab *report.Table) map[string]float64 {
	sum := map[string]float64{}
	last := map[string]float64{}
	for _, m := range cells(tab) {
		k := phaseKey(m)
		end := m["elapsed"].(float64)
		if bw := m["bw"].(float64); !math.IsNaN(bw) {
			sum[k] += bw * (1 << 20) * (end - last[k])
		}
		last[k] = end
	}
	return sum
}

// rankBytes returns the ranks table's bytes per phase, by rank.
func rankBytes(tab *report.Table) map[string][]float64 {
	out := map[string][]float64{}
	for _, m := range cells(tab) {
		out[phaseKey(m)] = append(out[phaseKey(m)], m["bytes"].(float64))
	}
	return out
}

// TestDistTables: a DUMMY backend that sleeps 2 ms per transfer on 2 ranks,
// 2 repetitions: a latency row per phase with every transfer counted and
// its percentiles at or above 2 ms, a series whose bytes add up to what
// the phase moved, and per-rank and per-host rows with each rank's bytes.
func TestDistTables(t *testing.T) {
	const delay = 2 * time.Millisecond
	j := runJob(t, 2, "-a DUMMY --dummy.delay-xfer=2000 -b 64k -t 4k -w -r -i 2 --interval 10ms -o f", false)
	noErrors(t, j)
	phases := []string{"0 write 0", "0 read 0", "0 write 1", "0 read 1"} // -W's check is untimed: no row
	lat := cells(distTable(t, j.res, LatencyTable))
	if len(lat) != len(phases) {
		t.Fatalf("latency rows %v, want one per phase %v", lat, phases)
	}
	for i, m := range lat {
		if phaseKey(m) != phases[i] {
			t.Errorf("latency row %d is %q, want %q", i, phaseKey(m), phases[i])
		}
		p50, p90, p99, mx := m["p50"].(float64), m["p90"].(float64), m["p99"].(float64), m["max"].(float64)
		if m["ops"] != 32.0 { // 16 transfers on each of 2 ranks
			t.Errorf("%s: %v ops, want 32", phases[i], m["ops"])
		}
		if p50 < delay.Seconds() || p50 > 10*delay.Seconds() || !(p50 <= p90 && p90 <= p99 && p99 <= mx) {
			t.Errorf("%s: p50 %g p90 %g p99 %g max %g s; want ordered, p50 in [2, 20] ms", phases[i], p50, p90, p99, mx)
		}
	}
	series := distTable(t, j.res, SeriesTable)
	if !series.Detail() || len(series.Rows) < 2*len(phases) {
		t.Errorf("series: detail %v, %d rows; want a detail table, a 32 ms phase in 10 ms intervals", series.Detail(), len(series.Rows))
	}
	for _, k := range phases {
		if got := seriesBytes(series)[k]; math.Abs(got-2*64<<10) > 1e-6*got {
			t.Errorf("%s: the series adds up to %g bytes, want %d", k, got, 2*64<<10)
		}
	}
	for k, v := range rankBytes(distTable(t, j.res, RanksTable)) {
		if !slices.Equal(v, []float64{64 << 10, 64 << 10}) {
			t.Errorf("%s: bytes per rank %v, want 64 KiB on each of 2", k, v)
		}
	}
	hosts := cells(distTable(t, j.res, HostsTable))
	if len(hosts) != len(phases) {
		t.Fatalf("hosts rows %v", hosts)
	}
	for _, m := range hosts {
		if m["host"] != "testhost" || m["ranks"] != 2.0 || m["bytes"] != float64(2*64<<10) {
			t.Errorf("hosts row %v, want testhost with 2 ranks and 128 KiB", m)
		}
	}
	if param(j.res, "interval") != "10ms" || param(j.res, "until-steady") != "" {
		t.Errorf("params interval %q, until-steady %q", param(j.res, "interval"), param(j.res, "until-steady"))
	}
}

// TestDistOneRank: one rank has no per-rank or per-host tables, and a run
// without --interval echoes no Param for it.
func TestDistOneRank(t *testing.T) {
	j := runJob(t, 1, "-a DUMMY -b 64k -t 4k -w -r -o f", true)
	noErrors(t, j)
	distTable(t, j.res, LatencyTable)
	distTable(t, j.res, SeriesTable)
	for _, tab := range j.res.Tables {
		if tab.Name == RanksTable || tab.Name == HostsTable {
			t.Errorf("one rank has table %q", tab.Name)
		}
	}
	for _, p := range j.res.Params {
		if p.Name == "interval" || p.Name == "until-steady" {
			t.Errorf("param %v without its flag", p)
		}
	}
}

// fakeTicks returns a per-transfer clock in nanoseconds that advances by
// step on every reading.
func fakeTicks(step time.Duration) func() int64 {
	var now int64
	return func() int64 {
		now += int64(step)
		return now
	}
}

// TestUntilSteady: at a steady speed (a fake clock, 1 ms per transfer on
// rank 0 and 2 ms on rank 1) the write of a 16 MiB block (4096
// transfers) stops once 4 intervals of 50 ms are within 50%, well before
// its end, as a -D deadline stops it: the stonewalling line, the summary's
// stonewall figures, and a read that reads only what every rank wrote.
func TestUntilSteady(t *testing.T) {
	j := runJobWith(t, 2, "-a DUMMY -b 16m -t 4k -w -r --interval 50ms --until-steady=200ms,50% -o f", true, nil,
		func(rank int, env *Env) { env.Ticks = fakeTicks(time.Duration(rank+1) * time.Millisecond) })
	noErrors(t, j)
	byPhase := rankBytes(distTable(t, j.res, RanksTable))
	w, r := byPhase["0 write 0"], byPhase["0 read 0"]
	if len(w) != 2 || len(r) != 2 {
		t.Fatalf("ranks table: %v", byPhase)
	}
	// Rank 0 is steady after ~200 transfers, rank 1 after ~100.
	if !(w[0] < 16<<20/10 && w[1] < w[0] && w[1] > 0) {
		t.Errorf("write bytes per rank %v: want both stopped early, rank 1 before rank 0", w)
	}
	if r[0] != w[1] || r[1] != w[1] {
		t.Errorf("read bytes per rank %v: want what every rank wrote, %g each", r, w[1])
	}
	series := distTable(t, j.res, SeriesTable)
	if len(series.Notes) != 2 || !strings.HasPrefix(series.Notes[0], "write, iteration 0, test 0: stopped early by --until-steady=200ms,50% on 2 of 2 ranks") {
		t.Errorf("series notes %q: want the write's and the read's early stop", series.Notes)
	}
	if param(j.res, "until-steady") != "200ms,50%" || param(j.res, "interval") != "50ms" {
		t.Errorf("params until-steady %q, interval %q", param(j.res, "until-steady"), param(j.res, "interval"))
	}
	wantLine := "stonewalling pairs accessed min: " + itoa(int64(w[1])/4096) + " max: " + itoa(int64(w[0])/4096) + " "
	if !slices.ContainsFunc(j.warn, func(s string) bool { return strings.HasPrefix(s, wantLine) }) {
		t.Errorf("warnings %q lack %q", j.warn, wantLine)
	}
	if !slices.ContainsFunc(j.warn, func(s string) bool {
		return strings.HasPrefix(s, "write, iteration 0, test 0: stopped early by --until-steady")
	}) {
		t.Errorf("warnings %q lack the steady note", j.warn)
	}
	sum := distTable(t, j.res, report.IORSummaryTable)
	if len(sum.Rows) != 2 || sum.Rows[0].Labels[0] != "write" || math.IsNaN(sum.Rows[0].Metrics[9]) {
		t.Errorf("summary %v: want the write's stonewall time", sum.Rows)
	}
	t.Logf("write bytes %v, read bytes %v, notes %q", w, r, series.Notes)
}

// TestDistRepeatedTransfers: the transfers -O minTimeDuration repeats and
// those -O stoneWallingWearOut adds after a -D deadline are recorded: the
// latency table counts every transfer the phase made.
func TestDistRepeatedTransfers(t *testing.T) {
	t.Run("minTimeDuration", func(t *testing.T) {
		j := runJob(t, 2, "-a DUMMY -b 64k -t 4k -w -O minTimeDuration=1 -o f", true)
		noErrors(t, j)
		lat := cells(distTable(t, j.res, LatencyTable))
		ranks := rankBytes(distTable(t, j.res, RanksTable))["0 write 0"]
		ops := lat[0]["ops"].(float64)
		if ops <= 32 || ops*4096 != ranks[0]+ranks[1] {
			t.Errorf("%g ops, ranks' bytes %v: want more than one pass (32), all counted", ops, ranks)
		}
	})
	t.Run("wearOut", func(t *testing.T) {
		// Rank 1's clock runs half as fast: it makes twice rank 0's
		// transfers by the deadline, and rank 0 then catches up.
		j := runJobWith(t, 2, "-a DUMMY -b 64m -t 4k -w -D 1 -O stoneWallingWearOut=1 -o f", true, nil,
			func(rank int, env *Env) {
				if rank == 1 {
					clock := env.Clock
					env.Clock = func() float64 { return 1000 + (clock()-1000)/2 }
				}
			})
		noErrors(t, j)
		ranks := rankBytes(distTable(t, j.res, RanksTable))["0 write 0"]
		ops := cells(distTable(t, j.res, LatencyTable))[0]["ops"].(float64)
		if len(ranks) != 2 || ranks[0] != ranks[1] || ranks[0] >= 64<<20 || ops*4096 != 2*ranks[0] {
			t.Errorf("bytes per rank %v, %g ops: want equal counts by wear-out, short of 64 MiB, all counted", ranks, ops)
		}
	})
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// param returns the value of r's Param name, "" without it.
func param(r *report.Result, name string) string {
	for _, p := range r.Params {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// TestStonewallMonotonic: on the wall clock, the timed loop tests the -D
// deadline on its own monotonic reading: a write of 2048 transfers of at
// least 1 ms each stops at 1 s, with IOR's stonewalling figures.
func TestStonewallMonotonic(t *testing.T) {
	j := runJob(t, 2, "-a DUMMY --dummy.delay-xfer=1000 -b 2g -t 1m -w -D 1 -o x", false)
	noErrors(t, j)
	w := rankBytes(distTable(t, j.res, RanksTable))["0 write 0"]
	if len(w) != 2 || !(w[0] > 0 && w[0] < 1<<30) || !(w[1] > 0 && w[1] < 1<<30) {
		t.Errorf("bytes per rank %v: want both stopped by the deadline, short of 1 GiB", w)
	}
	sum := distTable(t, j.res, report.IORSummaryTable)
	if st := sum.Rows[0].Metrics[9]; !(st >= 1 && st < 1.5) {
		t.Errorf("stonewall time %g s, want about 1 s", st)
	}
	if !slices.ContainsFunc(j.warn, func(s string) bool { return strings.HasPrefix(s, "stonewalling pairs accessed min: ") }) {
		t.Errorf("warnings %q lack the stonewalling line", j.warn)
	}
}

// TestDistSampled: transfers far shorter than dist.SampleBudget (DUMMY
// with no delay, on the real clock) are timed one in k after the first
// 64, yet every byte is in the series and the ranks table.
func TestDistSampled(t *testing.T) {
	j := runJob(t, 1, "-a DUMMY -b 4m -t 1k -w -o f", false) // 4096 transfers
	noErrors(t, j)
	lat := cells(distTable(t, j.res, LatencyTable))
	if len(lat) != 1 {
		t.Fatalf("latency rows %v", lat)
	}
	ops := lat[0]["ops"].(float64)
	if ops < 64 || ops >= 4096 {
		t.Errorf("%g transfers timed of 4096; want the first 64 and a sample of the rest", ops)
	}
	if got := seriesBytes(distTable(t, j.res, SeriesTable))["0 write 0"]; math.Abs(got-4<<20) > 1 {
		t.Errorf("series holds %g bytes, want %d", got, 4<<20)
	}
}

// TestProgressInPhase: a phase longer than an interval reports its bytes
// to the Phase hook as it goes, not only at its start and end.
func TestProgressInPhase(t *testing.T) {
	j := runJob(t, 1, "-a DUMMY --dummy.delay-xfer=1000 -b 400k -t 4k -w --interval 20ms -o f", false) // 100 transfers of >= 1 ms
	noErrors(t, j)
	var mid int
	for _, p := range j.phases {
		if strings.HasPrefix(p, "write 0 ") && !strings.HasPrefix(p, "write 0 0/") && p != "write 0 409600/409600" {
			mid++
		}
	}
	if mid < 2 {
		t.Errorf("phase reports %q; want some between the write's start and end", j.phases)
	}
}

// TestDistDoneIsTheRanksOwn: on the real clock, a rank's end of a phase
// in the ranks table is its own: rank 1 lingers 200 ms after its close
// (in its Phase hook, before the phase's reductions), and rank 0, which
// waits for it there, still ends when its own transfers did.
func TestDistDoneIsTheRanksOwn(t *testing.T) {
	j := runJobWith(t, 2, "-a DUMMY -b 64k -t 4k -w -o f", false, nil, func(rank int, env *Env) {
		if rank == 1 {
			env.Phase = func(_ string, _ int, done, total int64) {
				if total > 0 && done == total {
					time.Sleep(200 * time.Millisecond)
				}
			}
		}
	})
	noErrors(t, j)
	for _, m := range cells(distTable(t, j.res, RanksTable)) {
		if d := m["done"].(float64); d > 0.1 {
			t.Errorf("rank %s done at %.3f s; want its own end, well before the other rank's 200 ms linger", m["rank"], d)
		}
	}
}
