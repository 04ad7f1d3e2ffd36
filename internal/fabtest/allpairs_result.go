package fabtest

import (
	"math"
	"strconv"

	"github.com/hpcbench/hpcbench/report"
)

// The names of an all-pairs run's tables.
const (
	AllPairsTable = "allpairs"
	LatencyMatrix = "mean latency matrix" // half a round trip, averaged over -I
	BWMatrix      = "bandwidth matrix"
)

// AllPairsResult returns an all-pairs run's result: a row per pair
// (latency mean and p99, bandwidth) with the outliers as its notes, and
// the latency and bandwidth matrices, endpoint by endpoint.
func AllPairsResult(o AllPairsOptions, eps []Endpoint, pairs []PairResult) *report.Result {
	res := report.New(report.BenchmarkFabricAllpairs)
	res.Params = []report.Param{
		{Name: "endpoints", Value: strconv.Itoa(len(eps))},
		{Name: "pairs", Value: strconv.Itoa(len(pairs))},
		{Name: "rounds", Value: strconv.Itoa(len(Rounds(len(eps))))},
		{Name: "latency size", Value: strconv.Itoa(o.LatSize)},
		{Name: "latency iterations", Value: strconv.FormatInt(o.LatIters, 10)},
		{Name: "bandwidth size", Value: strconv.Itoa(o.BWSize)},
		{Name: "bandwidth messages", Value: strconv.FormatInt(o.BWIters, 10)},
		{Name: "window", Value: strconv.Itoa(o.Window)},
	}
	us := func(n string) report.Column {
		return report.Column{Name: n, Kind: report.KindMetric, Unit: "s", Display: "us", Better: report.BetterLower}
	}
	mbps := func(n string) report.Column {
		return report.Column{Name: n, Kind: report.KindMetric, Unit: "MB/s", Better: report.BetterHigher}
	}
	t := report.Table{Name: AllPairsTable, Columns: []report.Column{
		{Name: "a", Kind: report.KindLabel}, {Name: "b", Kind: report.KindLabel},
		us("latency mean"), us("latency p99"), mbps("bandwidth"),
	}}
	links := make([]LinkFigures, len(pairs))
	index := map[int]int{}
	for i, e := range eps {
		index[e.Rank] = i
	}
	lat := make([][]float64, len(eps))
	bw := make([][]float64, len(eps))
	for i := range eps {
		lat[i], bw[i] = nanRow(len(eps)), nanRow(len(eps))
	}
	for i, p := range pairs {
		l, b := p.Lat.USecPerXfer()/1e6, p.BW.MBps()
		links[i] = LinkFigures{A: p.A.Name, B: p.B.Name, Lat: l, BW: b}
		t.Rows = append(t.Rows, report.Row{Labels: []string{p.A.Name, p.B.Name}, Metrics: []float64{l, p.Lat.P99, b}})
		a, bb := index[p.A.Rank], index[p.B.Rank]
		lat[a][bb], lat[bb][a] = l, l
		bw[a][bb], bw[bb][a] = b, b
	}
	t.Notes = Outliers(links)
	matrix := func(name string, col func(string) report.Column, m [][]float64) report.Table {
		mt := report.Table{Name: name, Columns: []report.Column{{Name: "endpoint", Kind: report.KindLabel}}}
		for _, e := range eps {
			mt.Columns = append(mt.Columns, col(e.Name))
		}
		for i, e := range eps {
			mt.Rows = append(mt.Rows, report.Row{Labels: []string{e.Name}, Metrics: m[i]})
		}
		return mt
	}
	res.Tables = []report.Table{t, matrix(LatencyMatrix, us, lat), matrix(BWMatrix, mbps, bw)}
	return res
}

func nanRow(n int) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = math.NaN()
	}
	return r
}
