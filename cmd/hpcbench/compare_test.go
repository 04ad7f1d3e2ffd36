package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/report"
)

// compareDir holds compare's test archives and golden outputs.
const compareDir = "testdata/compare"

// oldBuildArchive is an archive as the build before compare existed wrote
// it (hpcbench launch -n 2 -- hpcbench coll -iter 10 -time 1 PingPong
// --output F.json); it is kept as it is, never regenerated, so that later
// additions to the schema must keep reading it.
const oldBuildArchive = compareDir + "/old-build-pingpong.json"

// draws returns n figures around center with a relative spread of 3%,
// the same for the same seed.
func draws(seed uint64, n int, center float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		out[i] = center * (1 + 0.03*rng.NormFloat64())
	}
	return out
}

// synthetic returns a result of the benchmark "synthetic" with the given
// size parameter and tables: "bandwidth" (MiB/s, higher is better,
// per-iteration samples "bw") and "latency" (seconds shown as ms, lower is
// better, samples "t"); each row is an op name and its samples, or one
// value when the samples have length 1.
func synthetic(size string, bw, lat map[string][]float64, order ...string) *report.Result {
	r := report.New("synthetic")
	r.Run.Command = []string{"hpcbench", "synthetic"}
	r.Run.Ranks, r.Run.Hosts = 1, 1
	r.Params = []report.Param{{Name: "size", Value: size}, {Name: "iterations", Value: "10"}}
	table := func(name, unit, display, key string, better report.Better, rows map[string][]float64) report.Table {
		t := report.Table{Name: name, Columns: []report.Column{
			{Name: "op", Kind: report.KindLabel},
			{Name: "median", Kind: report.KindMetric, Unit: unit, Display: display, Better: better, Source: key},
			{Name: "iterations", Kind: report.KindMetric},
		}}
		for _, op := range order {
			vals, ok := rows[op]
			if !ok {
				continue
			}
			row := report.Row{Labels: []string{op}, Metrics: []float64{report.Summarize(vals).Mean, float64(len(vals))}}
			if len(vals) > 1 {
				row.Samples = map[string][]float64{key: vals}
			}
			t.Rows = append(t.Rows, row)
		}
		return t
	}
	r.Tables = []report.Table{
		table("bandwidth", "MiB/s", "GiB/s", "bw", report.BetterHigher, bw),
		table("latency", "s", "ms", "t", report.BetterLower, lat),
	}
	return r
}

