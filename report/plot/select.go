package plot

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/report"
)

// Archive is one saved run to plot and the name its series carry (the
// file name as the user typed it).
type Archive struct {
	Name   string
	Result *report.Result
}

// Select returns the chart of kind (KindAuto: the benchmark's own) for the
// archives, which must all be of one benchmark. An error names the archive
// and says what it lacks.
func Select(archives []Archive, kind Kind) (*Chart, error) {
	if len(archives) == 0 {
		return nil, fmt.Errorf("plot: no archives to plot")
	}
	bench := archives[0].Result.Run.Benchmark
	for _, a := range archives[1:] {
		if b := a.Result.Run.Benchmark; b != bench {
			return nil, fmt.Errorf("plot: %s is a %q archive and %s a %q one: plot one benchmark at a time",
				archives[0].Name, bench, a.Name, b)
		}
	}
	if kind == KindAuto {
		kind = autoKind(archives)
	}
	var c *Chart
	var err error
	switch {
	case kind == KindTime:
		c, err = timeChart(archives)
	case bench == "imb" && kind == KindSize:
		c, err = imbChart(archives)
	case bench == "ior" && (kind == KindSize || kind == KindPhase):
		c, err = iorChart(archives, kind)
	case bench == "mdtest" && kind == KindPhase:
		c, err = mdtestChart(archives)
	default:
		return nil, fmt.Errorf("plot: no %s chart for %q archives (%s); imb has size, ior size and phase, mdtest phase, and any archive with a time series time",
			kind, bench, archives[0].Name)
	}
	if err != nil {
		return nil, err
	}
	c.Kind = kind
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// autoKind returns the chart KindAuto stands for.
func autoKind(archives []Archive) Kind {
	switch archives[0].Result.Run.Benchmark {
	case "imb":
		return KindSize
	case "mdtest":
		return KindPhase
	case "ior":
		sizes := map[float64]bool{}
		for _, a := range archives {
			for _, p := range iorPoints(a.Result) {
				sizes[p.xfer] = true
			}
		}
		if len(sizes) > 1 {
			return KindSize
		}
		return KindPhase
	}
	return KindTime
}

// imbChart is latency against message size.
func imbChart(archives []Archive) (*Chart, error) {
	c := &Chart{
		Title: "latency against message size",
		X:     Axis{Label: "message size", Unit: "B", Scale: Log2},
		Y:     Axis{Label: "latency", Unit: "us", Scale: Log10},
	}
	var names [][2]string
	for _, a := range archives {
		found := false
		for i := range a.Result.Tables {
			t := &a.Result.Tables[i]
			bench, _, ok := report.ParseIMBTableName(t.Name)
			if !ok {
				continue
			}
			pts, ok := imbPoints(t)
			if !ok {
				continue
			}
			found = true
			c.Series = append(c.Series, Series{Points: pts})
			names = append(names, [2]string{a.Name, bench})
		}
		if !found {
			return nil, fmt.Errorf("plot: %s: no IMB table with a \"#bytes\" label and a \"t_avg\" or \"t\" metric in seconds", a.Name)
		}
	}
	perFile := len(c.Series) == len(archives)
	for i := range c.Series {
		c.Series[i].Name = names[i][0]
		if !perFile {
			c.Series[i].Name += " " + names[i][1]
		}
	}
	return c, nil
}

// imbPoints returns t's (bytes, t_avg in us) points, leaving out the 0-byte
// row; ok is false when t lacks the columns.
func imbPoints(t *report.Table) (pts []Point, ok bool) {
	bytesAt, timeAt := -1, -1
	li, mi := 0, 0
	for _, col := range t.Columns {
		if col.Kind == report.KindLabel {
			if col.Name == "#bytes" {
				bytesAt = li
			}
			li++
			continue
		}
		if col.Unit == "s" && (col.Name == "t_avg" || col.Name == "t" && timeAt < 0) {
			timeAt = mi
		}
		mi++
	}
	if bytesAt < 0 || timeAt < 0 {
		return nil, false
	}
	for _, r := range t.Rows {
		b, err := strconv.ParseFloat(r.Labels[bytesAt], 64)
		v := r.Metrics[timeAt]
		if err != nil || b <= 0 || math.IsNaN(v) || v <= 0 {
			continue
		}
		pts = append(pts, Point{b, v * 1e6})
	}
	return pts, true
}

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
		c.X = Axis{Label: "transfer size", Unit: "B", Scale: Log2}
	}
	for _, a := range archives {
		pts := iorPoints(a.Result)
		if len(pts) == 0 {
			return nil, fmt.Errorf("plot: %s: no write or read bandwidth in its %q tables", a.Name, report.IORTableName(0, report.IORResults))
		}
		if kind == KindPhase {
			c.Series = append(c.Series, Series{Name: a.Name, Points: categoryPoints(c, iorPhases(pts))})
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
				s.Name = a.Name + " " + acc
				c.Series = append(c.Series, s)
			}
		}
	}
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

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// mdtestChart is the mean rate of each phase that ran.
func mdtestChart(archives []Archive) (*Chart, error) {
	c := &Chart{
		Title:      "rate per phase",
		X:          Axis{Label: "phase"},
		Y:          Axis{Label: "rate", Unit: "ops/s"},
		Categories: []string{},
	}
	meanAt := metricIndex(report.MdtestRateColumns(), "mean")
	for _, a := range archives {
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
		c.Series = append(c.Series, Series{Name: a.Name, Points: categoryPoints(c, vals)})
	}
	return c, nil
}

// timeChart is throughput over time, from the time-series tables.
func timeChart(archives []Archive) (*Chart, error) {
	c := &Chart{Title: "throughput over time", X: Axis{Label: "elapsed", Unit: "s"}}
	haveY := false
	for _, a := range archives {
		found := false
		for i := range a.Result.Tables {
			t := &a.Result.Tables[i]
			col, lines, ok := timeSeries(t)
			if !ok {
				continue
			}
			if !haveY {
				c.Y, haveY = Axis{Label: col.Name, Unit: col.Unit}, true
			} else if col.Unit != c.Y.Unit {
				return nil, fmt.Errorf("plot: %s: table %q has throughput in %q, the chart in %q", a.Name, t.Name, col.Unit, c.Y.Unit)
			}
			found = true
			for _, l := range lines {
				name := a.Name + " " + t.Name
				if l.labels != "" {
					name += " " + l.labels
				}
				c.Series = append(c.Series, Series{Name: name, Points: l.points})
			}
		}
		if !found {
			return nil, fmt.Errorf("plot: %s: no time-series table (first metric column \"elapsed\" in s, then a throughput whose better is higher)", a.Name)
		}
	}
	return c, nil
}

// timeLine is the points of a time-series table's rows with one set of
// labels.
type timeLine struct {
	labels string
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
		key := strings.Join(r.Labels, " ")
		i := slices.IndexFunc(lines, func(l timeLine) bool { return l.labels == key })
		if i < 0 {
			i = len(lines)
			lines = append(lines, timeLine{labels: key})
		}
		lines[i].points = append(lines[i].points, Point{x, y})
	}
	return metrics[tpAt], lines, len(lines) > 0
}
