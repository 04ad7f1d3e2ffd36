package plot

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hpcbench/hpcbench/report"
)

// timeChart is throughput over time, from the time-series tables.
func timeChart(archives []Archive) (*Chart, error) {
	c := &Chart{Title: "throughput over time", X: Axis{Label: "elapsed", Unit: "s"}}
	haveY := false
	files := archiveNames(archives)
	var parts [][]part
	err := forTables(archives, func(ai int, t *report.Table) (bool, error) {
		col, lines, ok := timeSeries(t)
		if !ok {
			return false, nil
		}
		if !haveY {
			c.Y, haveY = Axis{Label: col.Name, Unit: col.Unit}, true
			if col.Name == "bw" {
				c.Y.Label = "bandwidth"
			}
		} else if col.Unit != c.Y.Unit {
			return false, fmt.Errorf("plot: %s: table %q has throughput in %q, the chart in %q", archives[ai].Name, t.Name, col.Unit, c.Y.Unit)
		}
		var labelCols []string
		for _, col := range t.Columns {
			if col.Kind == report.KindLabel {
				labelCols = append(labelCols, col.Name)
			}
		}
		table := strings.TrimPrefix(t.Name, archives[ai].Result.Run.Benchmark+" ")
		for _, l := range lines {
			ps := []part{{filePart, files[ai]}, {"table", table}}
			for k, v := range l.labels {
				if k < len(labelCols) {
					ps = append(ps, labelPart(labelCols[k], v))
				}
			}
			c.Series = append(c.Series, Series{Points: l.points})
			parts = append(parts, ps)
		}
		return true, nil
	}, func(a Archive) error {
		return fmt.Errorf("plot: %s: no time-series table (first metric column \"elapsed\" in s, then a throughput whose better is higher: the series of ior, mdtest and coll); %s", a.Name, chartList)
	})
	if err != nil {
		return nil, err
	}
	nameSeries(c, parts)
	return c, nil
}

// timeLine is the points of a time-series table's rows with one set of
// labels.
type timeLine struct {
	labels []string
	points []Point
}

// timeSeries reports whether t is a time-series table (see the package
// doc) and returns its throughput column and its lines.
func timeSeries(t *report.Table) (report.Column, []timeLine, bool) {
	var metrics []report.Column
	for _, c := range t.Columns {
		if c.Kind == report.KindMetric {
			metrics = append(metrics, c)
		}
	}
	if len(metrics) < 2 || metrics[0].Name != "elapsed" || metrics[0].Unit != "s" {
		return report.Column{}, nil, false
	}
	tpAt := -1
	for i, c := range metrics[1:] {
		if c.Better == report.BetterHigher {
			tpAt = i + 1
			break
		}
	}
	if tpAt < 0 {
		return report.Column{}, nil, false
	}
	var lines []timeLine
	for _, r := range t.Rows {
		x, y := r.Metrics[0], r.Metrics[tpAt]
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		i := slices.IndexFunc(lines, func(l timeLine) bool { return slices.Equal(l.labels, r.Labels) })
		if i < 0 {
			i = len(lines)
			lines = append(lines, timeLine{labels: r.Labels})
		}
		lines[i].points = append(lines[i].points, Point{x, y})
	}
	return metrics[tpAt], lines, len(lines) > 0
}

// outlierTimes is how many times its line's median a point must be to be
// drawn above a clipped axis, and outlierShare the most of a line's
// points that may be: more are the line's level, not outliers.
const (
	outlierTimes = 3
	outlierShare = 0.1
)

// clipOutliers sets c.Clip below the few points that stand far above
// their lines (a rate over a short last interval of an older archive, a
// burst into a cache), so that they do not squash every other line into
// the bottom of the chart; the writers draw them on the top edge with
// their figures.
func clipOutliers(c *Chart) {
	top, outTop := 0.0, 0.0
	for _, s := range c.Series {
		ys := make([]float64, 0, len(s.Points))
		for _, p := range s.Points {
			ys = append(ys, p.Y)
		}
		slices.Sort(ys)
		out := 0
		if len(ys) >= 4 && ys[len(ys)/2] > 0 {
			lim := outlierTimes * ys[len(ys)/2]
			for out < len(ys) && ys[len(ys)-1-out] > lim {
				out++
			}
			if float64(out) > outlierShare*float64(len(ys)) {
				out = 0
			}
		}
		if out > 0 {
			outTop = max(outTop, ys[len(ys)-1])
		}
		if len(ys) > out {
			top = max(top, ys[len(ys)-1-out])
		}
	}
	if outTop > top && top > 0 {
		c.Clip = top
	}
}
