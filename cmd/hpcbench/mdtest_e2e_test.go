package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMdtestLaunch runs the two command lines under the launcher
// and checks the SUMMARY table and that the directory is left empty.
func TestMdtestLaunch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		want  []string
	}{
		{"files", []string{"-n", "500", "-F", "-u", "-i", "2"}, []string{"4 tasks, 2000 files", "File creation", "File stat", "File read", "File removal", "Tree creation", "Tree removal"}},
		{"tree", []string{"-z", "2", "-b", "3", "-I", "10"}, []string{"4 tasks, 520 files/directories", "Directory creation", "Directory rename", "File removal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"launch", "-n", "4", "--", "hpcbench", "mdtest", "-a", "POSIX", "-d", dir}, tc.flags...)
			r := run(t, 3*time.Minute, args...)
			if r.Code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
			for _, w := range append([]string{"SUMMARY rate (in ops/sec):", "was launched with 4 total task(s) on 1 node(s)"}, tc.want...) {
				if !strings.Contains(r.Stdout, w) {
					t.Errorf("stdout lacks %q", w)
				}
			}
			if left := dirEntries(t, dir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
			}
		})
	}
}

// TestMdtestJSON: --output gets one JSON document, stdout the human
// report, --saveRankPerformanceDetails mdtest's per-rank CSV.
func TestMdtestJSON(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	js, csv := filepath.Join(out, "md.json"), filepath.Join(out, "ranks.csv")
	r := run(t, 2*time.Minute, "launch", "-n", "2", "--", "hpcbench", "mdtest", "-a", "POSIX", "-n", "50", "-F", "-i", "2",
		"-d", dir, "--output", js, "--saveRankPerformanceDetails="+csv)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "SUMMARY rate") {
		t.Errorf("stdout lacks the human report:\n%s", r.Stdout)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	if doc["schema"] != "hpcbench/mdtest/1" {
		t.Errorf("schema %v", doc["schema"])
	}
	for _, k := range []string{"version", "began", "finished", "command line", "tasks", "iterations", "items", "summary", "results"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	rows, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(rows)), "\n")
	if !strings.HasPrefix(lines[0], "rank,items,rate-Directory creation,") || len(lines) != 1+1+2*2 {
		t.Errorf("rank CSV:\n%s", rows)
	}
}

// TestMdtestVanishingFile: another process removes a file between the
// create and stat phases; the failure is counted and named with its path
// and errno, the run exits 1, and the directory is left empty.
func TestMdtestVanishingFile(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "test-dir.0-0", "mdtest_tree.1.0", "file.mdtest.1.3")
	hook := `if [ "$HPCBENCH_MDTEST_PHASE" = "File stat" ]; then rm ` + victim + `; fi`
	r := run(t, 2*time.Minute, "launch", "-n", "2", "--", "hpcbench", "mdtest", "-a", "POSIX", "-n", "10", "-F", "-u",
		"-d", dir, "--run-cmd-before-phase", hook)
	if r.Code != 1 {
		t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	want := "1 operations failed in File stat; first: stat " + victim + ": no such file or directory"
	if !strings.Contains(r.Stdout+r.Stderr, want) {
		t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", want, r.Stdout, r.Stderr)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestMdtestBadInput: invalid combinations exit 2 with one line naming the
// flags, before any file is created.
func TestMdtestBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "10", "-I", "3"}, "-I"},
		{[]string{"-n", "10", "-u", "-S"}, "-S"},
		{[]string{"-n", "10", "-c"}, "-c"},
		{[]string{"-n", "10", "-k", "-w", "10"}, "-k"},
		{[]string{"-n", "10", "-w", "1.5k"}, "-w"},
		{[]string{"-n", "10", "-a", "MMAP"}, "MMAP"},
		{[]string{"-n", "10", "-i", "0"}, "-i"},
		{[]string{"-n", "10", "-B"}, "-B"},
		{[]string{"stray"}, "stray"},
		{[]string{}, "-n"},
	} {
		dir := t.TempDir()
		args := append([]string{"mdtest", "-d", filepath.Join(dir, "md")}, tc.args...)
		r := run(t, time.Minute, args...)
		lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
		if r.Code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %s", tc.args, r.Code, r.Stderr, tc.want)
		}
		if left := dirEntries(t, dir); len(left) != 0 {
			t.Errorf("%v: created %v", tc.args, left)
		}
	}
}
