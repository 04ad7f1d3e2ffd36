package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// imbResult returns a result shaped as internal/imb builds one: 4 ranks on
// 2 CPUs, PingPong on 2 of them, Sendrecv and Allreduce at 2 and 4,
// Barrier at 4, times in seconds.
func imbResult() *Result {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := New("imb")
	r.Run = Run{
		Benchmark: "imb",
		Command:   []string{"hpcbench", "coll", "-msglog", "0:2", "-iter", "1000", "PingPong", "Sendrecv", "Allreduce", "Barrier"},
		Version:   "hpcbench 0.1.0 commit 0123456789ab",
		Hostnames: []string{"node01"},
		Ranks:     4,
		Hosts:     1,
		Start:     start,
		End:       start.Add(3 * time.Second),
		Env: map[string]string{"machine": "amd64", "system": "linux", "transport": "shm", "cpus": "2",
			EnvOversubscribed: "4 ranks / 2 CPUs"},
	}
	r.Params = []Param{{Name: IMBParamBenchmarks, Value: "PingPong Sendrecv Allreduce Barrier"}, {Name: "msglog", Value: "0:2"}}
	metric := func(name, unit, display string) Column {
		return Column{Name: name, Kind: KindMetric, Unit: unit, Display: display, Source: "rank"}
	}
	bytesCol := Column{Name: "#bytes", Kind: KindLabel}
	reps := Column{Name: "#repetitions", Kind: KindMetric}
	t, tmin, tmax, tavg := metric("t", "s", "us"), metric("t_min", "s", "us"), metric("t_max", "s", "us"), metric("t_avg", "s", "us")
	bw := Column{Name: "Mbytes/sec", Kind: KindMetric, Unit: "MB/s", Better: BetterHigher}
	r.Tables = []Table{
		{Name: IMBTableName("PingPong", 2), Columns: []Column{bytesCol, reps, t, bw}, Rows: []Row{
			{Labels: []string{"0"}, Metrics: []float64{1000, 0.18e-6, 0}},
			{Labels: []string{"1"}, Metrics: []float64{1000, 0.18e-6, 5.47}},
			{Labels: []string{"2"}, Metrics: []float64{1000, 0.185e-6, 10.81}},
			{Labels: []string{"4"}, Metrics: []float64{1000, 12345.678e-6, 0}},
		}},
		{Name: IMBTableName("Sendrecv", 4), Columns: []Column{bytesCol, reps, tmin, tmax, tavg, bw}, Rows: []Row{
			{Labels: []string{"0"}, Metrics: []float64{1000, 0.3e-6, 0.34e-6, 0.32e-6, 0}},
			{Labels: []string{"4"}, Metrics: []float64{1000, 0.31e-6, 0.35e-6, 0.33e-6, 22.86}},
		}},
		{Name: IMBTableName("Allreduce", 2), Columns: []Column{bytesCol, reps, tmin, tmax, tavg,
			{Name: "defects", Kind: KindMetric, Better: BetterLower}}, Rows: []Row{
			{Labels: []string{"0"}, Metrics: []float64{1000, 0.03e-6, 0.04e-6, 0.035e-6, 0}},
			{Labels: []string{"4"}, Metrics: []float64{1000, 0.83e-6, 0.84e-6, 0.835e-6, 0}},
		}},
		{Name: IMBTableName("Allreduce", 3), Columns: []Column{bytesCol, reps, tmin, tmax, tavg,
			{Name: "defects", Kind: KindMetric, Better: BetterLower}}, Rows: []Row{
			{Labels: []string{"0"}, Metrics: []float64{1000, 0.05e-6, 0.06e-6, 0.055e-6, 0}},
			{Labels: []string{"4"}, Metrics: []float64{640, 1.1e-6, 1.3e-6, 1.2e-6, 2}},
		}},
		{Name: IMBTableName("Barrier", 4), Columns: []Column{reps, tmin, tmax, tavg}, Rows: []Row{
			{Metrics: []float64{1000, 7423.1e-6, 7424.9e-6, 7424e-6}},
		}},
	}
	return r
}

func TestWriteIMB(t *testing.T) {
	var b bytes.Buffer
	if err := WriteIMB(&b, imbResult()); err != nil {
		t.Fatalf("WriteIMB: %v", err)
	}
	golden(t, b.Bytes())
}

// TestWriteIMBDistTables: the distribution tables the engine adds after
// IMB's leave IMB's layout as it is, byte for byte (without notes, which
// add a trailer); another table that is
// not IMB's is still refused.
func TestWriteIMBDistTables(t *testing.T) {
	var want, got bytes.Buffer
	if err := WriteIMB(&want, imbResult()); err != nil {
		t.Fatal(err)
	}
	r := imbResult()
	labels := []Column{{Name: "benchmark", Kind: KindLabel}, {Name: "#bytes", Kind: KindLabel}}
	rate := Column{Name: "rate", Unit: "ops/s"}
	ranks, hosts := RankTables("ranks", "hosts", labels, RankUnits{Amount: Column{Name: "repetitions"}, Rate: rate, Scale: 1},
		[]RankSet{{Labels: []string{"PingPong np=2", "0"}, Name: "PingPong np=2 #bytes 0", Hosts: []string{"node01", "node01"},
			Amount: []float64{1000, 1000}, Done: []float64{0.5e-3, 0.5e-3}}}) // no straggler: no note
	r.Tables = append(r.Tables,
		LatencyTable("latency", labels, []Latency{{Labels: []string{"PingPong np=2", "0"}, Ops: 2000, P50: 0.18e-6, P90: 0.2e-6, P99: 0.3e-6, Max: 9e-6}}),
		SeriesTable("series", labels, rate, 1, []TimeSeries{{Labels: []string{"PingPong np=2", "0"}, Interval: 1, Amount: []float64{1000}, End: 0.5e-3}}),
		ranks, hosts)
	if err := WriteIMB(&got, r); err != nil {
		t.Fatalf("WriteIMB with the distribution tables: %v", err)
	}
	if got.String() != want.String() {
		t.Errorf("the distribution tables changed IMB's layout:\n%s", got.String())
	}
	r.Tables = append(r.Tables, Table{Name: "latencies", Columns: labels[:1]})
	if err := WriteIMB(&got, r); err == nil {
		t.Error("a table that is neither IMB's nor a distribution table was accepted")
	}
}

