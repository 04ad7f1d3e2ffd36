package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

var phaseCol = []Column{{Name: "phase", Kind: KindLabel}}

func TestRankTables(t *testing.T) {
	u := RankUnits{Amount: Column{Name: "bytes", Unit: "B", Display: "MiB"}, Rate: Column{Name: "bw", Unit: "MiB/s"}, Scale: 1 << 20}
	sets := []RankSet{
		{Labels: []string{"write"}, Name: "write", Hosts: []string{"a", "a", "b", "b"},
			Amount: []float64{1 << 20, 1 << 20, 1 << 20, 1 << 20}, Done: []float64{1, 1.25, 1.5, 2}},
		{Labels: []string{"read"}, Name: "read", Hosts: []string{"a"}, Amount: []float64{1 << 20}, Done: []float64{0.5}},
	}
	ranks, hosts := RankTables("ranks", "hosts", phaseCol, u, sets)
	if len(ranks.Rows) != 5 || len(hosts.Rows) != 3 {
		t.Fatalf("%d rank rows, %d host rows", len(ranks.Rows), len(hosts.Rows))
	}
	if r := ranks.Rows[3]; strings.Join(r.Labels, " ") != "write 3 b" || r.Metrics[2] != 0.5 {
		t.Errorf("rank 3 row %+v", r)
	}
	if r := hosts.Rows[1]; strings.Join(r.Labels, " ") != "write b" || r.Metrics[0] != 2 || r.Metrics[2] != 1.5 || r.Metrics[3] != 2 || r.Metrics[4] != 1 {
		t.Errorf("host b row %+v", r)
	}
	want := "write: straggler rank 3 on b, done at 2.000 s, 1.000 s (100%) after the fastest, rank 0 on a at 1.000 s; slowest host b, last done at 2.000 s, 750.000 ms (60%) after host a."
	if len(ranks.Stragglers) != 1 || ranks.Stragglers[0] != want {
		t.Errorf("notes %q, want [%q] (a single rank has no straggler)", ranks.Stragglers, want)
	}
	res := New("test")
	res.Tables = []Table{ranks, hosts}
	var b bytes.Buffer
	if err := WriteText(&b, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n"+want+"\n") {
		t.Errorf("the text view does not print the note:\n%s", b.String())
	}
	if err := res.Validate(); err != nil {
		t.Error(err)
	}
}

func TestSeriesAndLatencyTables(t *testing.T) {
	s := SeriesTable("series", phaseCol, Column{Name: "bw", Unit: "MiB/s"}, 1<<20,
		[]TimeSeries{{Labels: []string{"write"}, Interval: 1, Amount: []float64{4 << 20, 2 << 20, 1 << 20}, End: 2.5}})
	if s.Columns[1].Name != "elapsed" || s.Columns[1].Unit != "s" || s.Columns[2].Better != BetterHigher {
		t.Fatalf("columns %+v do not follow plot's time-series convention", s.Columns)
	}
	want := [][2]float64{{1, 4}, {2, 2}, {2.5, 2}}
	for i, r := range s.Rows {
		if r.Metrics[0] != want[i][0] || r.Metrics[1] != want[i][1] {
			t.Errorf("row %d: %v, want %v", i, r.Metrics, want[i])
		}
	}
	l := LatencyTable("latency", phaseCol, []Latency{{Labels: []string{"write"}, Ops: 10, P50: 1e-6, P90: 2e-6, P99: 3e-6, Max: math.NaN()}})
	if len(l.Columns) != 6 || l.Columns[5].Better != BetterLower || l.Rows[0].Metrics[0] != 10 {
		t.Fatalf("latency table %+v", l)
	}
	res := New("test")
	res.Tables = []Table{s, l}
	if err := res.Validate(); err != nil {
		t.Error(err)
	}
}

