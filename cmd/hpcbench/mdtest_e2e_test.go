package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/report"
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

// TestMdtestMemoryFlat: a rank's memory does not grow with -n, as
// mdtest's does not (issue 34): mdtest -a DUMMY -F creates, stats, reads
// and removes 1e6 items alone, and 1e7 on each of two ranks in -R's order,
// each process peaking under 50 MB. With every path kept, -n 1e6 took 356
// MB and -n 1e7 3.3 GB. DUMMY's rates make the 1e7 run take 2 s.
//
// The peak is GNU time's %M: the ru_maxrss of its child, which covers the
// ranks the launcher reaps. The test's own wait4 would not do: Linux
// counts in a child's ru_maxrss the memory of the process it was forked
// from (the test binary, 65 MB under -race), which time is not.
func TestMdtestMemoryFlat(t *testing.T) {
	const limit = 50 << 20
	gnuTime := testenv.RequireTool(t, "time")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"1e6", []string{"mdtest", "-a", "DUMMY", "-n", "1000000", "-F"}, "1 tasks, 1000000 files"},
		{"1e7 2 ranks", []string{"launch", "-n", "2", "--", "hpcbench", "mdtest", "-a", "DUMMY", "-n", "10000000", "-F", "-R"}, "2 tasks, 20000000 files"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"-f", "hpcbench-maxrss-kib %M", hpcbench}, append(c.args, "-d", t.TempDir())...)
			r := testenv.Run(t, testenv.Context(t, 3*time.Minute), "", noPMIEnv, gnuTime, args...)
			if r.Code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
			for _, w := range []string{c.want, "File creation", "File stat", "File read", "File removal"} {
				if !strings.Contains(r.Stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.Stdout)
				}
			}
			var kib int64
			for _, l := range strings.Split(r.Stderr, "\n") {
				if v, ok := strings.CutPrefix(l, "hpcbench-maxrss-kib "); ok {
					kib, _ = strconv.ParseInt(v, 10, 64)
				}
			}
			if rss := kib << 10; rss <= 0 || rss >= limit {
				t.Errorf("peak resident set %.1f MB; want under %d MB\nstderr:\n%s", float64(rss)/1e6, limit>>20, r.Stderr)
			}
			t.Logf("peak resident set %.1f MB", float64(kib<<10)/1e6)
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

