package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/report"
)

// iorTable returns the archive's table named name as rows of column name
// → label or metric.
func iorTable(t *testing.T, r *report.Result, name string) ([]map[string]any, *report.Table) {
	t.Helper()
	for i := range r.Tables {
		tab := &r.Tables[i]
		if tab.Name != name {
			continue
		}
		var rows []map[string]any
		for _, row := range tab.Rows {
			m := map[string]any{}
			li, mi := 0, 0
			for _, c := range tab.Columns {
				if c.Kind == report.KindLabel {
					m[c.Name], li = row.Labels[li], li+1
				} else {
					m[c.Name], mi = row.Metrics[mi], mi+1
				}
			}
			rows = append(rows, m)
		}
		return rows, tab
	}
	t.Fatalf("the archive has no table %q", name)
	return nil, nil
}

// TestIORDistArchive: `hpcbench ior --archive` under a 2-rank launch, on
// DUMMY with 1 ms per transfer, has the latency, series, ranks and hosts
// tables with figures that fit the run: 64 transfers of 4 KiB per rank
// and phase, latencies of at least 1 ms, a series that adds up to the
// bytes moved, and 2 ranks of 256 KiB on this host.
func TestIORDistArchive(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a.json")
	iorLaunch(t, dir, "-a", "DUMMY", "--dummy.delay-xfer=1000", "-b", "256k", "-t", "4k", "-w", "-r",
		"--interval", "20ms", "--archive", path)
	res := readRunArchive(t, path)
	lat, _ := iorTable(t, res, "ior latency")
	if len(lat) != 2 {
		t.Fatalf("latency rows %v, want write and read", lat)
	}
	for _, m := range lat {
		if m["ops"] != 128.0 || m["p50"].(float64) < 1e-3 || m["p50"].(float64) > m["max"].(float64) {
			t.Errorf("latency %v: want 128 ops, p50 of at least 1 ms", m)
		}
	}
	series, _ := iorTable(t, res, "ior series")
	moved := map[string]float64{}
	last := map[string]float64{}
	for _, m := range series {
		k := m["access"].(string)
		if bw := m["bw"].(float64); !math.IsNaN(bw) {
			moved[k] += bw * (1 << 20) * (m["elapsed"].(float64) - last[k])
		}
		last[k] = m["elapsed"].(float64)
	}
	for _, k := range []string{"write", "read"} {
		if math.Abs(moved[k]-2*256<<10) > 1e-6*moved[k] {
			t.Errorf("%s: the series adds up to %g bytes, want %d (rows %v)", k, moved[k], 2*256<<10, series)
		}
	}
	ranks, _ := iorTable(t, res, "ior ranks")
	if len(ranks) != 4 {
		t.Fatalf("ranks rows %v, want 2 ranks × 2 phases", ranks)
	}
	for i, m := range ranks {
		if m["rank"] != []string{"0", "1"}[i%2] || m["host"] != host || m["bytes"] != float64(256<<10) || !(m["done"].(float64) > 0) {
			t.Errorf("ranks row %v, want rank %d on %s with 256 KiB", m, i%2, host)
		}
	}
	hosts, _ := iorTable(t, res, "ior hosts")
	if len(hosts) != 2 || hosts[0]["ranks"] != 2.0 || hosts[0]["bytes"] != float64(512<<10) {
		t.Errorf("hosts rows %v, want one host with 2 ranks and 512 KiB per phase", hosts)
	}
}

// TestIORUntilSteady: with --until-steady a write that would take 16 s
// (16384 transfers of 1 ms per rank) stops within a second or so; the
// archive's series table says why, the Params echo the flag, and stderr
// has IOR's stonewalling line and the note.
func TestIORUntilSteady(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.json")
	start := time.Now()
	out := iorLaunch(t, dir, "-a", "DUMMY", "--dummy.delay-xfer=1000", "-b", "64m", "-t", "4k", "-w",
		"--interval", "20ms", "--until-steady=100ms,50%", "--archive", path)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the run took %v: --until-steady did not stop it early", d)
	}
	if !strings.Contains(out, "stonewalling pairs accessed min: ") || !strings.Contains(out, "stopped early by --until-steady=100ms,50%") {
		t.Errorf("output lacks the stonewalling line or the steady note:\n%s", out)
	}
	res := readRunArchive(t, path)
	_, series := iorTable(t, res, "ior series")
	if len(series.Notes) != 1 || !strings.Contains(series.Notes[0], "write, iteration 0, test 0: stopped early by --until-steady=100ms,50% on 2 of 2 ranks") {
		t.Errorf("series notes %q", series.Notes)
	}
	ranks, _ := iorTable(t, res, "ior ranks")
	for _, m := range ranks {
		if b := m["bytes"].(float64); !(b > 0 && b < 64<<20/4) {
			t.Errorf("rank %v wrote %g bytes: want some, well short of 64 MiB", m["rank"], b)
		}
	}
	var steady string
	for _, p := range res.Params {
		if p.Name == "until-steady" {
			steady = p.Value
		}
	}
	if steady != "100ms,50%" {
		t.Errorf("Params until-steady %q", steady)
	}
}

// TestStragglerQuietStdout: a rank that ends a phase late enough to
// matter (rank 0, slowed to 150 ms a transfer) is named on stderr, once
// per phase, and in the archive; stdout keeps IOR's layout, with no
// Notes section. A run whose ranks differ by microseconds names nobody.
func TestStragglerQuietStdout(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "ior.json")
	r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, "launch", "-n", "2", "--", hpcbench,
		"ior", "-a", "DUMMY", "--dummy.delay-xfer", "150000", "--dummy.delay-only-rank0", "-b", "2m", "-t", "1m", "-w", "-o", "f",
		"--archive", archive)
	mustExit0(t, r)
	if strings.Contains(r.Stdout, "Notes:") || strings.Contains(r.Stdout, "straggler") {
		t.Errorf("stdout has notes:\n%s", r.Stdout)
	}
	if !strings.Contains(r.Stderr, "hpcbench: ior: note: write, iteration 0, test 0: straggler rank 0 on ") || strings.Count(r.Stderr, "straggler") != 1 {
		t.Errorf("stderr does not name rank 0 once:\n%s", r.Stderr)
	}
	var n int
	for _, tb := range readRunArchive(t, archive).Tables {
		n += len(tb.Stragglers)
	}
	if n != 1 {
		t.Errorf("the archive holds %d straggler lines, want 1", n)
	}
	// --notes asks for them on stdout, after the report, and not on stderr.
	r = testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, "launch", "-n", "2", "--", hpcbench,
		"ior", "--notes", "-a", "DUMMY", "--dummy.delay-xfer", "150000", "--dummy.delay-only-rank0", "-b", "2m", "-t", "1m", "-w", "-o", "f")
	mustExit0(t, r)
	if !strings.Contains(r.Stdout, "\nNotes:\nwrite, iteration 0, test 0: straggler rank 0 on ") || strings.Contains(r.Stderr, "straggler") {
		t.Errorf("--notes: want the note on stdout under Notes:, none on stderr\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	}
	r = testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, "launch", "-n", "4", "--", hpcbench,
		"ior", "-a", "DUMMY", "-b", "1m", "-t", "64k", "-w", "-r", "-i", "3", "-o", "f")
	mustExit0(t, r)
	if strings.Contains(r.Stdout, "Notes:") || strings.Contains(r.Stderr, "straggler") {
		t.Errorf("microsecond phases named a straggler:\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	}
}
