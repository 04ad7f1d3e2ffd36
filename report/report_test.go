package report

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// sampleResult returns a deterministic result with the shapes the engines
// will produce: wireup's phases (display scaling, shared per-rank samples),
// an IOR-like table (two labels, a numeric label last, NaN for a phase not
// run) and an IMB-like table (numeric label, a count column).
func sampleResult() *Result {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := New("wireup")
	r.Run = Run{
		Benchmark: "wireup",
		Command:   []string{"hpcbench", "wireup", "--label", "two words"},
		Version:   "hpcbench 0.1.0 commit 0123456789ab",
		Hostnames: []string{"node01", "node02"},
		Ranks:     4,
		Hosts:     2,
		Start:     start,
		End:       start.Add(1250 * time.Millisecond),
		Env:       map[string]string{"transport": "tcp", "launcher": "hpcbench"},
	}
	r.Params = []Param{
		{Name: "iterations", Value: "3"},
		{Name: "blocksize", Value: "256 MiB"},
	}
	sec := func(name string) Column {
		return Column{Name: name, Kind: KindMetric, Unit: "s", Display: "ms", Better: BetterLower, Source: "rank"}
	}
	r.Tables = []Table{
		{
			Name:    "phases",
			Columns: []Column{{Name: "phase", Kind: KindLabel}, sec("min"), sec("mean"), sec("max")},
			Rows: []Row{
				{Labels: []string{"init"}, Metrics: []float64{0.000812, 0.0010395, 0.001311},
					Samples: map[string][]float64{"rank": {0.000812, 0.000934, 0.0011, 0.001311}}},
				{Labels: []string{"put"}, Metrics: []float64{0.0000021, 0.000003, 0.0000042},
					Samples: map[string][]float64{"rank": {0.0000021, 0.0000024, 0.0000032, 0.0000042}}},
				{Labels: []string{"barrier"}, Metrics: []float64{0.0123, 0.0150125, 0.019001}},
				{Labels: []string{"get"}, Metrics: []float64{0.00005, 0.000061, 0.00007}},
				{Labels: []string{"finalize"}, Metrics: []float64{0.0002, 0.00025, 0.0003}},
			},
		},
		{
			Name: "results",
			Columns: []Column{
				{Name: "access", Kind: KindLabel},
				{Name: "bw", Kind: KindMetric, Unit: "MiB/s", Better: BetterHigher},
				{Name: "IOPS", Kind: KindMetric, Unit: "ops/s", Better: BetterHigher},
				{Name: "latency", Kind: KindMetric, Unit: "s", Better: BetterLower},
				{Name: "block", Kind: KindMetric, Unit: "B", Display: "KiB"},
				{Name: "total", Kind: KindMetric, Unit: "s", Better: BetterLower},
				{Name: "iter", Kind: KindLabel},
			},
			Rows: []Row{
				{Labels: []string{"write", "0"}, Metrics: []float64{165.05, 165.06, 0.012102, 268435456, 3.1},
					Samples: map[string][]float64{"total": {3.09, 3.1}}},
				{Labels: []string{"read", "0"}, Metrics: []float64{1998.83, 1999.45, 0.00099, 268435456, 0.25615}},
				{Labels: []string{"write", "1"}, Metrics: []float64{math.NaN(), math.NaN(), math.NaN(), 268435456, math.NaN()}},
			},
		},
		{
			Name: "PingPong",
			Columns: []Column{
				{Name: "#bytes", Kind: KindLabel},
				{Name: "#repetitions", Kind: KindMetric},
				{Name: "t", Kind: KindMetric, Unit: "s", Display: "us", Better: BetterLower},
				{Name: "Mbytes/sec", Kind: KindMetric, Unit: "MB/s", Better: BetterHigher},
			},
			Rows: []Row{
				{Labels: []string{"0"}, Metrics: []float64{1000, 0.00000021, 0}},
				{Labels: []string{"1024"}, Metrics: []float64{1000, 0.00000063, 1625.4}},
				{Labels: []string{"4194304"}, Metrics: []float64{10, 0.000812, 5165.38}},
			},
		},
	}
	return r
}

// golden compares got with testdata/<test name>.golden, or rewrites it with
// -update. A missing golden file means "expect empty". On a mismatch the
// output is written next to the golden file as .got for diffing.
func golden(t *testing.T, got []byte) {
	t.Helper()
	goldenAt(t, filepath.Join("testdata", t.Name()+".golden"), got)
}

// goldenAt compares got with the golden file at path, or rewrites it with
// -update; on a mismatch it writes the output next to it, as PATH.got.
func goldenAt(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("updating golden file: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reading golden file: %v", err)
	}
	if !bytes.Equal(got, want) {
		gotPath := strings.TrimSuffix(path, ".golden") + ".got"
		_ = os.WriteFile(gotPath, got, 0o644)
		t.Errorf("output differs from %s (got written to %s; rerun with -update to accept):\n%s", path, gotPath, got)
	}
}

// tableNamed returns r's table named name.
func tableNamed(r *Result, name string) *Table {
	for i := range r.Tables {
		if r.Tables[i].Name == name {
			return &r.Tables[i]
		}
	}
	panic("no table " + name)
}

// errFailWriter is the error failWriter returns.
var errFailWriter = errors.New("disk full")

// failWriter accepts n bytes, then fails every write.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	n := w.n
	w.n = 0
	return n, errFailWriter
}

// formatWriter is one of a benchmark's writers and the suffix of its golden
// files.
type formatWriter struct {
	suffix string
	write  func(io.Writer, *Result) error
}

// badResult is a result the writers must check: mod breaks a good run (nil
// mod: a nil result); the writers named (by suffix without ".golden") must
// fail with an error containing want and write nothing, the others must
// succeed.
type badResult struct {
	name    string
	mod     func(*Result)
	writers []string
	want    string
}

// checkBadResults runs every case through every writer, with good making
// the run each case breaks, then checks that every writer returns the
// error of an io.Writer that fails.
func checkBadResults(t *testing.T, writers []formatWriter, good func() *Result, cases []badResult) {
	t.Helper()
	for _, c := range cases {
		for _, w := range writers {
			name := strings.TrimSuffix(w.suffix, ".golden")
			var r *Result
			if c.mod != nil {
				r = good()
				c.mod(r)
			}
			var b bytes.Buffer
			err := w.write(&b, r)
			if !slices.Contains(c.writers, name) {
				if err != nil {
					t.Errorf("%s: %s: unexpected error %v", c.name, name, err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %s: error %v, want %q", c.name, name, err, c.want)
			}
			if b.Len() != 0 {
				t.Errorf("%s: %s: wrote %d bytes on error", c.name, name, b.Len())
			}
		}
	}
	for _, w := range writers {
		if err := w.write(&failWriter{n: 10}, good()); !errors.Is(err, errFailWriter) {
			t.Errorf("%s: write error %v, want %v", w.suffix, err, errFailWriter)
		}
	}
}