// compareArchives returns the test archives by file name under compareDir.
func compareArchives(t *testing.T) map[string]*report.Result {
	ops := []string{"write", "read", "stat", "open", "create", "remove"}
	a := map[string]*report.Result{
		// Every verdict: write regresses by 20%, read improves by 25%,
		// stat is noise, open has one value a side, create is gone and
		// remove is new.
		"old.json": synthetic("1 MiB",
			map[string][]float64{"write": draws(1, 10, 1000), "read": draws(2, 10, 2000)},
			map[string][]float64{"stat": draws(3, 10, 0.002), "open": {0.004}, "create": draws(4, 10, 0.003)}, ops...),
		"new.json": synthetic("1 MiB",
			map[string][]float64{"write": draws(5, 10, 800), "read": draws(6, 10, 2500)},
			map[string][]float64{"stat": draws(7, 10, 0.002), "open": {0.005}, "remove": draws(8, 10, 0.001)}, ops...),
		// The same size with another parameter: not comparable.
		"mismatch.json": synthetic("4 MiB", map[string][]float64{"write": draws(5, 10, 800)}, nil, ops...),
		// One metric 20% slower, ten samples a side (another size, so
		// that a list with the noise archives holds two groups).
		"regress-old.json": synthetic("2 MiB", nil, map[string][]float64{"stat": draws(11, 10, 0.002)}, ops...),
		"regress-new.json": synthetic("2 MiB", nil, map[string][]float64{"stat": draws(12, 10, 0.0024)}, ops...),
		// Two runs of the same noisy figures.
		"noise-a.json": synthetic("1 MiB", map[string][]float64{"write": draws(21, 10, 1000)},
			map[string][]float64{"stat": draws(22, 10, 0.002)}, ops...),
		"noise-b.json": synthetic("1 MiB", map[string][]float64{"write": draws(23, 10, 1000)},
			map[string][]float64{"stat": draws(24, 10, 0.002)}, ops...),
	}
	// Directories of five archives with one value each: pooled, they are
	// five samples a side; the new ones are 20% slower.
	for i := range 5 {
		a[fmt.Sprintf("pool-old/run%d.json", i)] = synthetic("1 MiB", nil,
			map[string][]float64{"open": draws(uint64(31+i), 1, 0.004)}, ops...)
		a[fmt.Sprintf("pool-new/run%d.json", i)] = synthetic("1 MiB", nil,
			map[string][]float64{"open": draws(uint64(41+i), 1, 0.0048)}, ops...)
	}
	// The old build's ping-pong as this build writes it, 50% slower.
	f, err := os.Open(oldBuildArchive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pp, err := report.ReadJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", oldBuildArchive, err)
	}
	for ti := range pp.Tables {
		for ri := range pp.Tables[ti].Rows {
			row := &pp.Tables[ti].Rows[ri]
			for k, s := range row.Samples {
				for i := range s {
					s[i] *= 1.5
				}
				row.Samples[k] = s
			}
		}
	}
	a["pingpong-new.json"] = pp
	return a
}

