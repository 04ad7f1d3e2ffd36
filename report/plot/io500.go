package plot

import (
	"fmt"
	"math"

	"github.com/hpcbench/hpcbench/report"
)

// io500Chart is the score of each phase that ran: GiB/s for the ior
// phases, kIOPS for mdtest's and find, on one logarithmic axis as IO500's
// own charts put them.
func io500Chart(archives []Archive) (*Chart, error) {
	c := &Chart{
		Title:      "IO500 score per phase",
		X:          Axis{Label: "phase"},
		Y:          Axis{Label: "score", Unit: "GiB/s (ior), kIOPS (mdtest, find)"},
		Categories: []string{},
	}
	files := archiveNames(archives)
	for ai, a := range archives {
		var vals []namedValue
		for i := range a.Result.Tables {
			t := &a.Result.Tables[i]
			bw, md := metricIndex(t.Columns, "bw"), metricIndex(t.Columns, "md")
			if t.Name != report.IO500PhasesTable || bw < 0 || md < 0 {
				continue
			}
			for _, row := range t.Rows {
				if len(row.Labels) == 0 || len(row.Metrics) <= max(bw, md) {
					continue
				}
				for _, v := range []float64{row.Metrics[bw], row.Metrics[md]} {
					if !math.IsNaN(v) && v > 0 {
						vals = append(vals, namedValue{row.Labels[0], v})
					}
				}
			}
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("plot: %s: no phase with a score in its %q table", a.Name, report.IO500PhasesTable)
		}
		c.Series = append(c.Series, Series{Name: files[ai], Points: categoryPoints(c, vals)})
	}
	return c, nil
}