// TestDetailTablesLeftOutOfCompare: per-rank and per-interval figures
// differ from run to run by nature; compare must not gate on them.
func TestDetailTablesLeftOutOfCompare(t *testing.T) {
	build := func(rate float64) []CompareInput {
		r := New("test")
		s := SeriesTable("series", phaseCol, Column{Name: "bw", Unit: "MiB/s"}, 1,
			[]TimeSeries{{Labels: []string{"write"}, Interval: 1, Amount: []float64{rate, rate}, End: 2}})
		l := LatencyTable("latency", phaseCol, []Latency{{Labels: []string{"write"}, Ops: 1, P50: 1, P90: 1, P99: 1, Max: 1}})
		r.Tables = []Table{s, l}
		return []CompareInput{{File: "f", Result: r}}
	}
	pools, err := poolSide(build(100))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range pools[0].order {
		if k.table == "series" {
			t.Errorf("compare pooled %+v of a detail table", k)
		}
	}
	if len(pools[0].order) == 0 {
		t.Error("compare left out the latency table too")
	}
}

// TestStragglerThreshold: a slowest rank within StragglerLag of the
// fastest is no straggler and gets no note.
func TestStragglerThreshold(t *testing.T) {
	u := RankUnits{Amount: Column{Name: "items"}, Rate: Column{Name: "rate", Unit: "ops/s"}, Scale: 1}
	for _, tc := range []struct {
		done    []float64
		note    bool
		amount  []float64
		unshown bool
	}{
		{[]float64{2, 1}, false, nil, true},              // a phase the views leave out
		{[]float64{0.01, 0.0109}, false, nil, false},     // 9% late
		{[]float64{0.01, 0.05}, false, nil, false},       // 400% but 40 ms: noise, not news
		{[]float64{2, 1}, false, []float64{1, 0}, false}, // the fast rank did nothing
		{[]float64{1, 1.09}, false, nil, false},
		{[]float64{1, 1.1}, true, nil, false},
		{[]float64{2, 1}, true, nil, false},
		{[]float64{0, 0}, false, nil, false},
		{[]float64{1, 1}, false, nil, false},
	} {
		amount := tc.amount
		if amount == nil {
			amount = []float64{1, 1}
		}
		ranks, _ := RankTables("ranks", "hosts", phaseCol, u, []RankSet{{Labels: []string{"create"}, Name: "create",
			Hosts: []string{"a", "a"}, Amount: amount, Done: tc.done, Unshown: tc.unshown}})
		if len(ranks.Rows) != 2 {
			t.Errorf("done %v: %d rows, want 2 (the archive keeps every phase)", tc.done, len(ranks.Rows))
		}
		if got := len(ranks.Stragglers) == 1; got != tc.note {
			t.Errorf("done %v: notes %q, want a note %v", tc.done, ranks.Stragglers, tc.note)
		}
	}
}

// TestNotesTrailer: the benchmarks' own human layouts end with the notes
// of their tables under "Notes:", and are unchanged without any.
func TestNotesTrailer(t *testing.T) {
	for name, r := range viewFixtures() {
		if name == BenchmarkWireup {
			continue
		}
		var plain bytes.Buffer
		if err := Render(&plain, r, ViewHuman); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		noted := *r
		noted.Tables = append(append([]Table(nil), r.Tables...), Table{Name: "notes test", Dist: DistRanks,
			Columns: []Column{{Name: "x", Kind: KindMetric}}, Notes: []string{"write: straggler rank 1 on b."}})
		var b bytes.Buffer
		if err := Render(&b, &noted, ViewHuman); err != nil {
			t.Fatalf("%s with a note: %v", name, err)
		}
		if !strings.Contains(b.String(), "\nNotes:\nwrite: straggler rank 1 on b.\n") {
			t.Errorf("%s: no notes trailer:\n%s", name, b.String())
		}
		if strings.Contains(plain.String(), "Notes:") {
			t.Errorf("%s: a trailer without notes", name)
		}
		if b.Len()-plain.Len() != len("\nNotes:\nwrite: straggler rank 1 on b.\n") {
			t.Errorf("%s: the note changed more than the trailer", name)
		}
	}
}

