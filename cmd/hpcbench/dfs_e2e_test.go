package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// dfsRun runs hpcbench with args in dir and fails the test unless it exits 0.
func dfsRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, hpcbench, args...)
	if r.Code != 0 {
		t.Fatalf("hpcbench %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// iorRows returns the access rows (write, read) of IOR's results table.
func iorRows(out string) map[string]bool {
	rows := map[string]bool{}
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "Results:"):
			in = true
		case strings.HasPrefix(l, "Summary of all tests:"):
			in = false
		case in && (strings.HasPrefix(l, "write ") || strings.HasPrefix(l, "read ")):
			rows[strings.Fields(l)[0]] = true
		}
	}
	return rows
}

// TestDFSIOR: 4 ranks write, check, read and check through -a DFS, a
// shared file and -F, over classes S1 and SX and chunks of 64 KiB and
// 1 MiB, with the job's own engine (the pool made on first use); -k keeps
// the files and a second job reads them back and checks them.
func TestDFSIOR(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool")
	for _, tc := range []struct {
		name, oclass, chunk string
		fpp                 bool
	}{
		{"S1 64k shared", "S1", "64k", false},
		{"SX 1m shared", "SX", "1m", false},
		{"S1 1m fpp", "S1", "1m", true},
		{"SX 64k fpp", "SX", "64k", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cont := strings.NewReplacer(" ", "-").Replace(tc.name)
			args := []string{"-a", "DFS", "--dfs.pool", pool, "--dfs.cont", cont, "--dfs.oclass", tc.oclass, "--dfs.chunk_size", tc.chunk,
				"-b", "2m", "-t", "256k", "-s", "2", "-C", "-G", "271828", "-o", "/data"}
			if tc.fpp {
				args = append(args, "-F")
			}
			archive := filepath.Join(dir, cont+".json")
			out := dfsRun(t, dir, append([]string{"launch", "-n", "4", "--", hpcbench, "ior", "-w", "-r", "-W", "-R", "-k", "--archive", archive}, args...)...)
			if rows := iorRows(out); !rows["write"] || !rows["read"] || !strings.Contains(out, "api                 : DFS") {
				t.Fatalf("no write and read rows, or not DFS:\n%s", out)
			}
			// The run record says where the data went.
			var rec struct {
				Run struct{ Env map[string]string } `json:"run"`
			}
			if b, err := os.ReadFile(archive); err != nil || json.Unmarshal(b, &rec) != nil {
				t.Fatalf("archive %s: %v", archive, err)
			}
			env := rec.Run.Env
			for k, want := range map[string]string{"dfs.pool": pool, "dfs.cont": cont, "dfs.oclass": tc.oclass,
				"dfs.chunk_size": map[string]string{"64k": "65536", "1m": "1048576"}[tc.chunk], "dfs.dir_oclass": "S1"} {
				if env[k] != want {
					t.Errorf("run record %s = %q, want %q", k, env[k], want)
				}
			}
			if !strings.HasPrefix(env["dfs.targets"], "4 on 1 file system(s): "+pool+"/tgt0") || !strings.HasPrefix(env["dfs.engine"], "started by rank 0 (engine pid ") || env["dfs.pool_uuid"] == "" {
				t.Errorf("run record: targets %q, engine %q, pool uuid %q", env["dfs.targets"], env["dfs.engine"], env["dfs.pool_uuid"])
			}
			// A second job reads back what the first kept (and keeps it: IOR
			// removes its files after a run without -k, reads too).
			out = dfsRun(t, dir, append([]string{"launch", "-n", "4", "--", hpcbench, "ior", "-r", "-R", "-k"}, args...)...)
			if rows := iorRows(out); !rows["read"] || rows["write"] {
				t.Fatalf("the second job did not read:\n%s", out)
			}
			q := dfsRun(t, dir, "dfs", "cont", "query", pool, cont)
			if !strings.Contains(q, "file class "+tc.oclass) || !strings.Contains(q, "array bytes 16 MiB") {
				t.Errorf("cont query:\n%s", q)
			}
		})
	}
	// The pool's files go with pool destroy.
	dfsRun(t, dir, "dfs", "pool", "destroy", pool)
	if _, err := os.Stat(pool); !os.IsNotExist(err) {
		ents, _ := os.ReadDir(pool)
		t.Errorf("pool destroy left %s: %v", pool, ents)
	}
}