// TestCompareArchives: the archives in testdata/compare are what
// compareArchives builds (-update writes them).
func TestCompareArchives(t *testing.T) {
	for name, r := range compareArchives(t) {
		var b bytes.Buffer
		if err := report.WriteJSON(&b, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		testenv.Golden(t, filepath.Join(compareDir, name), b.Bytes(), *update)
	}
}

// TestCompareGolden runs compare in-process on the test archives and checks
// its exit status, stdout and stderr against testdata/compare/NAME.golden.
func TestCompareGolden(t *testing.T) {
	d := compareDir + "/"
	tests := []struct {
		name string
		args []string
		code int
	}{
		// Improvement, regression, noise, too few samples, metrics on one
		// side only, a metric without a direction, in each format.
		{"verdicts", []string{d + "old.json", d + "new.json"}, 1},
		{"verdicts-csv", []string{"--format", "csv", d + "old.json", d + "new.json"}, 1},
		{"verdicts-json", []string{"--format=json", d + "old.json", d + "new.json"}, 1},
		// The 20% write regression is within a 25% threshold.
		// A 20% regression within a 25% threshold passes.
		{"threshold", []string{"--threshold", "25%", d + "regress-old.json", d + "regress-new.json"}, 0},
		{"regression-20pct", []string{d + "regress-old.json", d + "regress-new.json"}, 1},
		{"noise", []string{d + "noise-a.json", d + "noise-b.json"}, 0},
		{"same-archive", []string{d + "noise-a.json", d + "noise-a.json"}, 0},
		{"pooled-directories", []string{d + "pool-old/", d + "pool-new"}, 1},
		{"lists", []string{d + "regress-old.json", d + "noise-a.json", "--", d + "regress-new.json", d + "noise-b.json"}, 1},
		// noise-b.json's size (1 MiB) has no run on the old side: a
		// group of the new side only, not a mismatch, since every old
		// group has its match.
		{"group-one-side", []string{d + "regress-old.json", "--", d + "regress-new.json", d + "noise-b.json"}, 1},
		{"old-build", []string{d + "old-build-pingpong.json", d + "pingpong-new.json"}, 0},
		// Two 4-iteration IOR runs, the new one's transfers twice as
		// slow: a metric's iterations pool into one sample set of 4 a
		// side, one row per operation and metric, fitted to 80 columns
		// (stdout is no terminal), to 120, to 40 or to no limit.
		{"ior-pooled", []string{d + "ior-old.json", d + "ior-new.json"}, 1},
		{"ior-pooled-120", []string{"--width", "120", d + "ior-old.json", d + "ior-new.json"}, 1},
		{"ior-pooled-40", []string{"--width=40", d + "ior-old.json", d + "ior-new.json"}, 1},
		{"ior-pooled-unlimited", []string{"--width", "0", d + "ior-old.json", d + "ior-new.json"}, 1},
		{"ior-pooled-csv", []string{"--format", "csv", d + "ior-old.json", d + "ior-new.json"}, 1},
		{"ior-pooled-json", []string{"--format", "json", d + "ior-old.json", d + "ior-new.json"}, 1},
		{"bad-width", []string{"--width", "20", d + "old.json", d + "new.json"}, 2},
		{"width-not-a-number", []string{"--width", "wide", d + "old.json", d + "new.json"}, 2},
		{"width-of-csv", []string{"--width", "100", "--format", "csv", d + "old.json", d + "new.json"}, 2},
		{"mismatched-params", []string{d + "old.json", d + "mismatch.json"}, 2},
		{"no-common-benchmark", []string{d + "old.json", oldBuildArchive}, 2},
		{"failed-run", []string{d + "old.json", d + "failed-run.json"}, 2},
		{"missing-file", []string{d + "old.json", d + "no-such.json"}, 2},
		{"not-an-archive", []string{d + "old.json", d + "verdicts.golden"}, 2},
		{"empty-directory", []string{d + "old.json", "testdata/help/"}, 2},
		{"one-operand", []string{d + "old.json"}, 2},
		{"empty-side", []string{d + "old.json", "--"}, 2},
		{"bad-threshold", []string{"--threshold", "-5%", d + "old.json", d + "new.json"}, 2},
		{"bad-alpha", []string{"--alpha", "1.5", d + "old.json", d + "new.json"}, 2},
		{"bad-format", []string{"--format", "ior", d + "old.json", d + "new.json"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := mainOutcome(append([]string{"compare"}, tc.args...)...)
			if o.code != tc.code {
				t.Errorf("exit status %d, want %d; stderr: %s", o.code, tc.code, o.stderr)
			}
			if o.code == 2 && o.stdout != "" {
				t.Errorf("exit status 2 after printing:\n%s", o.stdout)
			}
			if n := strings.Count(o.stderr, "\n"); o.code == 2 && n != 1 {
				t.Errorf("stderr has %d lines, want one: %s", n, o.stderr)
			}
			got := fmt.Sprintf("$ hpcbench compare %s\nexit %d\n-- stderr --\n%s-- stdout --\n%s",
				strings.Join(tc.args, " "), o.code, o.stderr, o.stdout)
			testenv.Golden(t, filepath.Join(compareDir, tc.name+".golden"), []byte(got), *update)
		})
	}
}

// FuzzParsePercent: --threshold's parser accepts only finite percentages
// >= 0 and never panics.
func FuzzParsePercent(f *testing.F) {
	for _, s := range []string{"5%", "5", "0", "12.5%", "-1%", "NaN", "Inf%", "%", "1e309", " 7 %"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parsePercent(s)
		if err != nil {
			return
		}
		if !(v >= 0) || math.IsInf(v, 0) {
			t.Errorf("parsePercent(%q) = %v, want a finite fraction >= 0", s, v)
		}
	})
}

// TestTerminalWidth: the human view's width is the terminal's when stdout
// is one, else the default.
func TestTerminalWidth(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 132}); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tc := range []struct {
		name string
		out  io.Writer
		want int
	}{{"terminal", tty, 132}, {"pipe", w, 80}, {"buffer", &bytes.Buffer{}, 80}} {
		if got := terminalWidth(tc.out, 80); got != tc.want {
			t.Errorf("%s: terminalWidth = %d, want %d", tc.name, got, tc.want)
		}
	}
}
