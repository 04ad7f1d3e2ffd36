package plot

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/report"
)

// io500Archive is an IO500 run with an ior phase, an mdtest phase and a
// phase that scored 0 (left off the chart).
func io500Archive() *report.Result {
	r := report.New(report.BenchmarkIO500)
	nan := math.NaN()
	r.Tables = []report.Table{{Name: report.IO500PhasesTable, Columns: []report.Column{
		{Name: "phase", Kind: report.KindLabel},
		{Name: "bw", Kind: report.KindMetric, Unit: "GiB/s"},
		{Name: "md", Kind: report.KindMetric, Unit: "kIOPS"},
		{Name: "time", Kind: report.KindMetric, Unit: "s"},
	}, Rows: []report.Row{
		{Labels: []string{"ior-easy-write"}, Metrics: []float64{2.5, nan, 300}},
		{Labels: []string{"mdtest-easy-write"}, Metrics: []float64{nan, 80, 300}},
		{Labels: []string{"find"}, Metrics: []float64{nan, 0, 1}},
	}}}
	return r
}

func TestIO500Chart(t *testing.T) {
	c, err := Select([]Archive{{"a.json", io500Archive()}, {"b.json", io500Archive()}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != KindPhase || !slices.Equal(c.Categories, []string{"ior-easy-write", "mdtest-easy-write"}) || len(c.Series) != 2 {
		t.Fatalf("chart %s %v, %d series; want the two phases that scored, twice", c.Kind, c.Categories, len(c.Series))
	}
	if p := c.Series[0].Points; len(p) != 2 || p[0].Y != 2.5 || p[1].Y != 80 {
		t.Errorf("points %+v, want 2.5 and 80", p)
	}
	empty := report.New(report.BenchmarkIO500)
	if _, err := Select([]Archive{{"e.json", empty}}, Options{}); err == nil || !strings.Contains(err.Error(), `e.json: no phase with a score`) {
		t.Errorf("empty archive: %v", err)
	}
}
