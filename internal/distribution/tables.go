package distribution

import (
	"fmt"
	"math"

	"github.com/hpcbench/hpcbench/report"
)

// Latency returns j's latency percentiles as a row of
// report.LatencyTable.
func (j *Job) Latency(labels []string) report.Latency {
	return report.Latency{Labels: labels, Ops: float64(j.Lat.n),
		P50: j.Lat.Quantile(0.50), P90: j.Lat.Quantile(0.90), P99: j.Lat.Quantile(0.99), Max: j.Lat.Quantile(1)}
}

// TimeSeries returns j's series for report.SeriesTable.
func (j *Job) TimeSeries(labels []string) report.TimeSeries {
	return report.TimeSeries{Labels: labels, Interval: j.Interval.Seconds(), Amount: j.Series, End: j.End}
}

// RankSet returns j's per-rank figures for report.RankTables; hosts names
// every rank's host (run.Record.RankHosts).
func (j *Job) RankSet(labels []string, name string, hosts []string) report.RankSet {
	s := report.RankSet{Labels: labels, Name: name, Hosts: make([]string, len(j.Ranks)),
		Amount: make([]float64, len(j.Ranks)), Done: make([]float64, len(j.Ranks))}
	for i, r := range j.Ranks {
		s.Hosts[i] = "?"
		if i < len(hosts) {
			s.Hosts[i] = hosts[i]
		}
		s.Amount[i], s.Done[i] = r.Amount, r.Done
	}
	return s
}

// SteadyNote says whether and when --until-steady stopped the phase
// named name early, or "" when the test was off.
func (j *Job) SteadyNote(name string) string {
	if !j.Steady.On() {
		return ""
	}
	n, first, last := 0, math.Inf(1), math.Inf(-1)
	for _, r := range j.Ranks {
		if !math.IsNaN(r.SteadyAt) {
			n++
			first, last = min(first, r.SteadyAt), max(last, r.SteadyAt)
		}
	}
	if n == 0 {
		return fmt.Sprintf("%s: ran to its end; --until-steady=%s never saw every %v interval of a %v window within %g%% of their mean",
			name, j.Steady, j.Interval, j.Steady.Window, j.Steady.Tolerance*100)
	}
	return fmt.Sprintf("%s: stopped early by --until-steady=%s on %d of %d ranks, between %.3f s and %.3f s: every %v interval of the last %v within %g%% of their mean",
		name, j.Steady, n, len(j.Ranks), first, last, j.Interval, j.Steady.Window, j.Steady.Tolerance*100)
}
