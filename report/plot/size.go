package plot

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/report"
)

// A size table is one whose only label column is the message size in
// bytes: fabric's ("bytes", one table per test) and IMB's ("#bytes", one
// table per benchmark and process count).
var sizeLabels = []string{"bytes", "#bytes"}

// latencyNames are the columns a size chart's latency comes from, first
// found first: IMB's mean over the ranks (t_avg; PingPong's t), fabric's
// mean time per transfer (usec/xfer). A table with none of them gives its
// first lower-is-better column in seconds.
var latencyNames = []string{"t_avg", "t", "usec/xfer"}

// byteRates are the units of a bandwidth column.
var byteRates = []string{"B/s", "KB/s", "MB/s", "GB/s", "KiB/s", "MiB/s", "GiB/s"}

// sizeBenchmark reports whether archives of bench have size tables: coll
// (imb) and the fabric tests but allpairs, whose tables are host pairs.
func sizeBenchmark(bench string) bool {
	return bench == "imb" || strings.HasPrefix(bench, "fabric-") && bench != allpairs
}

// allpairs is fabric allpairs' benchmark, which plot has no chart of.
const allpairs = "fabric-allpairs"

// autoMetric returns the figure MetricAuto stands for: bandwidth when
// every archive is of a bandwidth test, else latency.
func autoMetric(archives []Archive) Metric {
	for _, a := range archives {
		if b := a.Result.Run.Benchmark; b != "fabric-bw" && b != "fabric-rma_bw" {
			return MetricLatency
		}
	}
	return MetricBandwidth
}

// sizeChart is latency or bandwidth against message size: one line per
// archive and size table (a fabric test, an IMB benchmark).
func sizeChart(archives []Archive, m Metric) (*Chart, error) {
	if m == MetricAuto || m == "" {
		m = autoMetric(archives)
	}
	c := &Chart{
		Title: string(m) + " against message size",
		X:     Axis{Label: "message size", Scale: Log2},
		Y:     Axis{Label: string(m), Scale: Log10},
	}
	if m == MetricLatency {
		c.Y.Unit = "us"
	}
	files := archiveNames(archives)
	var parts [][]part
	err := forTables(archives, func(ai int, t *report.Table) (bool, error) {
		col, pts, ok := sizePoints(t, m)
		if !ok {
			return false, nil
		}
		if m == MetricBandwidth {
			if c.Y.Unit == "" {
				c.Y.Unit = col.Unit
			} else if col.Unit != c.Y.Unit {
				return false, fmt.Errorf("plot: %s: table %q has bandwidth in %s, the chart in %s", archives[ai].Name, t.Name, col.Unit, c.Y.Unit)
			}
		}
		c.Series = append(c.Series, Series{Points: pts})
		parts = append(parts, sizeParts(files[ai], archives[ai].Result.Run.Benchmark, t.Name))
		return true, nil
	}, func(a Archive) error {
		return fmt.Errorf("plot: %s: no table of %s against message size (a \"bytes\" or \"#bytes\" label column and %s)",
			a.Name, m, metricWant(m))
	})
	if err != nil {
		return nil, err
	}
	nameSeries(c, parts)
	return c, nil
}

// metricWant says which columns give metric m.
func metricWant(m Metric) string {
	if m == MetricBandwidth {
		return "a higher-is-better column in " + strings.Join(byteRates, ", ") + ": IMB's PingPong, PingPing, Sendrecv and Exchange have one"
	}
	return "a lower-is-better column in s"
}

// sizeParts returns the parts of the name of a size table's line: the
// file, the benchmark or test, and IMB's process count.
func sizeParts(file, bench, table string) []part {
	ps := []part{{filePart, file}}
	if name, np, ok := report.ParseIMBTableName(table); ok && bench == "imb" {
		return append(ps, part{benchPart, name}, part{"np", "np=" + strconv.Itoa(np)})
	}
	return append(ps, part{benchPart, table})
}

// sizePoints returns t's (bytes, figure) points when t is a size table
// with a column for m: latency in microseconds, bandwidth in its column's
// unit. A row of 0 bytes, which a log axis cannot place, is left out.
func sizePoints(t *report.Table, m Metric) (report.Column, []Point, bool) {
	var labels, metrics []report.Column
	for _, col := range t.Columns {
		if col.Kind == report.KindLabel {
			labels = append(labels, col)
		} else {
			metrics = append(metrics, col)
		}
	}
	if len(labels) != 1 || !slices.Contains(sizeLabels, labels[0].Name) {
		return report.Column{}, nil, false
	}
	at := metricColumn(metrics, m)
	if at < 0 {
		return report.Column{}, nil, false
	}
	scale := 1.0
	if m == MetricLatency {
		scale = 1e6
	}
	var pts []Point
	for _, r := range t.Rows {
		if len(r.Labels) != 1 || len(r.Metrics) <= at {
			continue
		}
		b, err := strconv.ParseFloat(r.Labels[0], 64)
		v := r.Metrics[at] * scale
		if err != nil || !(b > 0) || math.IsInf(b, 0) || !(v > 0) || math.IsInf(v, 0) {
			continue
		}
		pts = append(pts, Point{b, v})
	}
	slices.SortStableFunc(pts, func(a, b Point) int { return cmpFloat(a.X, b.X) })
	return metrics[at], pts, len(pts) > 0
}

// metricColumn returns the index among metrics of the column giving m,
// or -1.
func metricColumn(metrics []report.Column, m Metric) int {
	if m == MetricBandwidth {
		return slices.IndexFunc(metrics, func(c report.Column) bool {
			return c.Better == report.BetterHigher && slices.Contains(byteRates, c.Unit)
		})
	}
	for _, name := range latencyNames {
		if i := slices.IndexFunc(metrics, func(c report.Column) bool { return c.Name == name && c.Unit == "s" }); i >= 0 {
			return i
		}
	}
	return slices.IndexFunc(metrics, func(c report.Column) bool { return c.Unit == "s" && c.Better == report.BetterLower })
}

// archiveNames returns the archives' file names as legends show them.
func archiveNames(archives []Archive) []string {
	names := make([]string, len(archives))
	for i, a := range archives {
		names[i] = a.Name
	}
	return fileNames(names)
}

// forTables calls f with every table of every archive in turn (ai the
// archive's index) until it fails, and fails with missing's error for
// the first archive none of whose tables f took.
func forTables(archives []Archive, f func(ai int, t *report.Table) (took bool, err error), missing func(Archive) error) error {
	for ai, a := range archives {
		found := false
		for i := range a.Result.Tables {
			took, err := f(ai, &a.Result.Tables[i])
			if err != nil {
				return err
			}
			found = found || took
		}
		if !found {
			return missing(a)
		}
	}
	return nil
}
