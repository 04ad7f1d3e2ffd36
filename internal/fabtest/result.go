package fabtest

import (
	"fmt"
	"math"
	"strconv"

	"github.com/hpcbench/hpcbench/report"
)

// Result returns the run's result: its options as parameters and one
// table named after the test, a row per size, with the columns
// report.WriteFabtests reads. Duration mode keeps every interval's
// bandwidth as the samples of the min MB/sec column.
func Result(o Options, rows []Row) *report.Result {
	res := report.New("fabric-" + o.Test)
	iters := "by size (fabtests' defaults)"
	if o.Iters > 0 {
		iters = strconv.FormatInt(o.Iters, 10)
	}
	res.Params = []report.Param{
		{Name: "test", Value: o.Test},
		{Name: "iterations", Value: iters},
		{Name: "warm-up", Value: strconv.FormatInt(o.Warmup, 10)},
	}
	if !isPingPong(o.Test) {
		res.Params = append(res.Params, report.Param{Name: "window", Value: strconv.Itoa(o.Window)})
	}
	if o.Duration > 0 {
		res.Params = append(res.Params,
			report.Param{Name: "duration", Value: o.Duration.String()},
			report.Param{Name: "report interval", Value: o.Interval.String()})
	}
	res.Params = append(res.Params, report.Param{Name: "check", Value: strconv.FormatBool(o.Check)})
	lat := func(n string) report.Column {
		return report.Column{Name: n, Kind: report.KindMetric, Unit: "s", Display: "us", Better: report.BetterLower}
	}
	t := report.Table{Name: o.Test, Columns: []report.Column{
		{Name: report.FabBytes, Kind: report.KindLabel},
		{Name: report.FabSent, Kind: report.KindMetric},
		{Name: report.FabAcked, Kind: report.KindMetric},
		{Name: report.FabXfers, Kind: report.KindMetric},
		{Name: report.FabTotal, Kind: report.KindMetric, Unit: "B"},
		{Name: report.FabTime, Kind: report.KindMetric, Unit: "s"},
		{Name: report.FabMBps, Kind: report.KindMetric, Unit: "MB/s", Better: report.BetterHigher},
		lat(report.FabUsec),
		{Name: report.FabMxfers, Kind: report.KindMetric, Better: report.BetterHigher},
		lat(report.FabP50), lat(report.FabP99), lat(report.FabMax),
		{Name: report.FabMinMBps, Kind: report.KindMetric, Unit: "MB/s", Better: report.BetterHigher},
		{Name: report.FabDefects, Kind: report.KindMetric},
	}}
	for i := range rows {
		r := &rows[i]
		row := report.Row{
			Labels: []string{strconv.Itoa(r.Size)},
			Metrics: []float64{float64(r.Sent), float64(r.Acked), float64(r.Xfers), float64(r.Bytes), r.Seconds,
				r.MBps(), r.USecPerXfer() / 1e6, r.MXfersPerSec(), r.P50, r.P99, r.Max, r.MinMBps(), float64(r.Defects)},
		}
		for j, v := range row.Metrics {
			if math.IsInf(v, 0) {
				row.Metrics[j] = math.NaN()
			}
		}
		if len(r.Intervals) > 0 {
			row.Samples = map[string][]float64{report.FabMinMBps: r.Intervals}
		}
		t.Rows = append(t.Rows, row)
		if r.Acked != r.Sent {
			t.Notes = append(t.Notes, fmt.Sprintf("%d bytes: the peer received %d of %d messages", r.Size, r.Acked, r.Sent))
		}
		if r.Defects > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%d bytes: %d messages failed the data check", r.Size, r.Defects))
		}
	}
	res.Tables = []report.Table{t}
	return res
}
