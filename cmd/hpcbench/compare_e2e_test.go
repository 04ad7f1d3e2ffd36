package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestCompareRealArchives: archives that real coll runs under the launcher
// wrote compare as they should: one with itself and a directory with
// itself exit 0 with the samples pooled; a run with other parameters is
// refused with exit 2, naming the parameter.
func TestCompareRealArchives(t *testing.T) {
	dir := t.TempDir()
	coll := func(out string, msglog string) {
		t.Helper()
		r := run(t, 2*time.Minute, "launch", "-n", "2", "--", "hpcbench", "coll", "-iter", "10", "-time", "1",
			"-msglog", msglog, "PingPong", "--output", out)
		if r.Code != 0 {
			t.Fatalf("coll: exit %d\n%s", r.Code, r.Stderr)
		}
	}
	a1, a2 := filepath.Join(dir, "a", "run1.json"), filepath.Join(dir, "a", "run2.json")
	other := filepath.Join(dir, "other.json")
	if err := os.Mkdir(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	coll(a1, "0:4")
	coll(a2, "0:4")
	coll(other, "0:6")

	r := run(t, 30*time.Second, "compare", a1, a1)
	if r.Code != 0 || !strings.Contains(r.Stdout, "imb: 1 old, 1 new archive(s)") ||
		!strings.Contains(r.Stdout, "n=2+2") || !strings.Contains(r.Stdout, "no significant regression beyond 5%") {
		t.Errorf("compare one archive with itself: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}

	r = run(t, 30*time.Second, "compare", "--format", "json", filepath.Join(dir, "a"), filepath.Join(dir, "a")+"/")
	var c struct {
		Groups []struct {
			Benchmark string   `json:"benchmark"`
			Old       []string `json:"old"`
			Metrics   []struct {
				Row     string `json:"row"`
				Metric  string `json:"metric"`
				Verdict string `json:"verdict"`
				Old     struct {
					N int `json:"n"`
				} `json:"old"`
			} `json:"metrics"`
		} `json:"groups"`
	}
	if r.Code != 0 {
		t.Fatalf("compare a directory with itself: exit %d\n%s", r.Code, r.Stderr)
	}
	if err := json.Unmarshal([]byte(r.Stdout), &c); err != nil {
		t.Fatalf("JSON: %v\n%s", err, r.Stdout)
	}
	if len(c.Groups) != 1 || c.Groups[0].Benchmark != "imb" || len(c.Groups[0].Old) != 2 {
		t.Fatalf("groups %+v, want one imb group of two archives", c.Groups)
	}
	rows := map[string]bool{}
	for _, m := range c.Groups[0].Metrics {
		rows[m.Row] = true
		if m.Metric == "t" && (m.Old.N != 4 || m.Verdict != "~") {
			t.Errorf("%s t: n=%d verdict %q, want the 2 ranks' figures of 2 archives pooled (4) and ~", m.Row, m.Old.N, m.Verdict)
		}
	}
	for _, b := range []string{"0", "1", "2", "4", "8", "16"} {
		if !rows["#bytes="+b] {
			t.Errorf("no row #bytes=%s in %v", b, rows)
		}
	}

	r = run(t, 30*time.Second, "compare", a1, other)
	if r.Code != 2 || r.Stdout != "" || !strings.Contains(r.Stderr, `param "msglog" = "0:6"`) || strings.Count(r.Stderr, "\n") != 1 {
		t.Errorf("compare other parameters: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestComparePooledIterations: two 3-iteration IOR runs compare as one
// row per operation and metric, each of 3 samples a side (no row per
// iteration), in a view that fits 80 columns when stdout is a pipe; with
// 4 iterations a side a comparison of a run with itself reaches a verdict
// (~) instead of "too few samples".
func TestComparePooledIterations(t *testing.T) {
	dir := t.TempDir()
	ior := func(name, iters string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		r := run(t, time.Minute, "ior", "-a", "DUMMY", "-b", "256k", "-t", "64k", "-w", "-r", "-i", iters, "-o", filepath.Join(dir, "f"), "--archive", out)
		if r.Code != 0 {
			t.Fatalf("ior: exit %d\n%s", r.Code, r.Stderr)
		}
		return out
	}
	a, b := ior("a.json", "3"), ior("b.json", "3")
	r := run(t, 30*time.Second, "compare", a, b)
	if r.Code != 0 && r.Code != 1 {
		t.Fatalf("compare: exit %d\n%s", r.Code, r.Stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	for _, l := range lines {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("a line of %d columns, over 80:\n%s", n, l)
		}
	}
	if len(lines) > 90 {
		t.Errorf("%d lines, want one row per operation and metric:\n%s", len(lines), r.Stdout)
	}
	rows := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "write   bw(MiB/s) ") {
			rows++
			if !strings.Contains(l, "n=3+3") || !strings.Contains(l, "too few samples") {
				t.Errorf("write bw row %q, want n=3+3 and too few samples", l)
			}
		}
	}
	if rows != 1 || strings.Contains(r.Stdout, "iter=") {
		t.Errorf("%d write bw rows (want 1, iterations pooled):\n%s", rows, r.Stdout)
	}

	four := ior("c.json", "4")
	r = run(t, 30*time.Second, "compare", four, four)
	if r.Code != 0 || !regexp.MustCompile(`(?m)^write +bw\(MiB/s\) .* n=4\+4  ~$`).MatchString(r.Stdout) {
		t.Errorf("a 4-iteration run with itself: exit %d, want 0 and write bw ~ with n=4+4:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}
