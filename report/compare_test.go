package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// compareResult returns a one-table result of benchmark "synthetic" whose
// row op=x has a metric "t" of the given direction with samples vals (or,
// with asValue, vals[0] as its one value and no samples).
func compareResult(better Better, asValue bool, vals ...float64) *Result {
	r := New("synthetic")
	r.Params = []Param{{Name: "size", Value: "1 MiB"}}
	row := Row{Labels: []string{"x"}, Metrics: []float64{Summarize(vals).Mean}}
	if asValue {
		row.Metrics[0] = vals[0]
	} else {
		row.Samples = map[string][]float64{"t": vals}
	}
	r.Tables = []Table{{Name: "ops", Columns: []Column{
		{Name: "op", Kind: KindLabel},
		{Name: "t", Kind: KindMetric, Unit: "s", Better: better},
	}, Rows: []Row{row}}}
	return r
}

// scaled returns vals times f.
func scaled(vals []float64, f float64) []float64 {
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = v * f
	}
	return out
}

// noisy is ten figures around 1 with a few percent of spread.
var noisy = []float64{1.00, 1.03, 0.98, 1.01, 0.97, 1.02, 0.99, 1.04, 0.96, 1.00}

// noisyAgain is another ten figures from the same spread.
var noisyAgain = []float64{0.99, 1.02, 1.00, 0.97, 1.03, 0.98, 1.01, 1.00, 1.04, 0.96}

func inputs(rs ...*Result) []CompareInput {
	out := make([]CompareInput, len(rs))
	for i, r := range rs {
		out[i] = CompareInput{File: "f" + string(rune('0'+i)) + ".json", Result: r}
	}
	return out
}

func TestCompareVerdicts(t *testing.T) {
	opt := CompareOptions{Alpha: 0.05, Threshold: 0.05}
	tests := []struct {
		name      string
		old, new  []*Result
		opt       CompareOptions
		verdict   Verdict
		fails     bool
		deltaNear float64 // expected relative change of the median, NaN to skip
	}{
		{"slower is a regression", []*Result{compareResult(BetterLower, false, noisy...)},
			[]*Result{compareResult(BetterLower, false, scaled(noisy, 1.2)...)}, opt, VerdictRegression, true, 0.2},
		{"lower bandwidth is a regression", []*Result{compareResult(BetterHigher, false, noisy...)},
			[]*Result{compareResult(BetterHigher, false, scaled(noisy, 0.8)...)}, opt, VerdictRegression, true, -0.2},
		{"faster is an improvement", []*Result{compareResult(BetterLower, false, noisy...)},
			[]*Result{compareResult(BetterLower, false, scaled(noisy, 0.8)...)}, opt, VerdictImprovement, false, -0.2},
		{"same spread is noise", []*Result{compareResult(BetterLower, false, noisy...)},
			[]*Result{compareResult(BetterLower, false, noisyAgain...)}, opt, VerdictNoise, false, 0},
		{"identical runs are noise", []*Result{compareResult(BetterLower, false, noisy...)},
			[]*Result{compareResult(BetterLower, false, noisy...)}, opt, VerdictNoise, false, 0},
		{"regression within the threshold passes", []*Result{compareResult(BetterLower, false, noisy...)},
			[]*Result{compareResult(BetterLower, false, scaled(noisy, 1.2)...)}, CompareOptions{Alpha: 0.05, Threshold: 0.25},
			VerdictRegression, false, 0.2},
		{"unknown direction never fails", []*Result{compareResult("", false, noisy...)},
			[]*Result{compareResult("", false, scaled(noisy, 1.5)...)}, opt, VerdictChanged, false, 0.5},
		{"three samples a side are too few", []*Result{compareResult(BetterLower, false, 1, 1.01, 0.99)},
			[]*Result{compareResult(BetterLower, false, 2, 2.01, 1.99)}, opt, VerdictTooFew, false, 1},
		{"one value per archive is too few", []*Result{compareResult(BetterLower, true, 1)},
			[]*Result{compareResult(BetterLower, true, 2)}, opt, VerdictTooFew, false, 1},
		{"values of pooled archives are samples", []*Result{
			compareResult(BetterLower, true, 1), compareResult(BetterLower, true, 1.01), compareResult(BetterLower, true, 0.99),
			compareResult(BetterLower, true, 1.02), compareResult(BetterLower, true, 0.98)}, []*Result{
			compareResult(BetterLower, true, 2), compareResult(BetterLower, true, 2.01), compareResult(BetterLower, true, 1.99),
			compareResult(BetterLower, true, 2.02), compareResult(BetterLower, true, 1.98)}, opt, VerdictRegression, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compare(inputs(tc.old...), inputs(tc.new...), tc.opt)
			if err != nil {
				t.Fatalf("Compare: %v", err)
			}
			if len(c.Groups) != 1 || len(c.Groups[0].Metrics) != 1 {
				t.Fatalf("want one group with one metric, got %+v", c.Groups)
			}
			m := c.Groups[0].Metrics[0]
			if m.Verdict != tc.verdict || m.Fails != tc.fails {
				t.Errorf("verdict %q fails %v, want %q fails %v (p=%v delta=%v)", m.Verdict, m.Fails, tc.verdict, tc.fails, m.P, m.Delta)
			}
			if math.Abs(m.Delta-tc.deltaNear) > 0.011 {
				t.Errorf("delta %v, want about %v", m.Delta, tc.deltaNear)
			}
			if got := len(c.Failures()); got != map[bool]int{false: 0, true: 1}[tc.fails] {
				t.Errorf("Failures: %d", got)
			}
			// Ten samples a side give the medians finite 95% intervals.
			if m.Old.N >= 10 && m.New.N >= 10 && m.Verdict != VerdictNoise {
				if !(m.DeltaLo <= m.Delta && m.Delta <= m.DeltaHi) {
					t.Errorf("delta %v outside its interval [%v, %v]", m.Delta, m.DeltaLo, m.DeltaHi)
				}
			}
		})
	}
}

