package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
		{[]string{"-O", "summaryAlways=1", "-v"}, "summaryAlways with -v"},
		{[]string{"-M", "101%"}, "-M"},
		{[]string{"-z", "--randomPrefill", "4k", "-D", "1"}, "--randomPrefill with -D"},
		{[]string{"-a", "MPIIO"}, "-a: IOR's MPIIO backend is not in hpcbench, which has POSIX, MMAP, DUMMY"},
		{[]string{"--mpiio.showHints"}, `no backend "mpiio"`},
		{[]string{"-wb"}, "-b: needs a value"},
		{[]string{"-O", "-f=x.ior"}, "-f cannot be given"},
		// the distribution flags, with an archive that must not appear
		{[]string{"--interval", "0s", "--archive", "a.json"}, "--interval: 0s: want a duration in [1ms, 1h]"},
		{[]string{"--interval", "soon", "--archive", "a.json"}, "--interval: \"soon\" is not a duration"},
		{[]string{"--until-steady=5s", "--archive", "a.json"}, "--until-steady: \"5s\": want WINDOW,TOLERANCE"},
		{[]string{"--until-steady=5s,200%", "--archive", "a.json"}, "tolerance"},
		{[]string{"--until-steady=1s,5%", "--archive", "a.json"}, "must span at least 2 intervals of --interval 1s"},
		{[]string{"--until-steady", "-O", "minTimeDuration=5", "--archive", "a.json"}, "--until-steady with -O minTimeDuration"},
	} {
		dir := t.TempDir()
		for i, a := range tc.args {
			if a == "a.json" {
				tc.args[i] = filepath.Join(dir, a)
			}
		}
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

// iorLaunch runs hpcbench ior on 2 ranks under hpcbench launch and fails
// the test unless it exits 0; it returns stdout and stderr together.
func iorLaunch(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := run(t, 2*time.Minute, append([]string{"launch", "-n", "2", "--", "hpcbench", "ior"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("ior %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout + r.Stderr
}

// TestIORScriptCommandLines: a -f script with command-line options on
// its lines, as IOR's testing/test_comments.ior has them (--backend.option
// =value, -x=value) and as hpcbench also takes them (-a POSIX), mixed with
// key=value directives, comments and markers in any case, runs each test.
func TestIORScriptCommandLines(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.ior")
	text := "# leading comment\nIOR START\n  api=posix\n\twriteFile=1 , readFile=1\n" +
		"  -b 256k -t 64k   # two options\n-F\nrun\n--dummy.delay-xfer=1000\n-a=DUMMY,-k\n" +
		"  -a POSIX -z-k -i 2\n  RUN # again, POSIX\n  ior stop\n"
	if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := iorLaunch(t, dir, "-f", script, "-o", filepath.Join(dir, "f"))
	for _, want := range []string{"TestID              : 0", "TestID              : 1",
		"blocksize           : 262144 bytes", "access              : file-per-process", "ordering in a file  : random"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\nwrite "); n != 1+2+2 { // test 0's row, test 1's two (-i 2), a summary row each
		t.Errorf("%d write rows, want 5:\n%s", n, out)
	}
	// Test 1 kept its files (-k from -z-k); test 0 removed its own.
	left := dirEntries(t, dir)
	if strings.Join(left, " ") != "f.00000000 f.00000001 s.ior" {
		t.Errorf("left %v, want test 1's two files and the script", left)
	}
}

// TestIORGroupedFlags: complex-tests.sh's -z-k and other groups as IOR's
// parser reads them: -z-k is -z -k, -wbk 4m gives -b 4m, -X -13 a seed.
func TestIORGroupedFlags(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	iorLaunch(t, dir, "-a", "POSIX", "-w", "-z", "-k", "-e", "-i1", "-m", "-t", "100k", "-b", "200k", "-o", f)
	out := iorLaunch(t, dir, "-a", "POSIX", "-r", "-z-k", "-e", "-i1", "-m", "-t", "100k", "-b", "200k", "-o", f)
	if !strings.Contains(out, "ordering in a file  : random") {
		t.Errorf("-z-k did not give -z:\n%s", out)
	}
	if left := dirEntries(t, dir); len(left) != 1 || left[0] != "f.0" {
		t.Errorf("-z-k did not give -k: left %v", left)
	}
	out = iorLaunch(t, dir, "-a", "POSIX", "-wbk", "400k", "-t", "100k", "-F", "-Z", "-X", "-13", "-s2-z", "-o", f)
	for _, want := range []string{"blocksize           : 409600 bytes", "reorder random seed : -13", "segments            : 2",
		"ordering in a file  : random"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestIORFractionalDelay: complex-tests.sh's -d 0.1 sleeps a tenth of a
// second before the phase (IOR's integer parse makes it 0).
func TestIORFractionalDelay(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	out := iorLaunch(t, dir, "-a", "POSIX", "-w", "-Z", "-i1", "-m", "-t", "100k", "-b", "100k", "-d", "0.1", "-v",
		"-o", filepath.Join(dir, "f"))
	if !strings.Contains(out, "delaying 0.1 seconds . . .") {
		t.Errorf("no delay line:\n%s", out)
	}
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("the run took %v, less than the delay", took)
	}
}

// TestIORRandomReadSmallerFile: basic-tests.sh writes a file of one
// segment and reads it with -s 10 -z -z; the read draws from the blocks
// the file has, warns as IOR does, and exits 0.
func TestIORRandomReadSmallerFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "ior")
	iorLaunch(t, dir, "-a", "POSIX", "-w", "-C", "-k", "-e", "-i1", "-m", "-t", "100k", "-b", "200k", "-o", f)
	out := iorLaunch(t, dir, "-a", "POSIX", "-r", "-k", "-e", "-i1", "-m", "-t", "100k", "-b", "200k", "-s", "10", "-z", "-z", "-o", f)
	for _, want := range []string{"holds 2 blocks of -b 204800, fewer than the test's 20",
		"WARNING: Expected aggregate file size       = 4096000", "WARNING: Stat() of aggregate file size      = 409600",
		"\nread "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestIORFormerlyRefused runs the options hpcbench refused before: -M,
// -O memoryPerTask, -y, --randomPrefill, -O savePerOpDataCSV, and
// -O summaryAlways at the default verbosity (where IOR prints nothing
// for it).
func TestIORFormerlyRefused(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	out := iorLaunch(t, dir, "-a", "POSIX", "-M", "16m", "-vvv", "-b", "1m", "-t", "256k", "-o", f)
	for _, want := range []string{"This node hogging 16777216 bytes of memory", "This task hogging 8388608 bytes of memory",
		"memoryPerNode       : 16 MiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("-M: output lacks %q", want)
		}
	}
	out = iorLaunch(t, dir, "-a", "POSIX", "-O", "memoryPerTask=4m", "-b", "1m", "-t", "256k", "-o", f)
	if !strings.Contains(out, "memoryPerTask       : 4 MiB") {
		t.Errorf("-O memoryPerTask: output lacks its line:\n%s", out)
	}

	if err := os.Mkdir(filepath.Join(dir, "mnt0"), 0o755); err != nil {
		t.Fatal(err)
	}
	iorLaunch(t, dir, "-a", "POSIX", "-y", "-F", "-k", "-b", "1m", "-t", "256k", "-o", filepath.Join(dir, "mnt"))
	if left := dirEntries(t, filepath.Join(dir, "mnt0")); strings.Join(left, " ") != "data.00000000 data.00000001" {
		t.Errorf("-y: mnt0 holds %v, want data.00000000 data.00000001 (one NUMA node)", left)
	}

	iorLaunch(t, dir, "-a", "POSIX", "-w", "-k", "-F", "-z", "-z", "--randomPrefill", "4k", "--random-offset-seed=3",
		"-b", "16k", "-t", "4k", "-s", "8", "-o", filepath.Join(dir, "p"))
	for _, name := range []string{"p.00000000", "p.00000001"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for b := 0; b < len(data); b += 16 << 10 {
			if !slices.ContainsFunc(data[b:b+16<<10], func(c byte) bool { return c != 0 }) {
				t.Errorf("--randomPrefill: %s has a hole at block %d", name, b>>14)
			}
		}
	}

	prefix := filepath.Join(dir, "ops")
	iorLaunch(t, dir, "-a", "POSIX", "-w", "-b", "1m", "-t", "256k", "-s", "2", "-o", f, "-O", "savePerOpDataCSV="+prefix)
	for _, name := range []string{"ops-0-00000.csv", "ops-0-00001.csv"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != 1+8 || lines[0] != "time,runtime,tp" {
			t.Errorf("%s: %d lines, want the header and 8 transfers:\n%s", name, len(lines), data)
		}
	}

	out = iorLaunch(t, dir, "-a", "POSIX", "-b", "1m", "-t", "256k", "-o", f, "-O", "summaryFormat=JSON",
		"-O", "numNodes=2,numTasksOnNode0=1,platform=lab(Linux),debug=checking")
	for _, want := range []string{`"nodes": 2`, `"tasksPerNode": 1`, `"platform": "lab(Linux)"`, "*** DEBUG MODE ***\n*** checking ***"} {
		if !strings.Contains(out, want) {
			t.Errorf("-O numNodes, numTasksOnNode0, platform, debug: output lacks %q:\n%s", want, out)
		}
	}

	out = iorLaunch(t, dir, "-a", "POSIX", "-O", "summaryAlways=1", "-b", "1m", "-t", "256k", "-o", f)
	if !strings.Contains(out, "Summary of all tests:") {
		t.Errorf("summaryAlways: no summary:\n%s", out)
	}
}
