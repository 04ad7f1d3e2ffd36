package plot

import (
	"fmt"
	"math"
)

// Kind names a chart.
type Kind string

// The charts Select draws; see the package doc for what each shows.
const (
	// KindAuto picks the chart from the archives' benchmark.
	KindAuto Kind = "auto"
	// KindSize is a figure against transfer or message size.
	KindSize Kind = "size"
	// KindPhase is a figure per phase, as bars.
	KindPhase Kind = "phase"
	// KindTime is throughput over time.
	KindTime Kind = "time"
)

// Kinds returns the accepted values of a Kind, KindAuto first.
func Kinds() []Kind { return []Kind{KindAuto, KindSize, KindPhase, KindTime} }

// Metric is what a size chart's y axis shows.
type Metric string

// The figures a size chart plots against message size.
const (
	// MetricAuto is bandwidth for archives of bandwidth tests (fabric bw
	// and rma_bw), else latency.
	MetricAuto Metric = "auto"
	// MetricLatency is the mean time of one transfer or operation.
	MetricLatency Metric = "latency"
	// MetricBandwidth is bytes moved per second.
	MetricBandwidth Metric = "bandwidth"
)

// Metrics returns the accepted values of a Metric, MetricAuto first.
func Metrics() []Metric { return []Metric{MetricAuto, MetricLatency, MetricBandwidth} }

// Options choose the chart Select draws.
type Options struct {
	Kind   Kind   // the chart; "" is KindAuto
	Metric Metric // a size chart's y figure; "" is MetricAuto
}

// Scale is how an axis maps values to positions.
type Scale int

// The scales.
const (
	Linear Scale = iota // evenly spaced values
	Log2                // evenly spaced powers of 2; values must be > 0
	Log10               // evenly spaced powers of 10; values must be > 0
)

// Axis describes one axis of a Chart.
type Axis struct {
	Label string // what the axis shows: "message size"
	Unit  string // the unit of its values: "B", "us", "MiB/s"
	Scale Scale
}

// Title returns the axis label with its unit, "message size [B]".
func (a Axis) Title() string {
	if a.Unit == "" {
		return a.Label
	}
	return a.Label + " [" + a.Unit + "]"
}

// Point is one (x, y) figure of a Series.
type Point struct{ X, Y float64 }

// Series is one line, or one set of bars, of a Chart.
type Series struct {
	// Name says where the series comes from: the archive's file name, and
	// the table or phase when an archive has several series.
	Name string
	// Points are in x order. In a chart with Categories, X is the index of
	// the category and the series has at most one point per category.
	Points []Point
}

// Chart is what the writers draw: axes and series, and for a bar chart the
// categories along x.
type Chart struct {
	Kind  Kind
	Title string
	X, Y  Axis
	// Categories, when not nil, are the bar groups along x (the phases);
	// X then holds no figures and its Scale is ignored.
	Categories []string
	Series     []Series
	// Clip, when above 0, is the top of the y axis of a chart with a few
	// points far above the rest: those are drawn on the top edge with
	// their figure, so that they do not flatten every other line.
	Clip float64
}

// bounds returns the smallest and largest x and y of c's points, in
// figures, widened to a range the axes can draw.
func (c *Chart) bounds() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, s := range c.Series {
		for _, p := range s.Points {
			xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
			ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
		}
	}
	if c.Categories != nil {
		xmin, xmax = -0.5, float64(len(c.Categories))-0.5
	}
	if c.Y.Scale == Linear && ymin > 0 {
		ymin = 0 // bars and rates start at 0
	}
	if c.Kind == KindTime && c.X.Scale == Linear && xmin > 0 {
		xmin = 0 // time from the phase's start
	}
	if c.Clip > 0 && ymax > c.Clip {
		ymax = c.Clip
	}
	xmin, xmax = widen(xmin, xmax, c.X.Scale)
	ymin, ymax = widen(ymin, ymax, c.Y.Scale)
	return xmin, xmax, ymin, ymax
}

// widen returns a range of at least one unit of the scale around a single
// value.
func widen(lo, hi float64, s Scale) (float64, float64) {
	if lo < hi {
		return lo, hi
	}
	switch s {
	case Log2:
		return lo / 2, hi * 2
	case Log10:
		return lo / 10, hi * 10
	}
	if lo == 0 {
		return 0, 1
	}
	return math.Min(0, lo), math.Max(0, hi) + math.Abs(hi)/2
}

// validate checks that the chart can be drawn: at least one point, and
// every figure finite and, on a log axis, positive.
func (c *Chart) validate() error {
	n := 0
	for _, s := range c.Series {
		for _, p := range s.Points {
			n++
			if math.IsNaN(p.X) || math.IsInf(p.X, 0) || math.IsNaN(p.Y) || math.IsInf(p.Y, 0) {
				return fmt.Errorf("plot: series %q has a point that is not finite (%g, %g)", s.Name, p.X, p.Y)
			}
			if c.Categories == nil && c.X.Scale != Linear && p.X <= 0 || c.Y.Scale != Linear && p.Y <= 0 {
				return fmt.Errorf("plot: series %q has a point (%g, %g) that a log axis cannot place", s.Name, p.X, p.Y)
			}
			if c.Categories != nil && (p.X != math.Trunc(p.X) || p.X < 0 || int(p.X) >= len(c.Categories)) {
				return fmt.Errorf("plot: series %q has a point at category %g, want 0 to %d", s.Name, p.X, len(c.Categories)-1)
			}
		}
	}
	if n == 0 {
		return fmt.Errorf("plot: nothing to draw: the chart has no points")
	}
	return nil
}