// TestDFSMdtest: mdtest -a DFS with files (-F -u) and with a tree.
func TestDFSMdtest(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool")
	dfsRun(t, dir, "dfs", "pool", "create", pool, "--targets", "2")
	dfsRun(t, dir, "dfs", "cont", "create", pool, "md", "--oclass", "S2")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-n", "500", "-F", "-u", "-w", "4096", "-e", "4096"}, []string{"4 tasks, 2000 files", "File creation", "File stat", "File read", "File removal"}},
		{[]string{"-n", "40", "-z", "2", "-b", "3"}, []string{"Directory creation", "Directory removal", "File creation", "Tree creation"}},
	} {
		out := dfsRun(t, dir, append([]string{"launch", "-n", "4", "--", hpcbench, "mdtest", "-a", "DFS", "--dfs.pool", pool, "--dfs.cont", "md", "-d", "/t"}, tc.args...)...)
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("mdtest %q: no %q in\n%s", tc.args, w, out)
			}
		}
	}
}

// TestDFSFileSystemLine: ior's and mdtest's FS line under -a DFS, with
// the pool's targets on the disk a POSIX run writes to, reads as POSIX's:
// the same capacity and inodes, and used shares that count free blocks
// alike (DFS once counted f_bavail and printed no inodes).
func TestDFSFileSystemLine(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool")
	dfsRun(t, dir, "dfs", "pool", "create", pool, "--targets", "2")
	dfsRun(t, dir, "dfs", "cont", "create", pool, "c")
	fsLine := regexp.MustCompile(`(?m)^FS +: ([0-9.]+ GiB) +Used FS: ([0-9.]+)% +Inodes: ([0-9.]+ Mi) +Used Inodes: ([0-9.]+)%$`)
	figures := func(out string) []string {
		t.Helper()
		m := fsLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no FS line with four figures in\n%s", out)
		}
		return m[1:]
	}
	dfs := []string{"-a", "DFS", "--dfs.pool", pool, "--dfs.cont", "c"}
	posix := figures(dfsRun(t, dir, "ior", "-a", "POSIX", "-b", "64k", "-t", "64k", "-w", "-o", filepath.Join(dir, "f")))
	for _, out := range []string{
		dfsRun(t, dir, append([]string{"ior", "-b", "64k", "-t", "64k", "-w", "-o", "/f"}, dfs...)...),
		dfsRun(t, dir, append([]string{"mdtest", "-n", "5", "-d", "/m"}, dfs...)...),
		dfsRun(t, dir, "mdtest", "-a", "POSIX", "-n", "5", "-d", filepath.Join(dir, "m")),
	} {
		got := figures(out)
		if got[0] != posix[0] || got[2] != posix[2] {
			t.Errorf("FS %s, inodes %s; POSIX's %s, %s", got[0], got[2], posix[0], posix[2])
		}
		for _, i := range []int{1, 3} { // other writers share the disk: near, not equal
			a, _ := strconv.ParseFloat(got[i], 64)
			b, _ := strconv.ParseFloat(posix[i], 64)
			if a-b > 0.5 || b-a > 0.5 {
				t.Errorf("used %s%%, POSIX's %s%%", got[i], posix[i])
			}
		}
	}
}

