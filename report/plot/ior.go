package plot

import (
	"fmt"
	"math"
	"slices"

	"github.com/hpcbench/hpcbench/report"
)

// iorPoint is the mean bandwidth of one access at one transfer size.
type iorPoint struct {
	access string
	xfer   float64 // bytes
	bw     float64 // MiB/s
}

// iorPoints returns r's write and read bandwidths, averaged over the
// iterations of every test with the same transfer size, in the order the
// accesses and sizes first appear.
func iorPoints(r *report.Result) []iorPoint {
	type key struct {
		access string
		xfer   float64
	}
	var order []key
	samples := map[key][]float64{}
	cols := report.IORResultsColumns()
	bwAt, xferAt := metricIndex(cols, "bw"), metricIndex(cols, "xfer")
	for i := range r.Tables {
		t := &r.Tables[i]
		if _, kind, ok := report.ParseIORTableName(t.Name); !ok || kind != report.IORResults {
			continue
		}
		for _, row := range t.Rows {
			if len(row.Labels) < 1 || len(row.Metrics) <= max(bwAt, xferAt) {
				continue
			}
			acc := row.Labels[0]
			if acc != report.IORWrite && acc != report.IORRead || math.IsNaN(row.Metrics[bwAt]) {
				continue
			}
			k := key{acc, row.Metrics[xferAt]}
			if _, ok := samples[k]; !ok {
				order = append(order, k)
			}
			samples[k] = append(samples[k], row.Metrics[bwAt])
		}
	}
	pts := make([]iorPoint, 0, len(order))
	for _, k := range order {
		pts = append(pts, iorPoint{k.access, k.xfer, report.Summarize(samples[k]).Mean})
	}
	return pts
}

// metricIndex returns the position among cols' metric columns of the one
// named name, or -1.
func metricIndex(cols []report.Column, name string) int {
	i := 0
	for _, c := range cols {
		if c.Kind != report.KindMetric {
			continue
		}
		if c.Name == name {
			return i
		}
		i++
	}
	return -1
}

// iorChart is bandwidth against transfer size (KindSize) or per phase.
func iorChart(archives []Archive, kind Kind) (*Chart, error) {
	c := &Chart{Y: Axis{Label: "bandwidth", Unit: "MiB/s"}}
	if kind == KindPhase {
		c.Title = "bandwidth per phase"
		c.X = Axis{Label: "phase"}
		c.Categories = []string{}
	} else {
		c.Title = "bandwidth against transfer size"
		c.X = Axis{Label: "transfer size", Scale: Log2}
	}
	files := archiveNames(archives)
	var parts [][]part
	for ai, a := range archives {
		pts := iorPoints(a.Result)
		if len(pts) == 0 {
			return nil, fmt.Errorf("plot: %s: no write or read bandwidth in its %q tables", a.Name, report.IORTableName(0, report.IORResults))
		}
		if kind == KindPhase {
			c.Series = append(c.Series, Series{Points: categoryPoints(c, iorPhases(pts))})
			parts = append(parts, []part{{filePart, files[ai]}})
			continue
		}
		for _, acc := range []string{report.IORWrite, report.IORRead} {
			var s Series
			for _, p := range pts {
				if p.access == acc {
					s.Points = append(s.Points, Point{p.xfer, p.bw})
				}
			}
			if len(s.Points) > 0 {
				slices.SortFunc(s.Points, func(a, b Point) int { return cmpFloat(a.X, b.X) })
				c.Series = append(c.Series, s)
				parts = append(parts, []part{{filePart, files[ai]}, {"access", acc}})
			}
		}
	}
	nameSeries(c, parts)
	return c, nil
}

// iorPhases returns the mean bandwidth of each access over every transfer
// size, as category figures.
func iorPhases(pts []iorPoint) []namedValue {
	var out []namedValue
	sums := map[string][]float64{}
	for _, p := range pts {
		if _, ok := sums[p.access]; !ok {
			out = append(out, namedValue{name: p.access})
		}
		sums[p.access] = append(sums[p.access], p.bw)
	}
	for i := range out {
		out[i].v = report.Summarize(sums[out[i].name]).Mean
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
