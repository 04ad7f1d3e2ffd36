package imb

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

// BenchmarkName is Run.Benchmark of the results the engine builds.
const BenchmarkName = "imb"

// Column names of the tables, in IMB's terms; report.WriteIMB prints them
// with IMB's headings ("t_min[usec]", "Mbytes/sec").
const (
	colBytes   = "#bytes"       // label: message size in bytes
	colReps    = "#repetitions" // repetitions in the measured run
	colT       = "t"            // PingPong, PingPing: IMB's t, the slowest rank's
	colTMin    = "t_min"        // fastest rank's mean time of a repetition
	colTMax    = "t_max"        // slowest rank's
	colTAvg    = "t_avg"        // mean over ranks of each rank's mean
	colBW      = "Mbytes/sec"   // bandwidth, 10^6 bytes per second
	colDefects = "defects"      // -check: repetitions with a wrong result
	sampleRank = "rank"         // Row.Samples key: each active rank's time
)

// tableBuilder accumulates the table of one benchmark at one process count.
type tableBuilder struct {
	b     benchmark
	check bool
	t     report.Table
}

// newTable starts the table of b on np processes with IMB's columns for its
// type: #bytes (not for Barrier), #repetitions, then t and bw for PingPong
// and PingPing, t_min, t_max, t_avg for the rest, bw for Sendrecv and
// Exchange, and defects when checking data. Times are stored in seconds and
// shown in microseconds, IMB's t[usec].
func newTable(b benchmark, np int, check bool) *tableBuilder {
	metric := func(name, unit, display string, better report.Better, source string) report.Column {
		return report.Column{Name: name, Kind: report.KindMetric, Unit: unit, Display: display, Better: better, Source: source}
	}
	time := func(name string) report.Column {
		return metric(name, "s", "us", report.BetterLower, sampleRank)
	}
	var cols []report.Column
	if b.kind != kindSync {
		cols = append(cols, report.Column{Name: colBytes, Kind: report.KindLabel})
	}
	cols = append(cols, metric(colReps, "", "", "", ""))
	if b.kind == kindSingle {
		cols = append(cols, time(colT))
	} else {
		cols = append(cols, time(colTMin), time(colTMax), time(colTAvg))
	}
	if b.kind == kindSingle || b.kind == kindParallel {
		cols = append(cols, metric(colBW, "MB/s", "", report.BetterHigher, ""))
	}
	check = check && b.kind != kindSync
	if check {
		cols = append(cols, metric(colDefects, "", "", report.BetterLower, ""))
	}
	return &tableBuilder{b: b, check: check, t: report.Table{Name: report.IMBTableName(b.name, np), Columns: cols}}
}

// row makes the row of one size from every rank's figures (idle ranks have
// a negative time) and returns it with the total of defects.
func (tb *tableBuilder) row(size, reps int, all []rankFigures) (report.Row, int) {
	var times []float64
	defects := 0
	for _, f := range all {
		if f.time >= 0 {
			times = append(times, f.time)
		}
		defects += f.defects
	}
	// IMB_calculate_times: t_avg is the arithmetic mean over the
	// participating ranks of each rank's mean, not a percentile. With no
	// times all three are NaN (not measured).
	ts := report.Summarize(times)
	tmin, tmax, tavg := ts.Min, ts.Max, ts.Mean
	if len(times) > 0 {
		tavg = meanOfMeans(times, reps, tb.b.scaleTime)
	}
	row := report.Row{Samples: map[string][]float64{sampleRank: times}}
	if tb.b.kind != kindSync {
		row.Labels = []string{strconv.Itoa(size)}
	}
	row.Metrics = append(row.Metrics, float64(reps))
	if tb.b.kind == kindSingle {
		row.Metrics = append(row.Metrics, tmax)
	} else {
		row.Metrics = append(row.Metrics, tmin, tmax, tavg)
	}
	if tb.b.kind == kindSingle || tb.b.kind == kindParallel {
		row.Metrics = append(row.Metrics, bandwidth(tb.b.scaleBW, size, tmax))
	}
	if tb.check {
		row.Metrics = append(row.Metrics, float64(defects))
	}
	return row, defects
}