// TestWriteIMBMsglen: user-defined sizes are said so; without a
// benchmarks Param the list comes from the tables; no start, no date.
func TestWriteIMBMsglen(t *testing.T) {
	r := imbResult()
	r.Run.Start, r.Run.End = time.Time{}, time.Time{}
	r.Params = []Param{{Name: IMBParamMsglen, Value: "lens: 0 4"}}
	r.Tables = r.Tables[:1]
	var b bytes.Buffer
	if err := WriteIMB(&b, r); err != nil {
		t.Fatalf("WriteIMB: %v", err)
	}
	out := b.String()
	for _, want := range []string{"# Message lengths were user defined\n", "# List of Benchmarks to run:\n\n# PingPong\n\n#---"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "# Date") || strings.Contains(out, "Minimum message length") {
		t.Errorf("unexpected date or length lines:\n%s", out)
	}
}

// TestWriteIMBLines: IMB's line lengths: the table rule is 13 characters a
// column, minus one for the leading '#'.
func TestWriteIMBLines(t *testing.T) {
	var b bytes.Buffer
	if err := WriteIMB(&b, imbResult()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "# Benchmarking PingPong") {
			if rule := lines[i-1]; len(rule) != 4*13 {
				t.Errorf("PingPong rule is %d characters, want %d", len(rule), 4*13)
			}
			if idle := lines[i+2]; idle != "# ( 2 additional processes waiting in MPI_Barrier)" {
				t.Errorf("PingPong idle line %q", idle)
			}
			if rule := lines[i+3]; rule != lines[i-1] {
				t.Errorf("PingPong second rule %q", rule)
			}
			if head := lines[i+4]; head != "       #bytes #repetitions      t[usec]   Mbytes/sec" {
				t.Errorf("PingPong heading %q", head)
			}
			if row := lines[i+5]; row != "            0         1000         0.18         0.00" {
				t.Errorf("PingPong first row %q", row)
			}
		}
	}
}

func TestWriteIMBRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*Result)
		want string
	}{
		{"bad name", func(r *Result) { r.Tables[0].Name = "PingPong" }, `name is not "BENCHMARK np=N"`},
		{"missing column", func(r *Result) {
			r.Tables[1].Columns = r.Tables[1].Columns[:3]
			for i := range r.Tables[1].Rows {
				r.Tables[1].Rows[i].Metrics = r.Tables[1].Rows[i].Metrics[:2]
			}
		}, `no column "t_max"`},
		{"unit", func(r *Result) { r.Tables[0].Columns[2].Unit, r.Tables[0].Columns[2].Display = "B", "" }, `column "t": unit "B" does not convert to us`},
		{"invalid", func(r *Result) { r.Run.Benchmark = "" }, "run.benchmark: empty, want the name of the benchmark that ran"},
	} {
		r := imbResult()
		c.mod(r)
		var b bytes.Buffer
		err := WriteIMB(&b, r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if b.Len() != 0 {
			t.Errorf("%s: wrote %d bytes on error", c.name, b.Len())
		}
	}
	if err := WriteIMB(&failWriter{n: 10}, imbResult()); !errors.Is(err, errFailWriter) {
		t.Errorf("write error %v, want %v", err, errFailWriter)
	}
}

func TestParseIMBTableName(t *testing.T) {
	for _, c := range []struct {
		in    string
		bench string
		np    int
		ok    bool
	}{
		{"PingPong np=2", "PingPong", 2, true},
		{IMBTableName("Allreduce", 1024), "Allreduce", 1024, true},
		{"PingPong", "", 0, false},
		{" np=2", "", 0, false},
		{"X np=0", "", 0, false},
		{"X np=02", "", 0, false},
		{"X np=-1", "", 0, false},
	} {
		bench, np, ok := ParseIMBTableName(c.in)
		if bench != c.bench || np != c.np || ok != c.ok {
			t.Errorf("ParseIMBTableName(%q) = %q, %d, %v; want %q, %d, %v", c.in, bench, np, ok, c.bench, c.np, c.ok)
		}
	}
}

// TestWriteIMBSkipped: a benchmark the run did not run (IMBSkippedParam)
// is said where IMB says "# !! Benchmark PingPong invalid for 1
// processes !!", after the tables.
func TestWriteIMBSkipped(t *testing.T) {
	r := imbResult()
	r.Params = append(r.Params, Param{Name: IMBSkippedParam, Value: "PingPong needs at least 2 ranks; this job has 1: not run"})
	var b strings.Builder
	if err := WriteIMB(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	line := "\n# !! PingPong needs at least 2 ranks; this job has 1: not run !!\n"
	if !strings.Contains(out, line) || strings.Index(out, line) < strings.LastIndex(out, "#bytes") {
		t.Errorf("no %q after the tables in:\n%s", line, out)
	}
}