// TestDFSBadInput: a missing or misspelled pool, a bad class, a bad chunk
// size, a pool made on a file or where nothing can be written: exit 2, one
// line, nothing created.
func TestDFSBadInput(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool")
	dfsRun(t, dir, "dfs", "pool", "create", pool, "--targets", "1")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ior := func(more ...string) []string {
		return append([]string{"ior", "-a", "DFS", "-w", "-b", "1m", "-t", "1m", "-o", "/f"}, more...)
	}
	// A pool of schema version 1, as an earlier hpcbench made it.
	old := filepath.Join(dir, "old")
	dfsRun(t, dir, "dfs", "pool", "create", old, "--targets", "1")
	oldJSON, err := os.ReadFile(filepath.Join(old, "pool.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, "pool.json"), regexp.MustCompile(`"version": *2`).ReplaceAll(oldJSON, []byte(`"version": 1`)), 0o644); err != nil {
		t.Fatal(err)
	}
	const oldWant = "schema version 1: invalid argument (this build reads 2; the pool was made by an earlier hpcbench"

	for _, tc := range []struct {
		args []string
		want string
	}{
		{ior("--dfs.pool", filepath.Join(dir, "no", "pool"), "--dfs.cont", "c"), "--dfs.pool: pool " + filepath.Join(dir, "no", "pool") + ": no such pool, and its parent"},
		{ior("--dfs.pool", dir, "--dfs.cont", "c"), "not a pool (no pool.json"},
		{ior("--dfs.pool", file, "--dfs.cont", "c"), "pool " + file + ": not a directory"},
		{ior("--dfs.cont", "c"), "--dfs.pool: required"},
		{ior("--dfs.pool", pool), "--dfs.cont: required"},
		{ior("--dfs.pool", pool, "--dfs.cont", "c", "--dfs.oclass", "RP_2G1"), "--dfs.oclass RP_2G1: Invalid DAOS object class"},
		{ior("--dfs.pool", pool, "--dfs.cont", "c", "--dfs.chunk_size", "0x"), "--dfs.chunk_size"},
		{ior("--dfs.pool", pool, "--dfs.cont", "c", "--dfs.chunk_size", "6000"), "chunk size 6000: invalid argument (want a multiple of 4 KiB from 4k to 1g)"},
		{ior("--dfs.pool", pool, "--dfs.cont", "a/b"), `--dfs.cont: label "a/b"`},
		{[]string{"mdtest", "-a", "DFS", "--dfs.pool", pool, "--dfs.cont", "c", "--dfs.dir_oclass", "S3", "-n", "5"}, "--dfs.dir_oclass S3: Invalid DAOS object class"},
		{[]string{"dfs", "pool", "create", file}, "is a regular file"},
		{[]string{"dfs", "pool", "create", "/proc/hpcbench-pool"}, "create pool /proc/hpcbench-pool"},
		{[]string{"dfs", "pool", "create", filepath.Join(dir, "p2"), "--targets", "0x"}, "--targets"},
		{[]string{"dfs", "pool", "query", filepath.Join(dir, "nope")}, "no such directory"},
		{[]string{"dfs", "cont", "query", pool, "nope"}, `has no container "nope" (it has: none)`},
		{[]string{"dfs", "cont", "destroy", pool, "nope"}, `has no container "nope"`},
		{[]string{"dfs", "cont", "create", pool, "c", "--oclass", "EC_2P1"}, "--oclass EC_2P1: Invalid DAOS object class"},
		{[]string{"dfs", "cont", "create", pool, "c", "--chunk-size", "1000"}, "chunk size 1000"},
		{[]string{"dfs", "cont", "create", filepath.Join(dir, "nope"), "c"}, "no such directory"},
		{[]string{"dfs", "engine"}, "--pool: required"},
		{[]string{"dfs", "frob"}, `unknown command "frob"`},
		{ior("--dfs.pool", old, "--dfs.cont", "c"), "--dfs.pool: pool " + old + ": " + filepath.Join(old, "pool.json") + ": " + oldWant},
		{[]string{"dfs", "pool", "query", old}, oldWant},
		{[]string{"dfs", "cont", "create", old, "c"}, oldWant},
		{[]string{"dfs", "engine", "--pool", old}, oldWant},
	} {
		before := tree(t, dir)
		r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, tc.args...)
		if r.Code != 2 || !strings.Contains(r.Stderr, tc.want) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q: want 2 and one line with %q", tc.args, r.Code, r.Stderr, tc.want)
		}
		if after := tree(t, dir); after != before {
			t.Errorf("%q changed the tree:\nbefore:\n%s\nafter:\n%s", tc.args, before, after)
		}
	}
	// What the refusal asks for works: the old pool is destroyed.
	dfsRun(t, dir, "dfs", "pool", "destroy", old)
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("pool destroy of a schema version 1 pool left %s: %v", old, err)
	}
}

