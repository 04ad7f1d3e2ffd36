package plot

import (
	"fmt"
	"math"
	"slices"

	"github.com/hpcbench/hpcbench/report"
)

// mdtestChart is the mean rate of each phase that ran.
func mdtestChart(archives []Archive) (*Chart, error) {
	c := &Chart{
		Title:      "rate per phase",
		X:          Axis{Label: "phase"},
		Y:          Axis{Label: "rate", Unit: "ops/s"},
		Categories: []string{},
	}
	meanAt := metricIndex(report.MdtestRateColumns(), "mean")
	files := archiveNames(archives)
	for ai, a := range archives {
		var vals []namedValue
		for i := range a.Result.Tables {
			t := &a.Result.Tables[i]
			if t.Name != report.MdtestRateTable {
				continue
			}
			for _, row := range t.Rows {
				if len(row.Labels) > 0 && len(row.Metrics) > meanAt && !math.IsNaN(row.Metrics[meanAt]) {
					vals = append(vals, namedValue{row.Labels[0], row.Metrics[meanAt]})
				}
			}
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("plot: %s: no phase with a mean rate in its %q table", a.Name, report.MdtestRateTable)
		}
		c.Series = append(c.Series, Series{Name: files[ai], Points: categoryPoints(c, vals)})
	}
	return c, nil
}

// wireupPhases is the table of wireup's phase times.
const wireupPhases = "phases"

// wireupChart is the mean time of each phase of the PMI bootstrap, over
// the ranks, in the unit that suits the longest.
func wireupChart(archives []Archive) (*Chart, error) {
	c := &Chart{Title: "time per phase, mean over the ranks", X: Axis{Label: "phase"}, Categories: []string{}}
	files := archiveNames(archives)
	top := 0.0
	for ai, a := range archives {
		var vals []namedValue
		for i := range a.Result.Tables {
			t := &a.Result.Tables[i]
			meanAt := metricIndex(t.Columns, "mean")
			if t.Name != wireupPhases || meanAt < 0 || t.Columns[0].Kind != report.KindLabel || t.Columns[meanAt+1].Unit != "s" {
				continue
			}
			for _, row := range t.Rows {
				if len(row.Labels) > 0 && len(row.Metrics) > meanAt && row.Metrics[meanAt] >= 0 && !math.IsInf(row.Metrics[meanAt], 0) {
					vals = append(vals, namedValue{row.Labels[0], row.Metrics[meanAt]})
					top = max(top, row.Metrics[meanAt])
				}
			}
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("plot: %s: no phase with a mean time in seconds in its %q table", a.Name, wireupPhases)
		}
		c.Series = append(c.Series, Series{Name: files[ai], Points: categoryPoints(c, vals)})
	}
	unit, scale := timeUnit(top)
	c.Y = Axis{Label: "time", Unit: unit}
	for i := range c.Series {
		for j := range c.Series[i].Points {
			c.Series[i].Points[j].Y *= scale
		}
	}
	return c, nil
}

// timeUnit returns the unit seconds up to top read best in, and the
// factor from seconds to it.
func timeUnit(top float64) (string, float64) {
	switch {
	case top >= 1:
		return "s", 1
	case top >= 1e-3:
		return "ms", 1e3
	}
	return "us", 1e6
}

// logRatio is how many times the tallest bar may be the shortest before
// the bars' axis turns logarithmic: beyond it, the short ones would be a
// few pixels high.
const logRatio = 20

// logBars gives c's y axis a log scale when its bars' figures, all above
// 0, span more than logRatio.
func logBars(c *Chart) {
	lo, hi := math.Inf(1), 0.0
	for _, s := range c.Series {
		for _, p := range s.Points {
			if !(p.Y > 0) {
				return
			}
			lo, hi = min(lo, p.Y), max(hi, p.Y)
		}
	}
	if hi > logRatio*lo {
		c.Y.Scale = Log10
	}
}

// namedValue is one category's figure.
type namedValue struct {
	name string
	v    float64
}

// categoryPoints adds the names of vals to c's categories where they are
// new and returns vals as points at their categories' indexes.
func categoryPoints(c *Chart, vals []namedValue) []Point {
	pts := make([]Point, 0, len(vals))
	for _, nv := range vals {
		i := slices.Index(c.Categories, nv.name)
		if i < 0 {
			i = len(c.Categories)
			c.Categories = append(c.Categories, nv.name)
		}
		pts = append(pts, Point{float64(i), nv.v})
	}
	slices.SortFunc(pts, func(a, b Point) int { return cmpFloat(a.X, b.X) })
	return pts
}