// TestMdtestBadInputJob: under the launcher, what depends on the job size
// is bad input too, as are the spellings mdtest's parser misreads: exit 2
// naming the argument, nothing created.
func TestMdtestBadInputJob(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "10", "-f", "1", "-l", "3"}, "-l 3 is more than the job's 2 ranks"},
		{[]string{"-n", "10", "--warningAsErrors"}, "--warningAsErrors: Read bytes is 0"},
		{[]string{"-n1k", "-F"}, `"-n1k": mdtest reads the letters of a value written against its option as options too, giving them the value (here -k): write -n 1k or -n=1k`},
		{[]string{"-Fn100"}, `"-Fn100": mdtest gives -n the next word, not "100", when it is not the first letter of a group: write -F -n100`},
		{[]string{"-n", "10", "-D", "-aDUMMY"}, `"-aDUMMY": mdtest reads the letters of a value written against its option as options too, giving them the value (here -D)`},
		{[]string{"-n", "10", "-B", "1"}, "-B 1 (no barriers) is not supported"},
	} {
		dir := t.TempDir()
		args := append([]string{"launch", "-n", "2", "--", "hpcbench", "mdtest", "-d", filepath.Join(dir, "md")}, tc.args...)
		r := run(t, time.Minute, args...)
		if r.Code != 2 || !strings.Contains(r.Stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s", tc.args, r.Code, r.Stderr, tc.want)
		}
		if left := dirEntries(t, dir); len(left) != 0 {
			t.Errorf("%v: created %v", tc.args, left)
		}
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
		{[]string{"-n", "10", "-c", "-W", "5"}, "-c cannot be combined with -W 5"},
		// what mdtest's option parser misreads
		{[]string{"-n1k"}, `"-n1k": mdtest reads the letters of a value written against its option as options too, giving them the value (here -k)`},
		{[]string{"-Fn100"}, `"-Fn100": mdtest gives -n the next word`},
		{[]string{"-n", "10", "-aPOSIX"}, "write -a POSIX or -a=POSIX"},
		{[]string{"-n", "10", "-k", "-w", "10"}, "-k"},
		{[]string{"-n", "10", "-w", "1.5k"}, "-w"},
		{[]string{"-n", "10", "-a", "MMAP"}, "MMAP"},
		{[]string{"-n", "10", "-i", "0"}, "-i"},
		{[]string{"-n", "10", "-B", "1"}, "-B 1 (no barriers) is not supported"},
		{[]string{"stray"}, "stray"},
		// the distributions' flags
		{[]string{"-n", "10", "--interval", "0s"}, "--interval: 0s: want a duration in [1ms, 1h]"},
		{[]string{"-n", "10", "--interval", "soon"}, `--interval: "soon" is not a duration`},
		{[]string{"-n", "10", "--until-steady=10s"}, "--until-steady"},
		{[]string{"-n", "10", "--until-steady=1s,5%"}, "--until-steady window 1s must span at least 2 intervals of --interval 1s"},
		{[]string{"-n", "10", "-T", "-r", "--until-steady"}, "--until-steady=10s,7.5% needs the create phase"},
		{[]string{"-n", "10", "-c", "--until-steady"}, "-c cannot be combined with --until-steady"},
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

// mdtestLine is one mdtest command line of TestMdtestCommandLines, run as
// "hpcbench launch -n ranks -- hpcbench mdtest ARGS -d DIR", with what its
// stdout must hold and what it must not.
type mdtestLine struct {
	ranks      int
	args, want []string
	not        []string
}

// TestMdtestCommandLines runs, under the launcher, a real command line of
// each class that mdtest runs and hpcbench once refused: mdtest's own
// testing/basic-tests.sh and complex-tests.sh lines (which test-lib.sh
// runs with "-d DIR -V=4" appended), grouped short options and -X=value
// spellings as option.c reads them, -f/-l/-s sweeps, -c,
// --print-all-procs and --savePerOpDataCSV. Each exits 0 and leaves the
// directory empty.
func TestMdtestCommandLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		mdtestLine
	}{
		// no -n nor -I: mdtest's defaults, no items (basic-tests.sh)
		{"defaults", mdtestLine{1, []string{"-a", "POSIX", "-V=4"},
			[]string{"1 tasks, 0 files/directories", "   File creation                   0.000", "Tree creation"}, nil}},
		{"defaults-stonewall", mdtestLine{2, []string{"-a", "POSIX", "-W", "2", "-V=4"},
			[]string{"2 tasks, 0 files/directories", "Tree removal"}, nil}},
		// basic-tests.sh's -I lines and complex-tests.sh's DUMMY line
		{"basic-leaf", mdtestLine{1, []string{"-C", "-T", "-r", "-F", "-I", "1", "-z", "1", "-b", "1", "-L", "-u", "-V=4"},
			[]string{"1 tasks, 1 files", "File creation", "File stat", "File removal"}, []string{"Directory creation"}}},
		{"complex-dummy", mdtestLine{2, []string{"-I", "20", "-a", "DUMMY", "-W", "1", "-x", "stonewall-md.log", "-C", "-V=4"},
			[]string{"2 tasks, 40 files/directories", "File creation"}, nil}},
		// grouped short options and -X=value, as option.c reads them
		{"groups", mdtestLine{2, []string{"-FCTrn", "30", "-z=1", "-b=2", "-vv", "-i=2"},
			[]string{"2 tasks, 60 files", "SUMMARY rate (in ops/sec): (of 2 iterations)", "File stat"}, []string{"Directory creation"}}},
		{"groups-equals", mdtestLine{2, []string{"-uF=1", "-n=30", "-w=4k", "-e=4k", "-X", "-P", "-R=7"},
			[]string{"2 tasks, 60 files", "SUMMARY time (in ms/op)", "File read"}, []string{"Directory creation"}}},
		// rank sweeps: basic-tests.sh's, and one with a stride
		{"sweep", mdtestLine{2, []string{"-n", "1", "-f", "1", "-l", "2", "-V=4"},
			[]string{"launched with 2 total task(s)", "1 tasks, 1 files/directories", "2 tasks, 2 files/directories"}, nil}},
		{"sweep-stride", mdtestLine{3, []string{"-n", "10", "-F", "-u", "-f", "1", "-l", "3", "-s", "2"},
			[]string{"1 tasks, 10 files", "3 tasks, 30 files"}, []string{"2 tasks"}}},
		// the options once refused
		{"collective", mdtestLine{2, []string{"-n", "20", "-c", "-F", "-w", "64", "-e", "64", "-X"},
			[]string{"2 tasks, 40 files", "File read"}, nil}},
		{"print-all-procs", mdtestLine{2, []string{"-n", "10", "-F", "-P", "--print-all-procs"},
			[]string{"Per process result (rate):\niteration: 0\nTest File creation ", "Per process result (time):"}, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r := runMdtestLine(t, dir, tc.mdtestLine)
			for _, w := range tc.want {
				if !strings.Contains(r.Stdout, w) {
					t.Errorf("stdout lacks %q", w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(r.Stdout, w) {
					t.Errorf("stdout has %q", w)
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

// runMdtestLine runs l under the launcher with -d dir/md, in dir (so that
// relative files such as -x's land there), and fails unless it exits 0.
func runMdtestLine(t *testing.T, dir string, l mdtestLine) testenv.Result {
	t.Helper()
	args := append([]string{"launch", "-n", strconv.Itoa(l.ranks), "--", "hpcbench", "mdtest"}, l.args...)
	args = append(args, "-d", filepath.Join(dir, "md"))
	r := runIn(t, dir, 3*time.Minute, args...)
	if r.Code != 0 {
		t.Fatalf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", l.args, r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// TestMdtestPerOpCSV: --savePerOpDataCSV=PREFIX leaves, for each rank and
// file phase, PREFIX-PHASE-RANK.csv with mdtest's header and one line per
// operation.
func TestMdtestPerOpCSV(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	prefix := filepath.Join(out, "op")
	runMdtestLine(t, dir, mdtestLine{ranks: 2, args: []string{"-n", "7", "-F", "-w", "100", "-e", "100", "--savePerOpDataCSV=" + prefix}})
	for _, phase := range []string{"File creation", "File stat", "File read", "File removal"} {
		for rank := range 2 {
			data, err := os.ReadFile(fmt.Sprintf("%s-%s-%05d.csv", prefix, phase, rank))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if lines[0] != "time,runtime,tp" || len(lines) != 1+7 {
				t.Errorf("%s, rank %d:\n%s", phase, rank, data)
			}
		}
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// runIn runs hpcbench with args in dir.
func runIn(t *testing.T, dir string, timeout time.Duration, args ...string) testenv.Result {
	t.Helper()
	return testenv.Run(t, testenv.Context(t, timeout), dir, noPMIEnv, hpcbench, args...)
}

// TestMdtestArchiveDist: under a 2-rank launch, --archive holds for every
// phase and iteration the latency, series, ranks and hosts tables, with
// every item counted: the latencies' operations and the series' items
// are the 2 ranks' items, and each rank's row holds its own.
func TestMdtestArchiveDist(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	a := filepath.Join(out, "a.json")
	r := run(t, 2*time.Minute, "launch", "-n", "2", "--", "hpcbench", "mdtest", "-a", "POSIX", "-n", "300", "-F", "-i", "2",
		"--interval", "1ms", "-d", dir, "--archive", a)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	res := readRunArchive(t, a)
	tables := map[string]*report.Table{}
	for i := range res.Tables {
		tables[res.Tables[i].Name] = &res.Tables[i]
	}
	for _, name := range []string{"latency", "series", "ranks", "hosts"} {
		if tables[name] == nil {
			t.Fatalf("archive lacks the %q table", name)
		}
	}
	for _, iter := range []string{"0", "1"} {
		for _, ph := range []string{"File creation", "File stat", "File read", "File removal"} {
			key := ph + ", iteration " + iter
			var lat []report.Row
			for _, row := range tables["latency"].Rows {
				if row.Labels[0] == ph && row.Labels[1] == iter {
					lat = append(lat, row)
				}
			}
			if len(lat) != 1 {
				t.Fatalf("%s: %d latency rows", key, len(lat))
			}
			m := lat[0].Metrics // ops, p50, p90, p99, max
			// Each rank times its first 64 items, then a sample of the
			// rest when they are short (dist.Recorder.Due).
			if m[0] < 128 || m[0] > 600 || !(m[1] > 0 && m[1] <= m[2] && m[2] <= m[3] && m[3] <= m[4] && m[4] < 10) {
				t.Errorf("%s: latency %v, want 128 to 600 items timed and 0 < p50 <= p90 <= p99 <= max", key, m)
			}
			items, prev := 0.0, 0.0
			for _, row := range tables["series"].Rows {
				if row.Labels[0] == ph && row.Labels[1] == iter {
					items += row.Metrics[1] * (row.Metrics[0] - prev)
					prev = row.Metrics[0]
				}
			}
			if math.Abs(items-600) > 1e-6 {
				t.Errorf("%s: the series sums to %g items, want 600", key, items)
			}
			ranks := 0
			for _, row := range tables["ranks"].Rows {
				if row.Labels[0] == ph && row.Labels[1] == iter {
					ranks++
					if row.Metrics[0] != 300 || !(row.Metrics[1] > 0) || !(row.Metrics[2] > 0) {
						t.Errorf("%s: rank %s: items, done, rate %v; want 300 items", key, row.Labels[2], row.Metrics)
					}
				}
			}
			if ranks != 2 {
				t.Errorf("%s: %d rank rows, want 2", key, ranks)
			}
			hosts := 0
			for _, row := range tables["hosts"].Rows {
				if row.Labels[0] == ph && row.Labels[1] == iter {
					hosts++
					if row.Metrics[0] != 2 || row.Metrics[1] != 600 {
						t.Errorf("%s: host %s: ranks, items %v; want 2, 600", key, row.Labels[2], row.Metrics[:2])
					}
				}
			}
			if hosts != 1 {
				t.Errorf("%s: %d host rows, want 1", key, hosts)
			}
		}
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
