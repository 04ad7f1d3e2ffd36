package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIO500Launch runs a short IO500 (stonewall 1 s: INVALID by design)
// under the launcher on 2 ranks, and checks the console, the result files,
// the archive (read back by report) and that the data dir is left empty.
func TestIO500Launch(t *testing.T) {
	dir := t.TempDir()
	ini := writeINI(t, dir, fmt.Sprintf("[global]\ndatadir = %s/data\nresultdir = %s/results\ntimestamp-datadir = FALSE\ntimestamp-resultdir = FALSE\n"+
		"[debug]\nstonewall-time = 1\n[ior-easy]\ntransferSize = 1m\nblockSize = 8m\n[mdtest-easy]\nn = 300\n[ior-hard]\nsegmentCount = 200\n[mdtest-hard]\nn = 300\n", dir, dir))
	archive := filepath.Join(dir, "io500.json")
	r := run(t, 3*time.Minute, "launch", "-n", "2", "--", "hpcbench", "io500", ini, "--archive", archive)
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	want := []string{"IO500 version hpcbench-", "ERROR INVALID stonewall-time 1s != 300s", "This IO500 run is INVALID"}
	for _, ph := range []string{"ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write", "find", "ior-easy-read",
		"mdtest-easy-stat", "ior-hard-read", "mdtest-hard-stat", "mdtest-easy-delete", "mdtest-hard-read", "mdtest-hard-delete"} {
		want = append(want, fmt.Sprintf("[RESULT] %20s ", ph))
	}
	want = append(want, "[SCORE ] Bandwidth ", "[INVALID]")
	for _, w := range want {
		if !strings.Contains(r.Stdout, w) {
			t.Errorf("stdout lacks %q", w)
		}
	}
	res, err := os.ReadFile(filepath.Join(dir, "results", "result.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"[run]\nprocs           = 2\n", "; ERROR INVALID stonewall-time 1s != 300s\n", "[find]\n", "found           = ", "total-files     = 1203\n", "[SCORE]\nMD              = ", "hash            = "} {
		if !strings.Contains(string(res), w) {
			t.Errorf("result.txt lacks %q", w)
		}
	}
	for _, f := range []string{"result_summary.txt", "config.ini", "config-orig.ini", "ior-easy-write.txt", "mdtest-hard-read.csv", "timestampfile"} {
		if _, err := os.Stat(filepath.Join(dir, "results", f)); err != nil {
			t.Errorf("results dir: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
		t.Errorf("the data dir is left behind: %v", dirEntries(t, filepath.Join(dir, "data")))
	}
	// The archive re-renders as result_summary.txt, byte for byte.
	summary, err := os.ReadFile(filepath.Join(dir, "results", "result_summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rep := run(t, time.Minute, "report", archive)
	if rep.Code != 0 || rep.Stdout != string(summary) {
		t.Errorf("report of the archive: exit %d\n%s\nwant result_summary.txt:\n%s\n%s", rep.Code, rep.Stdout, summary, rep.Stderr)
	}
	if tb := run(t, time.Minute, "report", "--format", "tables", archive); tb.Code != 0 || !strings.Contains(tb.Stdout, "io500 phases") {
		t.Errorf("report --format tables: exit %d\n%s", tb.Code, tb.Stdout)
	}
	// The result file verifies against the configuration, as io500
	// --verify says of an invalid run: hashes right, exit 1.
	v := run(t, time.Minute, "io500", ini, "--verify", filepath.Join(dir, "results", "result.txt"))
	if v.Code != 1 || !strings.Contains(v.Stdout, "\n[OK] But this is an invalid run!\n") || !strings.Contains(v.Stderr, "the run is INVALID") {
		t.Errorf("--verify: exit %d\n%s\n%s", v.Code, v.Stdout, v.Stderr)
	}
	cmp := run(t, time.Minute, "compare", archive, archive)
	if cmp.Code != 0 || !strings.Contains(cmp.Stdout, "table: io500 phases") || !strings.Contains(cmp.Stdout, "table: io500 score") {
		t.Errorf("compare of the archive with itself: exit %d\n%s\n%s", cmp.Code, cmp.Stdout, cmp.Stderr)
	}
	png := filepath.Join(dir, "io500.png")
	if p := run(t, time.Minute, "plot", archive, "-o", png); p.Code != 0 {
		t.Errorf("plot: exit %d\n%s", p.Code, p.Stderr)
	} else if fi, err := os.Stat(png); err != nil || fi.Size() == 0 {
		t.Errorf("plot wrote no chart: %v", err)
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s\nresult.txt:\n%s", r.Stdout, r.Stderr, res)
	}
}

// TestIO500BadInput: a bad INI file is refused in one line, exit 2.
func TestIO500BadInput(t *testing.T) {
	ini := writeINI(t, t.TempDir(), "[global]\ndatadir = /tmp/x\n[ior-easy]\nblocksize = 1m\nbogus = 1\n")
	r := run(t, time.Minute, "io500", ini)
	if r.Code != 2 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, `unknown option "bogus" in [ior-easy]`) {
		t.Errorf("exit %d, stderr %q: want 2 and one line naming the key and section", r.Code, r.Stderr)
	}
}

// TestIO500BadPhase: a value ior refuses ([ior-easy] blockSize not a
// multiple of transferSize) is refused before any work, naming the phase.
func TestIO500BadPhase(t *testing.T) {
	dir := t.TempDir()
	ini := writeINI(t, dir, fmt.Sprintf("[global]\ndatadir = %s/data\nresultdir = %s/results\n[ior-easy]\ntransferSize = 2m\nblockSize = 3m\n", dir, dir))
	r := run(t, time.Minute, "io500", ini)
	if r.Code != 2 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, "io500: ior-easy-write: ior ") ||
		!strings.Contains(r.Stderr, "is not a multiple of -t") {
		t.Errorf("exit %d, stderr %q: want 2 and one line naming the phase and ior's refusal", r.Code, r.Stderr)
	}
	if left := dirEntries(t, dir); len(left) != 1 {
		t.Errorf("files made before the refusal: %v", left)
	}
}

// TestIO500DFS runs the short IO500 on -a DFS: the phases' directories are
// made, walked by find and removed in the object store's namespace.
func TestIO500DFS(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool")
	if r := run(t, time.Minute, "dfs", "pool", "create", pool); r.Code != 0 {
		t.Fatalf("pool create: exit %d\n%s", r.Code, r.Stderr)
	}
	ini := writeINI(t, dir, fmt.Sprintf("[global]\ndatadir = /io500/data\nresultdir = %s/results\ntimestamp-datadir = FALSE\ntimestamp-resultdir = FALSE\n"+
		"api = DFS --dfs.pool=%s --dfs.cont=c\n[debug]\nstonewall-time = 1\n[ior-easy]\ntransferSize = 1m\nblockSize = 4m\n"+
		"[mdtest-easy]\nn = 200\n[ior-hard]\nsegmentCount = 100\n[mdtest-hard]\nn = 200\n", dir, pool))
	r := run(t, 3*time.Minute, "launch", "-n", "2", "--", "hpcbench", "io500", ini)
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	res, err := os.ReadFile(filepath.Join(dir, "results", "result.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// 400 + 400 mdtest files, 2 ior-easy files, 1 ior-hard file.
	for _, w := range []string{"-a DFS --dfs.pool=" + pool + " --dfs.cont=c", "total-files     = 803\n", "[SCORE]\n"} {
		if !strings.Contains(string(res), w) {
			t.Errorf("result.txt lacks %q", w)
		}
	}
	if strings.Contains(string(res), "found           = 0\n") {
		t.Error("find found nothing")
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s\nresult.txt:\n%s", r.Stdout, r.Stderr, res)
	}
}

// TestIO500DryRun prints every phase's command line, runs none and says
// the run is invalid, as IO500's --dry-run; --list prints every option.
func TestIO500DryRun(t *testing.T) {
	dir := t.TempDir()
	ini := writeINI(t, dir, fmt.Sprintf("[global]\ndatadir = %s/data\nresultdir = %s/results\n", dir, dir))
	r := run(t, time.Minute, "io500", ini, "--dry-run")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if n := strings.Count(r.Stdout, "[DRYRUN] "); n != 13 {
		t.Errorf("%d command lines, want 13 (every phase but the timestamp)", n)
	}
	for _, w := range []string{"ERROR INVALID DRY RUN MODE ACTIVATED", "./ior --dataPacketType=timestamp -C -Q 1 -g -G=", "-t 47008 -b 47008 -s 10000000",
		"./mdtest --dataPacketType=timestamp -n 1000000 -t -w 3901 -e 3901", "./pfind " + dir + "/data/", "[INVALID]"} {
		if !strings.Contains(r.Stdout, w) {
			t.Errorf("stdout lacks %q", w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
		t.Errorf("a dry run made the data dir: %v", err)
	}
	// --timestamp names the results dir; --config-hash prints the hash.
	ts := run(t, time.Minute, "io500", ini, "--dry-run", "--timestamp=myrun", "-v")
	if ts.Code != 0 {
		t.Errorf("--timestamp: exit %d\n%s", ts.Code, ts.Stderr)
	} else if _, err := os.Stat(filepath.Join(dir, "results", "myrun", "result.txt")); err != nil {
		t.Errorf("--timestamp=myrun: %v", err)
	}
	if h := run(t, time.Minute, "io500", ini, "--config-hash"); h.Code != 0 || !strings.HasPrefix(h.Stdout, "config-hash     = ") {
		t.Errorf("--config-hash: exit %d %q", h.Code, h.Stdout)
	}
	l := run(t, time.Minute, "io500", "--list")
	if l.Code != 0 || !strings.HasPrefix(l.Stdout, "# Supported and current values of the ini file:\n[global]\n") || !strings.Contains(l.Stdout, "[ior-rnd4K-easy-read]") {
		t.Errorf("--list: exit %d\n%s", l.Code, l.Stdout)
	}
}

// TestIO500Cleanup: --cleanup runs only the delete phases, which remove
// what a failed run's creates left, and the data dir with them.
func TestIO500Cleanup(t *testing.T) {
	dir := t.TempDir()
	ini := writeINI(t, dir, fmt.Sprintf("[global]\ndatadir = %s/data\nresultdir = %s/results\ntimestamp-datadir = FALSE\ntimestamp-resultdir = FALSE\n[mdtest-easy]\nn = 100\n", dir, dir))
	// What a run that failed after mdtest-easy-write leaves.
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	mk := run(t, time.Minute, "launch", "-n", "2", "--", "hpcbench", "mdtest", "-n", "100", "-u", "-L", "-F", "-G", "7", "-N", "1",
		"-d", filepath.Join(dir, "data", "mdtest-easy"), "-C")
	if mk.Code != 0 {
		t.Fatalf("mdtest -C: exit %d\n%s", mk.Code, mk.Stderr)
	}
	r := run(t, time.Minute, "launch", "-n", "2", "--", "hpcbench", "io500", ini, "--cleanup")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if n := strings.Count(r.Stdout, "[RESULT]"); n != 2 || !strings.Contains(r.Stdout, "mdtest-easy-delete") {
		t.Errorf("%d phases ran, want the 2 deletes:\n%s", n, r.Stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
		t.Errorf("the data dir is left: %v", dirEntries(t, filepath.Join(dir, "data")))
	}
}

// writeINI writes an IO500 INI file in dir and returns its path.
func writeINI(t *testing.T, dir, body string) string {
	t.Helper()
	ini := filepath.Join(dir, "c.ini")
	if err := os.WriteFile(ini, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return ini
}
