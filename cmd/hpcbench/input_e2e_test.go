package main

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// TestCollOneRankSaysSo: a 2-rank benchmark on 1 rank says so, as IMB
// says "# !! Benchmark PingPong invalid for 1 processes !!", and exits 0:
// in IMB's layout, and on stderr when stdout is CSV or JSON.
func TestCollOneRankSaysSo(t *testing.T) {
	const note = "PingPong needs at least 2 ranks; this job has 1: not run"
	r := testenv.Run(t, testenv.Context(t, time.Minute), t.TempDir(), noPMIEnv, hpcbench, "coll", "-msglog", "0:2", "-iter", "4", "PingPong", "Barrier")
	if r.Code != 0 || !strings.Contains(r.Stdout, "\n# !! "+note+" !!\n") || !strings.Contains(r.Stdout, "# Benchmarking Barrier") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0, the note and Barrier's table", r.Code, r.Stdout, r.Stderr)
	}
	r = testenv.Run(t, testenv.Context(t, time.Minute), t.TempDir(), noPMIEnv, hpcbench, "coll", "--csv", "-msglog", "0:2", "-iter", "4", "PingPong")
	if r.Code != 0 || r.Stderr != "hpcbench: coll: "+note+"\n" {
		t.Errorf("--csv: exit %d, stderr %q; want exit 0 and the note", r.Code, r.Stderr)
	}
}

// TestHookFailureLeavesNothing: a failing --run-cmd-before-phase or
// -after-phase under a 2-rank launch ends the job non-zero, naming the
// command, and leaves no test tree: the -d the run made is gone, one
// that was there is empty.
func TestHookFailureLeavesNothing(t *testing.T) {
	for _, c := range []struct{ flag, phase string }{
		{"--run-cmd-before-phase", "File stat"},
		{"--run-cmd-after-phase", "Directory creation"},
		{"--run-cmd-after-phase", "File removal"},
	} {
		t.Run(c.flag+" "+c.phase, func(t *testing.T) {
			dir := t.TempDir()
			cmd := `test "$HPCBENCH_MDTEST_PHASE" != "` + c.phase + `"`
			if err := os.Mkdir(filepath.Join(dir, "there"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{"made", "there"} {
				r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench,
					"launch", "-n", "2", "--", "hpcbench", "mdtest", "-n", "6", "-d", d, c.flag, cmd)
				if r.Code != 1 || !strings.Contains(r.Stderr, "mdtest: "+c.phase+": command") {
					t.Errorf("-d %s: exit %d, stderr:\n%s\nwant 1 and the command's failure", d, r.Code, r.Stderr)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "made")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("made: %v; want it removed", err)
			}
			if left, _ := os.ReadDir(filepath.Join(dir, "there")); len(left) != 0 {
				t.Errorf("there: %d entries left, want none", len(left))
			}
		})
	}
}

// TestCollCSVShortDecimals: coll's CSV times are the measurement's own
// decimals: whole nanoseconds over the repetitions (and the ranks for
// t_avg), which with 20 repetitions on 2 ranks end within 15 significant
// digits, where float noise made them 17 (0.00000009820000000000661).
func TestCollCSVShortDecimals(t *testing.T) {
	r := testenv.Run(t, testenv.Context(t, time.Minute), t.TempDir(), noPMIEnv, hpcbench,
		"launch", "-n", "2", "--", "hpcbench", "coll", "--csv", "-iter_policy", "off", "-iter", "20", "-msglog", "0:4", "PingPong", "Allreduce", "Barrier")
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
	checked := 0
	for _, block := range strings.Split(strings.TrimSpace(r.Stdout), "\n\n") {
		recs, err := csv.NewReader(strings.NewReader(block)).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Fatalf("CSV block %q: %v", block, err)
		}
		for _, rec := range recs[1:] {
			for i, h := range recs[0] {
				if !strings.HasPrefix(h, "t_") || !strings.HasSuffix(h, "(s)") { // t_min(s), t_max(s), t_avg(s)
					continue
				}
				if digits := significant(rec[i]); digits > 15 {
					t.Errorf("%s %s = %s: %d significant digits, want at most 15", rec[0], h, rec[i], digits)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatalf("no time column found in:\n%s", r.Stdout)
	}
}

// significant counts the significant digits of a decimal such as
// 0.0000000982 (3).
func significant(s string) int {
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return 99
	}
	d := strings.TrimLeft(strings.ReplaceAll(strings.TrimPrefix(s, "-"), ".", ""), "0")
	return len(d)
}

// TestUsageErrorOnOtherRanks: a rank other than 0 (PMI_RANK, as every
// launcher sets it) with a usage error exits 2 a moment later, silent,
// rank 0 having said it for the job at once; and under MPICH's mpiexec
// -n 4 a usage error is printed once, within a second, and every rank
// exits 2 (Hydra does not end the others on rank 0's exit: they used to
// wait 10 s and then print it each).
func TestUsageErrorOnOtherRanks(t *testing.T) {
	env := append(append([]string{}, noPMIEnv...), "PMI_RANK=2", "PMI_SIZE=3")
	dir := t.TempDir()
	r := testenv.Run(t, testenv.Context(t, time.Minute), dir, env, hpcbench, "ior", "-t", "7")
	if r.Code != 2 || r.Stderr != "" || r.Stdout != "" || r.Elapsed > time.Second {
		t.Errorf("rank 2: exit %d after %v, stderr %q, stdout %q; want 2 within a second, silent", r.Code, r.Elapsed, r.Stderr, r.Stdout)
	}
	r = testenv.Run(t, testenv.Context(t, time.Minute), dir, append(env, "PMI_RANK=0"), hpcbench, "ior", "-t", "7")
	if r.Code != 2 || !strings.HasPrefix(r.Stderr, "hpcbench: ior: -b and -t") || r.Elapsed > time.Second {
		t.Errorf("rank 0: exit %d after %v, stderr %q; want 2 at once, with the error", r.Code, r.Elapsed, r.Stderr)
	}
	mpiexec := testenv.RequireTool(t, "mpiexec.mpich", "mpiexec.hydra")
	for _, args := range [][]string{
		{"ior", "-b", "abc", "-o", "f"},
		{"mdtest", "-n", "abc", "-d", "md"},
		{"coll", "-msglog", "9:1", "Barrier"},
		{"fabric", "pingpong", "-S", "x"},
		{"wireup", "--card-size", "-1"},
	} {
		r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, mpiexec, append([]string{"-n", "4", hpcbench}, args...)...)
		ours := 0
		for _, l := range strings.Split(r.Stderr, "\n") {
			if strings.HasPrefix(l, "hpcbench: "+args[0]+" ") || strings.HasPrefix(l, "hpcbench: "+args[0]+": ") {
				ours++
			}
		}
		if r.Code != 2 || ours != 1 || r.Stdout != "" || r.Elapsed > time.Second {
			t.Errorf("mpiexec -n 4 %q: exit %d after %v, %d lines of ours; want 2 within a second, one line\nstderr:\n%s",
				args, r.Code, r.Elapsed, ours, r.Stderr)
		}
	}
}
