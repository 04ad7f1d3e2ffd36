package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestWriteIO500 renders an IO500 archive as its result_summary.txt: the
// plain reasons, the version, a [RESULT] line per scored phase (blank tag
// for the others), the [SCORE ] line.
func TestWriteIO500(t *testing.T) {
	nan := math.NaN()
	res := New(BenchmarkIO500)
	res.Params = []Param{{Name: "version", Value: "hpcbench-test"}}
	res.Tables = []Table{
		{Name: IO500PhasesTable, Columns: []Column{{Name: "phase", Kind: KindLabel}, {Name: "bw", Kind: KindMetric}, {Name: "md", Kind: KindMetric},
			{Name: "time", Kind: KindMetric}, {Name: "invalid", Kind: KindMetric}, {Name: "scored", Kind: KindMetric}}, Rows: []Row{
			{Labels: []string{"ior-easy-write"}, Metrics: []float64{2.5, nan, 0.25, 2, 1}},
			{Labels: []string{"timestamp"}, Metrics: []float64{nan, nan, 0.0001, 0, 0}},
			{Labels: []string{"find"}, Metrics: []float64{nan, 800.5, 0.011, 0, 1}},
		}},
		{Name: IO500ScoreTable, Columns: []Column{{Name: "run", Kind: KindLabel}, {Name: "bw", Kind: KindMetric}, {Name: "md", Kind: KindMetric},
			{Name: "score", Kind: KindMetric}}, Rows: []Row{{Labels: []string{"io500"}, Metrics: []float64{2.5, 800.5, 44.73}}},
			Notes: []string{IO500InvalidNote + "ior-easy-write: too short.", "another note"}},
	}
	var b bytes.Buffer
	if err := WriteIO500(&b, res); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"This IO500 run is INVALID (it cannot be submitted), because:",
		"  - ior-easy-write: too short.",
		"IO500 version hpcbench-test (standard)",
		"[RESULT]       ior-easy-write        2.500000 GiB/s : time 0.250 seconds [INVALID]",
		"[      ]            timestamp        0.000000 kIOPS : time 0.000 seconds",
		"[RESULT]                 find      800.500000 kIOPS : time 0.011 seconds",
		"[SCORE ] Bandwidth 2.500000 GiB/s : IOPS 800.500000 kiops : TOTAL 44.730000 [INVALID]",
		""}, "\n")
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteIO500(&b, New(BenchmarkIO500)); err != nil || b.Len() != 0 {
		t.Errorf("no phases table: %v %q, want nothing", err, b.String())
	}
}
