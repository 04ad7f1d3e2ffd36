package wireup

import (
	"maps"
	"math"
	"strconv"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

// Meta is what the caller knows about the run that Run does not measure.
type Meta struct {
	// Run is the run record (internal/run's): the command line, version,
	// hosts and environment facts ("pmi": how this rank found its
	// server) the Result's Run starts from.
	Run        report.Run
	Start, End time.Time
}

// Result turns rank 0's outcome into the report model, with the hosts
// the ranks reported (Run.Hostnames in rank order of first appearance,
// Run.Hosts their count): one "phases" table
// with a row per phase (and the per-rank total) holding min, mean and max
// over ranks, each rank's seconds kept as samples.
func Result(out *Outcome, o Options, m Meta) *report.Result {
	r := report.New("wireup")
	r.Run = m.Run
	r.Run.Benchmark = "wireup"
	r.Run.Ranks = out.Size
	r.Run.Start, r.Run.End = m.Start, m.End
	r.Run.Env = maps.Clone(m.Run.Env)
	if len(out.Hosts) == out.Size && out.Size > 0 {
		r.Run.Hostnames = nil
		seen := map[string]bool{}
		for _, h := range out.Hosts {
			if !seen[h] {
				seen[h] = true
				r.Run.Hostnames = append(r.Run.Hostnames, h)
			}
		}
		r.Run.Hosts = len(r.Run.Hostnames)
	}
	r.Params = []report.Param{
		{Name: "card-size", Value: strconv.Itoa(o.CardSize) + " B"},
		{Name: "pattern", Value: o.Pattern},
		{Name: "gets per rank", Value: strconv.Itoa(out.Gets)},
		{Name: "gets", Value: getsMode(out.Pipelined)},
	}
	col := func(name string) report.Column {
		return report.Column{Name: name, Kind: report.KindMetric, Unit: "s", Display: "ms",
			Better: report.BetterLower, Source: "rank"}
	}
	t := report.Table{Name: "phases", Columns: []report.Column{
		{Name: "phase", Kind: report.KindLabel}, col("min"), col("mean"), col("max"),
	}}
	add := func(name string, samples []float64) {
		s := report.Summarize(samples)
		t.Rows = append(t.Rows, report.Row{
			Labels:  []string{name},
			Metrics: []float64{s.Min, s.Mean, s.Max},
			Samples: map[string][]float64{"rank": samples},
		})
	}
	// The total in whole nanoseconds (each phase's time is one), divided
	// once: a sum of float seconds carries noise into the CSV
	// (0.012087117999999999 for 0.012087118).
	total := make([]float64, len(out.Ranks))
	for i, name := range phaseNames {
		samples := make([]float64, len(out.Ranks))
		for r, times := range out.Ranks {
			samples[r] = times[i]
			total[r] += math.Round(times[i] * 1e9)
		}
		add(name, samples)
	}
	for r := range total {
		total[r] /= 1e9
	}
	add("total", total)
	r.Tables = []report.Table{t}
	return r
}

// getsMode names how the get phase sent its requests.
func getsMode(pipelined bool) string {
	if pipelined {
		return "pipelined"
	}
	return "one at a time"
}