// bandwidth is IMB's Mbytes/sec: scale × bytes / t_max in microseconds,
// that is 10^6 bytes per second; 0 when the time is not positive.
func bandwidth(scale float64, size int, tmax float64) float64 {
	if !(tmax > 0) {
		return 0
	}
	return scale * float64(size) / (tmax * 1e6)
}

// result builds rank 0's report from the tables and the options.
func (e *engine) result(start, end time.Time) *report.Result {
	o, env := e.o, &e.o.Env
	r := report.New(BenchmarkName)
	r.Run = env.Run
	r.Run.Benchmark = BenchmarkName
	r.Run.Hostnames = slices.Clone(env.Run.Hostnames)
	r.Run.Hosts = len(env.Run.Hostnames)
	r.Run.Ranks = e.world.Size()
	r.Run.Start, r.Run.End = start, end
	r.Run.Env = runEnv(env, r.Run.Ranks)
	r.Params = params(o)
	for _, n := range e.notes {
		r.Params = append(r.Params, report.Param{Name: report.IMBSkippedParam, Value: n})
	}
	r.Tables = append(e.tables, e.dist.tables()...)
	if r.Tables == nil {
		r.Tables = []report.Table{}
	}
	return r
}

// runEnv returns the facts for Run.Env: the caller's, the machine's, and
// "oversubscribed" when a host runs more ranks than it has CPUs.
func runEnv(env *Env, ranks int) map[string]string {
	m := map[string]string{"machine": runtime.GOARCH, "system": runtime.GOOS}
	for k, v := range env.Extra {
		m[k] = v
	}
	if env.Transport != "" {
		m["transport"] = env.Transport
	}
	if env.CPUs > 0 {
		m["cpus"] = strconv.Itoa(env.CPUs)
		perHost := ranks
		if env.HostRanks > 0 {
			perHost = env.HostRanks
		}
		if perHost > env.CPUs {
			m[report.EnvOversubscribed] = fmt.Sprintf("%d ranks / %d CPUs", perHost, env.CPUs)
		}
	}
	return m
}

// params echoes the options as IMB-MPI1's command line would spell them.
// report.WriteIMB reads "benchmarks" and "msglen" back.
func params(o *Options) []report.Param {
	p := []report.Param{{Name: report.IMBParamBenchmarks, Value: strings.Join(o.selectedNames(), " ")}}
	name, value := o.sizesSpec()
	p = append(p,
		report.Param{Name: name, Value: value},
		report.Param{Name: "iter", Value: o.iterSpec()},
		report.Param{Name: "iter_policy", Value: o.IterPolicy},
		report.Param{Name: "time", Value: o.Time.String()},
		report.Param{Name: "npmin", Value: strconv.Itoa(o.NPMin)},
		report.Param{Name: "root", Value: strconv.Itoa(o.Root)},
		report.Param{Name: "root_shift", Value: onOff(o.RootShift)},
		report.Param{Name: "sync", Value: onOff(o.Sync)},
		report.Param{Name: "check", Value: onOff(o.Check)},
		report.Param{Name: "datatype", Value: "bytes (MPI_BYTE); reductions float32 (MPI_FLOAT) sum"},
	)
	if o.Interval != 0 {
		// Incidental: it shapes the series table, not IMB's figures, so
		// compare matches runs whatever their --interval.
		p = append(p, report.Param{Name: "interval", Value: o.Interval.String(), Incidental: true})
	}
	if o.Alg != "" {
		p = append(p, report.Param{Name: "alg", Value: o.Alg})
	}
	if o.Fabric != "" {
		p = append(p, report.Param{Name: "fabric", Value: o.Fabric})
	}
	return p
}
