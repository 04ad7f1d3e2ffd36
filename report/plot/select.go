package plot

import (
	"fmt"
	"slices"

	"github.com/hpcbench/hpcbench/report"
)

// Archive is one saved run to plot and the name its series carry (the
// file name as the user typed it).
type Archive struct {
	Name   string
	Result *report.Result
}

// chartList says which charts plot draws of which archives, for the errors
// that refuse one.
const chartList = "plot draws size charts of coll and fabric pingpong, bw, rma_bw and rma_pingpong (and of ior over transfer sizes), " +
	"phase charts of ior, mdtest, wireup and io500, and time charts of ior, mdtest and coll runs (their series tables)"

// Select returns the chart o asks for (KindAuto: the benchmark's own) of
// the archives, which must all be of one benchmark, or all have size
// tables (coll and fabric tests, which a size chart draws together). An
// error names the archive and says what it lacks.
func Select(archives []Archive, o Options) (*Chart, error) {
	if len(archives) == 0 {
		return nil, fmt.Errorf("plot: no archives to plot")
	}
	kind := o.Kind
	if kind == "" || kind == KindAuto {
		kind = autoKind(archives)
	}
	bench := archives[0].Result.Run.Benchmark
	for _, a := range archives {
		if b := a.Result.Run.Benchmark; b == allpairs {
			return nil, fmt.Errorf("plot: %s: fabric allpairs holds matrices of host pairs, not figures against size, phase or time (hpcbench report prints them); %s", a.Name, chartList)
		}
	}
	for _, a := range archives[1:] {
		b := a.Result.Run.Benchmark
		if b != bench && !(kind == KindSize && sizeBenchmark(b) && sizeBenchmark(bench)) {
			return nil, fmt.Errorf("plot: %s is a %q archive and %s a %q one: plot one benchmark at a time (coll and fabric ones go together on a size chart)",
				archives[0].Name, bench, a.Name, b)
		}
	}
	switch m := o.Metric; {
	case m != "" && !slices.Contains(Metrics(), m):
		return nil, fmt.Errorf("plot: metric %q: want one of auto, latency, bandwidth", m)
	case m != "" && m != MetricAuto && !(kind == KindSize && sizeBenchmark(bench)):
		return nil, fmt.Errorf("plot: --metric %s: only size charts of coll and fabric archives choose their figure, not a %s chart of %q archives (%s)",
			m, kind, bench, archives[0].Name)
	}
	var c *Chart
	var err error
	switch {
	case kind == KindTime:
		c, err = timeChart(archives)
	case sizeBenchmark(bench) && kind == KindSize:
		c, err = sizeChart(archives, o.Metric)
	case bench == "ior" && (kind == KindSize || kind == KindPhase):
		c, err = iorChart(archives, kind)
	case bench == "mdtest" && kind == KindPhase:
		c, err = mdtestChart(archives)
	case bench == "wireup" && kind == KindPhase:
		c, err = wireupChart(archives)
	case bench == report.BenchmarkIO500 && kind == KindPhase:
		c, err = io500Chart(archives)
	default:
		return nil, fmt.Errorf("plot: no %s chart for %q archives (%s); %s", kind, bench, archives[0].Name, chartList)
	}
	if err != nil {
		return nil, err
	}
	c.Kind = kind
	if c.Categories != nil {
		logBars(c)
	} else if kind == KindTime {
		clipOutliers(c)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// autoKind returns the chart KindAuto stands for.
func autoKind(archives []Archive) Kind {
	switch bench := archives[0].Result.Run.Benchmark; {
	case sizeBenchmark(bench):
		return KindSize
	case bench == "mdtest" || bench == "wireup" || bench == report.BenchmarkIO500:
		return KindPhase
	case bench == "ior":
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