// TestCompareSharedSource: columns that summarise one set of samples are
// compared once, as those samples, named after them; a column without
// samples in a row compares its values.
func TestCompareSharedSource(t *testing.T) {
	mk := func(f float64) *Result {
		r := New("wireup")
		col := func(name string) Column {
			return Column{Name: name, Kind: KindMetric, Unit: "s", Display: "ms", Better: BetterLower, Source: "rank"}
		}
		s := Summarize(scaled(noisy, f))
		r.Tables = []Table{{Name: "phases", Columns: []Column{{Name: "phase", Kind: KindLabel}, col("min"), col("mean"), col("max")},
			Rows: []Row{
				{Labels: []string{"put"}, Metrics: []float64{s.Min, s.Mean, s.Max}, Samples: map[string][]float64{"rank": scaled(noisy, f)}},
				{Labels: []string{"get"}, Metrics: []float64{s.Min, s.Mean, s.Max}},
			}}}
		return r
	}
	c, err := Compare(inputs(mk(1)), inputs(mk(1.3)), CompareOptions{Alpha: 0.05, Threshold: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range c.Groups[0].Metrics {
		got = append(got, m.Row+" "+m.Metric+" "+string(m.Verdict))
	}
	want := []string{"phase=put rank regression", "phase=get min too few samples",
		"phase=get mean too few samples", "phase=get max too few samples"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("metrics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCompareOneSide(t *testing.T) {
	old := compareResult(BetterLower, false, noisy...)
	new := compareResult(BetterLower, false, noisy...)
	new.Tables[0].Rows[0].Labels = []string{"y"}
	other := New("other")
	c, err := Compare(inputs(old), inputs(new, other), CompareOptions{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Groups) != 2 {
		t.Fatalf("groups %+v", c.Groups)
	}
	var got []string
	for _, m := range c.Groups[0].Metrics {
		got = append(got, m.Row+" "+string(m.Verdict))
	}
	if strings.Join(got, ",") != "op=x old only,op=y new only" {
		t.Errorf("metrics %v", got)
	}
	if g := c.Groups[1]; g.Benchmark != "other" || len(g.Old) != 0 || len(g.New) != 1 {
		t.Errorf("second group %+v, want other only in new", g)
	}
}

func TestCompareErrors(t *testing.T) {
	base := func() *Result { return compareResult(BetterLower, false, noisy...) }
	params := base()
	params.Params = []Param{{Name: "size", Value: "4 MiB"}}
	extra := base()
	extra.Params = append(extra.Params, Param{Name: "sync", Value: "on"})
	unit := base()
	unit.Tables[0].Columns[1].Unit = "ms"
	better := base()
	better.Tables[0].Columns[1].Better = BetterHigher
	tests := []struct {
		name     string
		old, new []*Result
		opt      CompareOptions
		want     string
	}{
		{"parameters", []*Result{base()}, []*Result{params}, CompareOptions{Alpha: 0.05},
			`f0.json: param "size" = "4 MiB", but f0.json has param "size" = "1 MiB"`},
		{"a parameter more", []*Result{base()}, []*Result{extra}, CompareOptions{Alpha: 0.05},
			`f0.json: param "sync" = "on", but f0.json has no param "sync"`},
		{"unit", []*Result{base()}, []*Result{unit}, CompareOptions{Alpha: 0.05},
			`f0.json: table "ops" column "t": unit "ms", but f0.json has "s"`},
		{"unit within a side", []*Result{base(), unit}, []*Result{base()}, CompareOptions{Alpha: 0.05},
			`f1.json: table "ops" column "t": unit "ms", but f0.json has "s"`},
		{"better", []*Result{base()}, []*Result{better}, CompareOptions{Alpha: 0.05},
			`f0.json: table "ops" column "t": better "higher", but f0.json has "lower"`},
		{"no common benchmark", []*Result{base()}, []*Result{New("other")}, CompareOptions{Alpha: 0.05},
			`f0.json: benchmark "other", but no old archive has it (f0.json has "synthetic"): nothing to compare`},
		{"an empty side", []*Result{base()}, nil, CompareOptions{Alpha: 0.05},
			"want at least one archive on each side, got 1 old and 0 new"},
		{"alpha", []*Result{base()}, []*Result{base()}, CompareOptions{Alpha: 1}, "alpha 1: want a number in (0, 1)"},
		{"threshold", []*Result{base()}, []*Result{base()}, CompareOptions{Alpha: 0.05, Threshold: -1},
			"threshold -1: want a finite fraction >= 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compare(inputs(tc.old...), inputs(tc.new...), tc.opt)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %s", err, tc.want)
			}
		})
	}
}

// TestWriteCompare checks the three views of one comparison that has every
// verdict: the JSON decodes, the CSV has one record per metric, and the
// human view names the failure.
func TestWriteCompare(t *testing.T) {
	old := compareResult(BetterLower, false, noisy...)
	new := compareResult(BetterLower, false, scaled(noisy, 1.2)...)
	c, err := Compare(inputs(old), inputs(new), CompareOptions{Alpha: 0.05, Threshold: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var text, csv, js bytes.Buffer
	for _, w := range []struct {
		b *bytes.Buffer
		f Format
	}{{&text, FormatText}, {&csv, FormatCSV}, {&js, FormatJSON}} {
		if err := WriteCompare(w.b, c, w.f, 0); err != nil {
			t.Fatalf("WriteCompare %v: %v", w.f, err)
		}
	}
	if !strings.Contains(text.String(), "1 significant regression(s) beyond 5%:\n  ops op=x t: +20.00%") {
		t.Errorf("human view:\n%s", text.String())
	}
	if lines := strings.Count(csv.String(), "\n"); lines != 2 {
		t.Errorf("CSV has %d lines, want a header and one record:\n%s", lines, csv.String())
	}
	var back struct {
		Groups []struct {
			Metrics []struct {
				Verdict string   `json:"verdict"`
				Fails   bool     `json:"fails"`
				Delta   *float64 `json:"delta"`
			} `json:"metrics"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("JSON view does not decode: %v\n%s", err, js.String())
	}
	if m := back.Groups[0].Metrics[0]; m.Verdict != "regression" || !m.Fails || m.Delta == nil || math.Abs(*m.Delta-0.2) > 0.01 {
		t.Errorf("JSON metric %+v", m)
	}
}

// TestCompareIncidentalParams: runs that differ only in an incidental
// parameter (the test file's name) pool together; a measured one still
// refuses.
func TestCompareIncidentalParams(t *testing.T) {
	build := func(file, xfer string) []CompareInput {
		r := New("ior")
		r.Params = []Param{{Name: "testFileName", Value: file, Incidental: true}, {Name: "xfer", Value: xfer}}
		r.Tables = []Table{{Name: "t", Columns: []Column{{Name: "bw", Kind: KindMetric, Unit: "MiB/s", Better: BetterHigher}},
			Rows: []Row{{Labels: []string{}, Metrics: []float64{1}}}}}
		return []CompareInput{{File: file, Result: r}}
	}
	if _, err := Compare(build("/a/f", "1m"), build("/b/f", "1m"), CompareOptions{Alpha: 0.05, Threshold: 0.05}); err != nil {
		t.Errorf("different test files: %v", err)
	}
	_, err := Compare(build("/a/f", "1m"), build("/b/f", "4m"), CompareOptions{Alpha: 0.05, Threshold: 0.05})
	if err == nil || !strings.Contains(err.Error(), `param "xfer"`) || strings.Contains(err.Error(), "testFileName") {
		t.Errorf("different transfer sizes: %v, want the xfer mismatch named, not the file", err)
	}
}

// TestComparePoolsIterations: a metric of rows that differ only in their
// repetition label (IOR's "iter", mdtest's "iteration") is one sample set
// of a value per repetition, keyed without that label; other labels
// still tell rows apart, and a side's archives add to the same sets.
func TestComparePoolsIterations(t *testing.T) {
	mk := func(iterLabel string, scale float64, n int) *Result {
		r := New("ior")
		r.Tables = []Table{{Name: "results", Columns: []Column{
			{Name: "access", Kind: KindLabel}, {Name: iterLabel, Kind: KindLabel},
			{Name: "bw", Kind: KindMetric, Unit: "MiB/s", Better: BetterHigher},
		}}}
		for i := range n {
			for _, access := range []string{"write", "read"} {
				r.Tables[0].Rows = append(r.Tables[0].Rows,
					Row{Labels: []string{access, strconv.Itoa(i)}, Metrics: []float64{noisy[i] * scale}})
			}
		}
		return r
	}
	tests := []struct {
		name     string
		old, new []*Result
		want     []string // row, n, verdict of each metric
	}{
		{"IOR's iterations", []*Result{mk("iter", 1, 5)}, []*Result{mk("iter", 0.5, 5)},
			[]string{"access=write 5+5 regression", "access=read 5+5 regression"}},
		{"mdtest's iterations", []*Result{mk("iteration", 1, 3)}, []*Result{mk("iteration", 1, 3)},
			[]string{"access=write 3+3 too few samples", "access=read 3+3 too few samples"}},
		{"iterations of two archives", []*Result{mk("iter", 1, 2), mk("iter", 1, 3)}, []*Result{mk("iter", 2, 4)},
			[]string{"access=write 5+4 improvement", "access=read 5+4 improvement"}},
		{"another label is not pooled", []*Result{mk("rep", 1, 2)}, []*Result{mk("rep", 1, 2)},
			[]string{"access=write rep=0 1+1 too few samples", "access=read rep=0 1+1 too few samples",
				"access=write rep=1 1+1 too few samples", "access=read rep=1 1+1 too few samples"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compare(inputs(tc.old...), inputs(tc.new...), CompareOptions{Alpha: 0.05, Threshold: 0.05})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range c.Groups[0].Metrics {
				got = append(got, fmt.Sprintf("%s %d+%d %s", m.Row, m.Old.N, m.New.N, m.Verdict))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("metrics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
