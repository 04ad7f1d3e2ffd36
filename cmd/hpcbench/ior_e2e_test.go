package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// dirEntries lists what is left in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestIORLaunch runs IOR's own acceptance command line under the launcher,
// shared file and file per process, and checks the report and that no
// file is left behind.
func TestIORLaunch(t *testing.T) {
	for _, fpp := range []string{"", "-F"} {
		t.Run("fpp="+fpp, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"launch", "-n", "4", "--", "hpcbench", "ior", "-a", "POSIX", "-b", "16m", "-t", "1m",
				"-w", "-r", "-W", "-R", "-C", "-i", "2", "-o", filepath.Join(dir, "f")}
			if fpp != "" {
				args = append(args, fpp)
			}
			r := run(t, 3*time.Minute, args...)
			if r.Code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
			for _, want := range []string{"IOR: MPI Coordinated Test of Parallel I/O", "Options: ", "Results: ",
				"constant task offset", "Summary of all tests:", "\nwrite ", "\nread ", "tasks               : 4"} {
				if !strings.Contains(r.Stdout, want) {
					t.Errorf("stdout lacks %q", want)
				}
			}
			if strings.Contains(r.Stdout+r.Stderr, "Incorrect data") {
				t.Errorf("verification failed:\n%s%s", r.Stdout, r.Stderr)
			}
			if left := dirEntries(t, dir); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
			}
		})
	}
}

// TestIORSummaryJSON: -O summaryFormat=JSON -O summaryFile=x.json writes
// one JSON document with IOR's keys; the human report still goes to
// stdout; the per-rank CSV has a row per rank per phase.
func TestIORSummaryJSON(t *testing.T) {
	dir := t.TempDir()
	js, ranks := filepath.Join(dir, "x.json"), filepath.Join(dir, "ranks.csv")
	r := run(t, 2*time.Minute, "launch", "-n", "2", "--", "hpcbench", "ior", "-a", "POSIX", "-b", "4m", "-t", "1m",
		"-o", filepath.Join(dir, "f"), "-O", "summaryFormat=JSON", "-O", "summaryFile="+js,
		"-O", "saveRankPerformanceDetailsCSV="+ranks)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("summary file is not JSON: %v\n%s", err, data)
	}
	for _, k := range []string{"schema", "Version", "Began", "Command line", "Machine", "tests", "summary", "Finished"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	tests, _ := doc["tests"].([]any)
	if len(tests) != 1 {
		t.Fatalf("tests: %v", doc["tests"])
	}
	test := tests[0].(map[string]any)
	for _, k := range []string{"TestID", "StartTime", "Path", "Parameters", "Options", "Results"} {
		if _, ok := test[k]; !ok {
			t.Errorf("tests[0] lacks %q", k)
		}
	}
	results, _ := test["Results"].([]any)
	if len(results) != 2 {
		t.Errorf("Results has %d entries, want write and read", len(results))
	}
	for _, e := range results {
		m := e.(map[string]any)
		for _, k := range []string{"access", "bwMiB", "blockKiB", "xferKiB", "iops", "latency", "openTime", "wrRdTime", "closeTime", "totalTime", "iter"} {
			if _, ok := m[k]; !ok {
				t.Errorf("Results entry lacks %q", k)
			}
		}
	}
	if !strings.Contains(r.Stdout, "Summary of all tests:") {
		t.Errorf("stdout lacks the human report:\n%s", r.Stdout)
	}
	csv, err := os.ReadFile(ranks)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 1+2*2 || lines[0] != "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput" {
		t.Errorf("rank CSV:\n%s", csv)
	}
}

// TestIORCorruption: a byte changed between the write and a verifying read
// is counted as one corrupt transfer, reported, and the run exits 1.
func TestIORCorruption(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	common := []string{"-a", "POSIX", "-b", "4m", "-t", "1m", "-G", "4242", "-o", f}
	r := run(t, 2*time.Minute, append([]string{"launch", "-n", "2", "--", "hpcbench", "ior", "-w", "-k"}, common...)...)
	if r.Code != 0 {
		t.Fatalf("write: exit %d\n%s", r.Code, r.Stderr)
	}
	fh, err := os.OpenFile(f, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte{0}
	if _, err := fh.ReadAt(b, 5<<20+17); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 1
	if _, err := fh.WriteAt(b, 5<<20+17); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	r = run(t, 2*time.Minute, append([]string{"launch", "-n", "2", "--", "hpcbench", "ior", "-r", "-R"}, common...)...)
	if r.Code != 1 {
		t.Errorf("read: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout+r.Stderr, "Incorrect data on read (1 errors found)") {
		t.Errorf("no error count:\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left behind without -K: %v", left)
	}
}

// TestIORBadInput: IOR's invalid combinations and bad sizes are refused
// before any I/O, with exit 2 and one line naming the flags.
func TestIORBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-b", "3m", "-t", "2m"}, "-t"},
		{[]string{"-b", "1.5m"}, "-b"},
		{[]string{"-t", "1x"}, "-t"},
		{[]string{"-C", "-Z"}, "-Z"},
		{[]string{"-r", "-R"}, "-G"},
		{[]string{"-z", "-b", "1m", "-t", "1m"}, "-z"},
		{[]string{"-i", "0"}, "-i"},
		{[]string{"-a", "FOO"}, "-a"},
		{[]string{"-O", "summaryFormat=XML"}, "summaryFormat"},
		{[]string{"-O", "stoneWallingWearOut=1"}, "-D"},
		{[]string{"stray"}, "stray"},
		{[]string{"-O", "savePerOpDataCSV=x"}, "savePerOpDataCSV"},
		{[]string{"-M", "50%"}, "-M"},
		{[]string{"-O", "summaryAlways=1"}, "summaryAlways"},
	} {
		dir := t.TempDir()
		args := append([]string{"ior", "-o", filepath.Join(dir, "f")}, tc.args...)
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

// TestIORAndMdtestUnderHydra: the benchmarks run unchanged under MPICH's
// own mpiexec, whose PMI server wires the ranks together.
func TestIORAndMdtestUnderHydra(t *testing.T) {
	mpiexec := testenv.RequireTool(t, "mpiexec.mpich", "mpiexec.hydra", "mpiexec")
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "2", hpcbench, "ior", "-a", "POSIX", "-b", "4m", "-t", "1m", "-w", "-r", "-W", "-R", "-C", "-o", filepath.Join(dir, "f")},
			"tasks               : 2"},
		{[]string{"-n", "2", hpcbench, "mdtest", "-a", "POSIX", "-n", "100", "-F", "-u", "-d", dir}, "2 tasks, 200 files"},
	} {
		r := testenv.Run(t, testenv.Context(t, 2*time.Minute), "", noPMIEnv, mpiexec, tc.args...)
		if r.Code != 0 || !strings.Contains(r.Stdout, tc.want) {
			t.Errorf("%v: exit %d, want %q\nstdout:\n%s\nstderr:\n%s", tc.args[3], r.Code, tc.want, r.Stdout, r.Stderr)
		}
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
