package mdtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/report"
)

// table returns the named table of r.
func table(t *testing.T, r *report.Result, name string) *report.Table {
	t.Helper()
	for i := range r.Tables {
		if r.Tables[i].Name == name {
			return &r.Tables[i]
		}
	}
	t.Fatalf("no table %q", name)
	return nil
}

// ops returns the operations of the rate table with their mean.
func ops(t *testing.T, r *report.Result) map[string]float64 {
	m := map[string]float64{}
	for _, row := range table(t, r, report.MdtestRateTable).Rows {
		m[row.Labels[0]] = row.Metrics[2]
	}
	return m
}

// TestPOSIXPhases runs every phase with real files and directories on
// several ranks and checks every phase ran, the rates are positive, and
// the directory is left empty.
func TestPOSIXPhases(t *testing.T) {
	for _, tc := range []struct {
		name, flags string
		ranks       int
		want        []string
	}{
		{"files-unique", "-n 50 -F -u -i 2", 3, []string{"File creation", "File stat", "File read", "File removal", "Tree creation", "Tree removal"}},
		{"both-shared-tree", "-n 40", 2, []string{"Directory creation", "Directory stat", "Directory rename", "Directory removal", "File creation", "File stat", "File read", "File removal"}},
		{"tree", "-z 2 -b 3 -I 10", 2, []string{"Directory creation", "File creation", "File removal", "Tree creation", "Tree removal"}},
		{"tree-leaf-unique", "-z 2 -b 2 -I 5 -L -u -F -w 4096 -e 4096 -X", 2, []string{"File creation", "File read"}},
		{"stride-random", "-n 30 -F -N 1 -R -u", 3, []string{"File stat"}},
		{"dirs-n-and-I", "-n 20 -I 5 -D", 2, []string{"Directory creation", "Directory removal"}},
		{"shared-file", "-n 20 -S -F -w 100 -e 100", 3, []string{"File creation", "File stat", "File read", "File removal"}},
		{"collective", "-n 10 -c -w 64 -e 64 -X", 3, []string{"Directory creation", "Directory removal", "File creation", "File read", "File removal"}},
		{"collective-unique-tree", "-n 12 -c -u -z 1 -b 2 -F", 2, []string{"File creation", "File removal", "Tree creation", "Tree removal"}},
		{"verify-write", "-n 10 -F -w 100 -e 100 -X --verify-write", 2, []string{"File creation", "File read"}},
		{"sweep", "-n 10 -F -u -f 1 -l 3", 3, []string{"File creation", "File stat", "File removal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			j := runJob(t, tc.ranks, fmt.Sprintf("-a POSIX %s -d %s", tc.flags, dir), false, nil)
			noErrors(t, j)
			got := ops(t, j.res)
			for _, op := range tc.want {
				if !(got[op] > 0) {
					t.Errorf("%s: mean rate %v, want > 0 (all: %v)", op, got[op], got)
				}
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				var names []string
				for _, e := range left {
					names = append(names, e.Name())
				}
				t.Errorf("left behind: %v", names)
			}
		})
	}
}

// TestCollectiveCreates checks that with -c rank 0 does every rank's
// creates: each DUMMY mknod (-k) sleeps 10 ms, so rank 0, which makes
// both ranks' 5 files, takes at least 100 ms, where its own 5 would take
// 50. Both ranks count their 5 items, as mdtest's do (rank 1 waits for
// rank 0 inside the phase, as mdtest's barrier makes it).
func TestCollectiveCreates(t *testing.T) {
	j := runJob(t, 2, "-a DUMMY --dummy.delay-create=10000 -n 5 -F -k -C -c -d md", false, nil)
	noErrors(t, j)
	seen := 0
	for _, row := range table(t, j.res, report.MdtestRanksTable).Rows {
		if row.Labels[2] != report.MdtestFileCreate || row.Labels[1] == report.MdtestAllRanks {
			continue
		}
		seen++
		secs, items := row.Metrics[1], row.Metrics[2]
		switch rank := row.Labels[1]; {
		case items != 5:
			t.Errorf("rank %s: %v items, want 5", rank, items)
		case rank == "0" && secs < 0.1:
			t.Errorf("rank 0 created in %.3f s, want >= 0.1 s for both ranks' 10 files", secs)
		}
	}
	if seen != 2 {
		t.Errorf("%d per-rank File creation rows, want 2", seen)
	}
}