// tree lists the paths under dir, one a line.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			b.WriteString(p + "\n")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestDFSRankKilled: a rank killed with SIGKILL mid-write ends the job,
// named; the pool opens afterwards, the container is there and the files
// the other job kept read back checked.
func TestDFSRankKilled(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool")
	base := []string{"-a", "DFS", "--dfs.pool", pool, "--dfs.cont", "c", "-t", "1m", "-C", "-G", "31337", "-F"}
	dfsRun(t, dir, append([]string{"launch", "-n", "2", "--", hpcbench, "ior", "-w", "-k", "-b", "8m", "-o", "/kept"}, base...)...)
	for _, victim := range []int{1, 0} { // a client, then the engine's rank
		l := startLaunch(t, append([]string{"-n", "4", "--", hpcbench, "ior", "-w", "-b", "4g", "-D", "60", "-o", "/doomed"}, base...)...)
		_, pids := l.ranks(4)
		time.Sleep(1500 * time.Millisecond)
		sent := time.Now()
		syscall.Kill(pids[victim], syscall.SIGKILL)
		code, stderr, after := l.wait(30*time.Second, sent)
		want := "rank " + strconv.Itoa(victim) + " was killed by SIGKILL"
		if code == 0 || !strings.Contains(stderr, want) || after > 10*time.Second {
			t.Errorf("rank %d killed: exit %d after %v; want non-zero within 10 s naming %q\n%s", victim, code, after, want, stderr)
		}
		q := dfsRun(t, dir, "dfs", "cont", "query", pool, "c")
		if !strings.Contains(q, "container c of pool") {
			t.Errorf("cont query after the kill:\n%s", q)
		}
		out := dfsRun(t, dir, append([]string{"launch", "-n", "2", "--", hpcbench, "ior", "-r", "-R", "-k", "-b", "8m", "-o", "/kept"}, base...)...)
		if !iorRows(out)["read"] {
			t.Errorf("the kept files did not read back after rank %d was killed:\n%s", victim, out)
		}
	}
}

// TestDFSEngine: a standalone engine serves a job and the management
// commands; killed mid-job, the job fails fast naming the engine; the
// next engine recovers the pool, and SIGTERM stops it cleanly (exit 0)
// without loss.
func TestDFSEngine(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool")
	dfsRun(t, dir, "dfs", "pool", "create", pool)
	start := func() (*exec.Cmd, string) {
		cmd := exec.Command(hpcbench, "dfs", "engine", "--pool", pool, "--listen", "127.0.0.1:0")
		cmd.Env = append(os.Environ(), noPMIEnv...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.Contains(line, "dfs engine: serving pool") {
			t.Fatalf("engine said %q, %v", line, err)
		}
		return cmd, line
	}
	eng, line := start()
	if q := dfsRun(t, dir, "dfs", "pool", "query", pool); !strings.Contains(q, "engine: shm://") {
		t.Errorf("pool query does not name the engine (%s):\n%s", line, q)
	}
	base := []string{"-a", "DFS", "--dfs.pool", pool, "--dfs.cont", "c", "-t", "1m", "-C", "-G", "99", "-F"}
	dfsRun(t, dir, append([]string{"launch", "-n", "2", "--", hpcbench, "ior", "-w", "-k", "-b", "8m", "-o", "/kept"}, base...)...)
	r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, "dfs", "pool", "destroy", pool)
	if r.Code != 2 || !strings.Contains(r.Stderr, "pool is busy") {
		t.Errorf("pool destroy under a running engine: exit %d, %q; want 2 saying it is busy", r.Code, r.Stderr)
	}

	l := startLaunch(t, append([]string{"-n", "2", "--", hpcbench, "ior", "-w", "-b", "4g", "-D", "60", "-o", "/doomed"}, base...)...)
	l.ranks(2)
	time.Sleep(1500 * time.Millisecond)
	sent := time.Now()
	syscall.Kill(eng.Process.Pid, syscall.SIGKILL)
	code, stderr, after := l.wait(30*time.Second, sent)
	if code == 0 || !strings.Contains(stderr, "dfs engine shm://") || after > 10*time.Second {
		t.Errorf("engine killed: job exit %d after %v; want non-zero within 10 s naming the engine\n%s", code, after, stderr)
	}

	eng, _ = start() // recovers the pool
	out := dfsRun(t, dir, append([]string{"launch", "-n", "2", "--", hpcbench, "ior", "-r", "-R", "-k", "-b", "8m", "-o", "/kept"}, base...)...)
	if !iorRows(out)["read"] {
		t.Errorf("the kept files did not read back through the restarted engine:\n%s", out)
	}
	syscall.Kill(eng.Process.Pid, syscall.SIGTERM)
	if err := eng.Wait(); err != nil {
		t.Errorf("engine after SIGTERM: %v; want exit 0 (a clean stop)", err)
	}
	if _, err := os.Stat(filepath.Join(pool, "engine.addr")); !os.IsNotExist(err) {
		t.Errorf("the stopped engine left engine.addr: %v", err)
	}
	dfsRun(t, dir, append([]string{"launch", "-n", "2", "--", hpcbench, "ior", "-r", "-R", "-k", "-b", "8m", "-o", "/kept"}, base...)...)
}