// TestWriteTextDist is the "tables" view of the four distribution
// tables with their notes: testdata/TestWriteTextDist.golden.
func TestWriteTextDist(t *testing.T) {
	labels := []Column{{Name: "access", Kind: KindLabel}, {Name: "iter", Kind: KindLabel}}
	u := RankUnits{Amount: Column{Name: "bytes", Unit: "B", Display: "MiB"}, Rate: Column{Name: "bw", Unit: "MiB/s"}, Scale: 1 << 20}
	r := New("ior")
	r.Run.Ranks, r.Run.Hosts, r.Run.Hostnames = 3, 2, []string{"n1", "n2"}
	lat := LatencyTable("ior latency", labels, []Latency{{Labels: []string{"write", "0"}, Ops: 3000, P50: 250e-6, P90: 410e-6, P99: 2.5e-3, Max: 31e-3}})
	series := SeriesTable("ior series", labels, Column{Name: "bw", Unit: "MiB/s"}, 1<<20,
		[]TimeSeries{{Labels: []string{"write", "0"}, Interval: 1, Amount: []float64{900 << 20, 1000 << 20, 100 << 20}, End: 2.25}})
	series.Notes = []string{"write, iteration 0: ran to its end; --until-steady=2s,5% never saw every 1s interval of a 2s window within 5% of their mean"}
	ranks, hosts := RankTables("ior ranks", "ior hosts", labels, u, []RankSet{{Labels: []string{"write", "0"}, Name: "write, iteration 0",
		Hosts: []string{"n1", "n1", "n2"}, Amount: []float64{700 << 20, 700 << 20, 600 << 20}, Done: []float64{1.5, 1.6, 2.25}}})
	r.Tables = []Table{lat, series, ranks, hosts}
	var b bytes.Buffer
	if err := Render(&b, r, ViewTables); err != nil {
		t.Fatal(err)
	}
	golden(t, b.Bytes())
}

// TestStragglerIdleHost: a host whose ranks did nothing is neither the
// fastest nor the slowest host of the note.
func TestStragglerIdleHost(t *testing.T) {
	u := RankUnits{Amount: Column{Name: "items"}, Rate: Column{Name: "rate", Unit: "ops/s"}, Scale: 1}
	ranks, _ := RankTables("ranks", "hosts", phaseCol, u, []RankSet{{Labels: []string{"create"}, Name: "create",
		Hosts: []string{"a", "a", "idle"}, Amount: []float64{1, 1, 0}, Done: []float64{1, 2, 0}}})
	if len(ranks.Stragglers) != 1 || strings.Contains(ranks.Stragglers[0], "idle") || strings.Contains(ranks.Stragglers[0], "slowest host") {
		t.Errorf("notes %q: want the straggler on a, with no host comparison (one busy host)", ranks.Stragglers)
	}
}

// TestSeriesTail: a last interval shorter than half an interval is merged
// into the one before it, its rate over both; a longer one keeps its row.
// The case: 1 MiB transfers of 20 ms on 2 ranks, 100 ms intervals,
// and a phase that ends 2.5 ms into its last interval with one transfer
// in it (alone, 800 MiB/s against 100).
func TestSeriesTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		amount []float64
		iv     float64
		end    float64
		want   [][2]float64 // elapsed, rate
	}{
		{"short tail", []float64{10, 10, 1}, 0.1, 0.2025, [][2]float64{{0.1, 100}, {0.2025, 11 / 0.1025}}},
		{"half an interval", []float64{10, 10, 5}, 0.1, 0.25, [][2]float64{{0.1, 100}, {0.2, 100}, {0.25, 100}}},
		{"whole intervals", []float64{10, 10}, 0.1, 0.2, [][2]float64{{0.1, 100}, {0.2, 100}}},
		{"one short interval", []float64{1}, 0.1, 0.01, [][2]float64{{0.01, 100}}},
		{"end past the intervals", []float64{10, 10}, 0.1, 0.3, [][2]float64{{0.1, 100}, {0.2, 100}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := SeriesTable("series", phaseCol, Column{Name: "bw", Unit: "MiB/s"}, 1,
				[]TimeSeries{{Labels: []string{"write"}, Interval: tc.iv, Amount: tc.amount, End: tc.end}})
			var got [][2]float64
			for _, r := range s.Rows {
				got = append(got, [2]float64{r.Metrics[0], r.Metrics[1]})
			}
			if len(got) != len(tc.want) {
				t.Fatalf("rows %v, want %v", got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i][0]-tc.want[i][0]) > 1e-9 || math.Abs(got[i][1]-tc.want[i][1]) > 1e-9*tc.want[i][1] {
					t.Errorf("rows %v, want %v", got, tc.want)
					break
				}
			}
		})
	}
}