// TestSweepResults checks a -f/-l/-s sweep's Results: one per number of
// tasks, each counting its own tasks and items, all naming the job's
// ranks in the banner.
func TestSweepResults(t *testing.T) {
	j := runJob(t, 3, "-a DUMMY -n 4 -F -f 1 -l 3 -s 2 -d md", true, nil)
	noErrors(t, j)
	if len(j.all) != 2 {
		t.Fatalf("%d results, want 2 (1 and 3 tasks)", len(j.all))
	}
	for i, want := range []struct{ tasks, items string }{{"1", "4"}, {"3", "12"}} {
		r := j.all[i]
		if r.Run.Ranks != 3 {
			t.Errorf("result %d: Run.Ranks %d, want the job's 3", i, r.Run.Ranks)
		}
		got := map[string]string{}
		for _, row := range table(t, r, report.MdtestHeaderTable).Rows {
			got[row.Labels[0]] = row.Labels[1]
		}
		if got[report.MdtestTasks] != want.tasks || got[report.MdtestItems] != want.items {
			t.Errorf("result %d: %s tasks, %s items; want %s, %s", i, got[report.MdtestTasks], got[report.MdtestItems], want.tasks, want.items)
		}
	}
}

// TestFileVanishes removes one file between the create and stat phases,
// as another process would, and checks the failure is counted, named with
// its path and errno, the run ends with ErrOps, and nothing is left.
func TestFileVanishes(t *testing.T) {
	dir := t.TempDir()
	var victim string
	runCmd := func(_ context.Context, cmd, phase string) error {
		if phase != report.MdtestFileStat {
			return nil
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "test-dir.0-0", "mdtest_tree.1.0", "file.mdtest.1.3"))
		if len(matches) != 1 {
			return fmt.Errorf("victim not found")
		}
		victim = matches[0]
		return os.Remove(victim)
	}
	j := runJob(t, 2, fmt.Sprintf("-a POSIX -n 10 -F -u -d %s --run-cmd-before-phase=x", dir), false, runCmd)
	for r, err := range j.errs {
		if !errors.Is(err, ErrOps) {
			t.Fatalf("rank %d: %v, want ErrOps", r, err)
		}
	}
	errs := table(t, j.res, report.MdtestErrorsTable)
	if len(errs.Rows) == 0 {
		t.Fatal("no errors table rows")
	}
	// The stat, the read and the removal of the vanished file fail.
	want := map[string]bool{report.MdtestFileStat: true, report.MdtestFileRead: true, report.MdtestFileRemove: true}
	for _, row := range errs.Rows {
		if !want[row.Labels[0]] || row.Metrics[0] != 1 || row.Labels[2] != victim || row.Labels[3] != "no such file or directory" {
			t.Errorf("error row %v, want one failure on %s with ENOENT", row.Labels, victim)
		}
	}
	if !slices.ContainsFunc(j.warn, func(s string) bool {
		return strings.HasPrefix(s, "ERROR: 1 operations failed in File stat; first: stat "+victim+": no such file or directory")
	}) {
		t.Errorf("warnings %q", j.warn)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestStonewallStatusFile: a create phase cut short by -W saves the count
// every rank reached in -x's file; a later stat-and-remove run reads it
// and works on that many items, so nothing fails and nothing is left.
func TestStonewallStatusFile(t *testing.T) {
	dir := t.TempDir()
	status := filepath.Join(t.TempDir(), "status")
	// The fake clock advances 1 ms a reading: -W 1 stops near item 1000.
	j := runJob(t, 2, fmt.Sprintf("-a POSIX -n 3000 -F -u -C -W 1 -x %s -d %s", status, dir), true, nil)
	noErrors(t, j)
	data, err := os.ReadFile(status)
	if err != nil {
		t.Fatal(err)
	}
	saved := strings.TrimSpace(string(data))
	if saved == "" || saved == "3000" {
		t.Fatalf("status file holds %q, want a count below 3000", saved)
	}
	// The stonewall figures: both ranks' items at the stonewall, at most
	// the saved count each, and their rate.
	var stone *report.Table
	for i := range j.res.Tables {
		if j.res.Tables[i].Name == report.MdtestStonewallTable {
			stone = &j.res.Tables[i]
		}
	}
	if stone == nil || len(stone.Rows) != 1 || stone.Rows[0].Labels[0] != report.MdtestFileCreate {
		t.Fatalf("stonewall table %+v, want one File creation row", stone)
	}
	m := stone.Rows[0].Metrics
	if n, _ := strconv.ParseFloat(saved, 64); m[0] <= 0 || m[0] > 2*n || m[1] <= 0 || math.Abs(m[2]-m[0]/m[1]) > 1e-9*m[2] {
		t.Errorf("stonewall figures %v: want items in (0, %v], a time, items/time", m, 2*n)
	}
	j = runJob(t, 2, fmt.Sprintf("-a POSIX -n 3000 -F -u -T -r -x %s -d %s -v", status, dir), false, nil)
	noErrors(t, j)
	if !slices.ContainsFunc(j.warn, func(s string) bool { return strings.HasPrefix(s, "V-1: File stat: ") }) {
		t.Errorf("no -v note: %q", j.warn)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestSweepFailedCount: in a sweep, operations that fail at one task count
// are reported in that count's Result, the other counts still run, and
// every rank, those left out of the count included, ends with ErrOps.
func TestSweepFailedCount(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "test-dir.0-0", "mdtest_tree.1.0", "file.mdtest.1.3")
	runCmd := func(_ context.Context, cmd, phase string) error {
		if phase != report.MdtestFileStat {
			return nil
		}
		if err := os.Remove(victim); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil // with fewer than 2 tasks there is no rank 1 file
	}
	j := runJob(t, 3, fmt.Sprintf("-a POSIX -n 10 -F -u -f 1 -l 3 -d %s --run-cmd-before-phase=x", dir), false, runCmd)
	for r, err := range j.errs {
		if !errors.Is(err, ErrOps) {
			t.Errorf("rank %d: %v, want ErrOps", r, err)
		}
	}
	if len(j.all) != 3 {
		t.Fatalf("%d results, want one per task count", len(j.all))
	}
	for i, r := range j.all {
		failed := slices.ContainsFunc(r.Tables, func(tb report.Table) bool { return tb.Name == report.MdtestErrorsTable })
		if want := i > 0; failed != want {
			t.Errorf("%d tasks: errors table %v, want %v", i+1, failed, want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestCollectiveCreatesWriteOnce checks that under -c rank 0's pass over
// every rank's files only creates them, as mdtest's collective_helper
// does, and that each rank writes -w bytes into its own files alone: with
// a 100 ms delay per write, rank 0's File creation records (its
// --savePerOpDataCSV) hold 10 creates without a write and 5 writes.
func TestCollectiveCreatesWriteOnce(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "op")
	j := runJob(t, 2, "-a DUMMY --dummy.delay-xfer=100000 -n 5 -F -C -c -w 8 --savePerOpDataCSV="+prefix+" -d md", false, nil)
	noErrors(t, j)
	data, err := os.ReadFile(prefix + "-" + phFileCreate + "-00000.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")[1:]
	slow := 0
	for _, l := range lines {
		f := strings.Split(l, ",")
		secs, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			t.Fatalf("runtime of %q: %v", l, err)
		}
		if secs >= 0.1 {
			slow++
		}
	}
	if len(lines) != 15 || slow != 5 {
		t.Errorf("rank 0 timed %d creates, %d of them with a write; want 15 and 5 (10 collective creates without data, then its own 5 files)", len(lines), slow)
	}
}

// TestNegativeDataSeed: a -G below -1 is a seed like any other, as in
// mdtest.c (only -1 means the time): files one run wrote with it verify in
// a later run at another time (IO500 passes such seeds to its mdtest-hard
// write and read phases).
func TestNegativeDataSeed(t *testing.T) {
	dir := t.TempDir()
	j := runJob(t, 2, "-a POSIX -n 20 -F -N 1 -w 3901 -e 3901 -G -1556529143 -C -d "+dir, true, nil)
	noErrors(t, j)
	j = runJob(t, 2, "-a POSIX -n 20 -F -N 1 -w 3901 -e 3901 -G -1556529143 -E -X -d "+dir, false, nil)
	noErrors(t, j)
}
