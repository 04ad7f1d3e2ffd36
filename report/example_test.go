package report_test

import (
	"os"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

// Example builds the result "hpcbench wireup" reports: one table of phases,
// times stored in seconds and shown in milliseconds, each rank's raw time
// kept as samples behind the min, mean and max columns.
func Example() {
	perRank := map[string][]float64{ // seconds, as each rank measured them
		"init":    {0.0021, 0.0019, 0.0024, 0.0020},
		"put":     {0.000011, 0.000009, 0.000012, 0.000010},
		"barrier": {0.0150, 0.0148, 0.0152, 0.0151},
	}
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := report.New("wireup")
	r.Run.Ranks, r.Run.Hosts = 4, 1
	r.Run.Start, r.Run.End = start, start.Add(40*time.Millisecond)
	r.Params = []report.Param{{Name: "pmi", Value: "fd"}}

	col := func(name string) report.Column {
		return report.Column{Name: name, Kind: report.KindMetric, Unit: "s", Display: "ms",
			Better: report.BetterLower, Source: "rank"}
	}
	phases := report.Table{Name: "phases", Columns: []report.Column{
		{Name: "phase", Kind: report.KindLabel}, col("min"), col("mean"), col("max"),
	}}
	for _, phase := range []string{"init", "put", "barrier"} {
		s := report.Summarize(perRank[phase])
		phases.Rows = append(phases.Rows, report.Row{
			Labels:  []string{phase},
			Metrics: []float64{s.Min, s.Mean, s.Max},
			Samples: map[string][]float64{"rank": perRank[phase]},
		})
	}
	r.Tables = append(r.Tables, phases)

	if err := report.WriteText(os.Stdout, r); err != nil {
		panic(err)
	}
	// Output:
	// Benchmark           : wireup
	// Began               : 2026-03-01T12:00:00Z
	// Finished            : 2026-03-01T12:00:00Z
	// Elapsed             : 40ms
	// Ranks               : 4
	// Hosts               : 1
	//
	// Options:
	// pmi                 : fd
	//
	// phases:
	//
	// phase    min(ms)  mean(ms)  max(ms)
	// -----    -------  --------  -------
	// init       1.900     2.100    2.400
	// put        0.009     0.010    0.012
	// barrier   14.800    15.025   15.200
}
