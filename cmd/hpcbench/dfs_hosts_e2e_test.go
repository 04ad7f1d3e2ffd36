package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// hostsScript runs "$0 ARGS..." as if ranks 0-1 were on host node0 and
// ranks 2-3 (and up) on node1: HPCBENCH_HOSTNAME names the rank's host, and
// --dfs.pool is that host's own directory under root, standing for the same
// path on each host's own disk.
func hostsScript(root string, perHost int) string {
	return `h=node$((PMI_RANK / ` + strconv.Itoa(perHost) + `)); HPCBENCH_HOSTNAME=$h; export HPCBENCH_HOSTNAME; ` +
		`exec "$0" "$@" --dfs.pool "` + root + `/$h"`
}

// hostsRun runs a launch of n ranks of hpcbench ARGS under hostsScript and
// returns its result.
func hostsRun(t *testing.T, dir, root string, n, perHost int, args ...string) testenv.Result {
	t.Helper()
	argv := append([]string{"launch", "-n", strconv.Itoa(n), "--", "sh", "-c", hostsScript(root, perHost), hpcbench}, args...)
	return testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, hpcbench, argv...)
}

// TestDFSPerHost: a job with ranks on two hosts brings up an engine on each
// host's first rank, over that host's pool; the pool of the job spans both
// engines' targets, so an SX file's chunks go to both hosts' disks in equal
// shares; the run record names both engines and all targets; a second job
// on the same hosts reads the data back; a job on one of the hosts refuses
// the container (its placement would misread it) with one clear line; a
// host's engine killed mid-write ends the job fast, naming its rank, and
// the data read back afterwards; and mdtest runs over the two engines,
// with directories on one engine each (S1) and spread over both (SX).
func TestDFSPerHost(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "pools")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cont string
		fpp  bool
	}{{"shared", false}, {"fpp", true}} {
		t.Run(tc.cont, func(t *testing.T) {
			args := []string{"ior", "-a", "DFS", "--dfs.cont", tc.cont, "--dfs.oclass", "SX", "--dfs.chunk_size", "64k",
				"-b", "2m", "-t", "256k", "-s", "2", "-C", "-G", "271828", "-o", "/data"}
			if tc.fpp {
				args = append(args, "-F")
			}
			archive := filepath.Join(dir, tc.cont+".json")
			r := hostsRun(t, dir, root, 4, 2, append(args, "-w", "-r", "-W", "-R", "-k", "--archive", archive)...)
			if r.Code != 0 || !iorRows(r.Stdout)["write"] || !iorRows(r.Stdout)["read"] {
				t.Fatalf("exit %d; want write and read rows\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
			var rec struct {
				Run struct{ Env map[string]string } `json:"run"`
			}
			if b, err := os.ReadFile(archive); err != nil || json.Unmarshal(b, &rec) != nil {
				t.Fatalf("archive %s: %v", archive, err)
			}
			env := rec.Run.Env
			for _, want := range []string{"one per host (2): node0: started by rank 0 (engine pid ", "; node1: started by rank 2 (engine pid "} {
				if !strings.Contains(env["dfs.engine"], want) {
					t.Errorf("run record dfs.engine = %q, want it to contain %q", env["dfs.engine"], want)
				}
			}
			if want := "node0:" + root + "/node0, node1:" + root + "/node1"; env["dfs.pool"] != want {
				t.Errorf("run record dfs.pool = %q, want %q", env["dfs.pool"], want)
			}
			if tg := env["dfs.targets"]; !strings.HasPrefix(tg, "8 on 1 file system(s): node0:"+root+"/node0/tgt0") || !strings.Contains(tg, "node1:"+root+"/node1/tgt3") {
				t.Errorf("run record dfs.targets = %q, want 8 targets, 4 on each host", tg)
			}
			// 16 MiB in 64 KiB chunks over 8 targets: half on each host.
			// Each host's query says which part of the container it holds.
			for i, h := range []string{"node0", "node1"} {
				q := dfsRun(t, dir, "dfs", "cont", "query", filepath.Join(root, h), tc.cont)
				if !strings.Contains(q, "array bytes 8 MiB") {
					t.Errorf("cont query of %s's pool: want 8 MiB of the 16 there:\n%s", h, q)
				}
				part := fmt.Sprintf("engine %d of 2 engine(s) with targets [4 4] (hosts node0,node1)", i)
				if want := "this pool holds one part of it, " + part; !strings.Contains(q, want) {
					t.Errorf("cont query of %s's pool: want %q:\n%s", h, want, q)
				}
				var js struct{ Part string }
				qj := dfsRun(t, dir, "dfs", "cont", "query", filepath.Join(root, h), tc.cont, "--format", "json")
				if err := json.Unmarshal([]byte(qj), &js); err != nil || js.Part != part {
					t.Errorf("cont query --format json of %s's pool: part %q, %v; want %q:\n%s", h, js.Part, err, part, qj)
				}
			}
			r = hostsRun(t, dir, root, 4, 2, append(args, "-r", "-R", "-k")...)
			if r.Code != 0 || !iorRows(r.Stdout)["read"] {
				t.Fatalf("the second job: exit %d; want a read row\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
			// All four ranks on node0: one engine, another placement.
			r = hostsRun(t, dir, root, 4, 4, append(args, "-r", "-k")...)
			if want := "was laid out over 2 engine(s)"; r.Code == 0 || !strings.Contains(r.Stderr, want) {
				t.Errorf("a job on one of the hosts: exit %d; want non-zero and %q\nstdout:\n%s\nstderr:\n%s", r.Code, want, r.Stdout, r.Stderr)
			}
		})
	}
	// node1's engine (rank 2's) killed mid-write: the job ends fast naming
	// the rank, and the next job over both hosts reads the kept file back.
	l := startLaunch(t, "-n", "4", "--", "sh", "-c", hostsScript(root, 2), hpcbench, "ior", "-a", "DFS", "--dfs.cont", "shared",
		"-w", "-b", "4g", "-t", "1m", "-D", "60", "-o", "/doomed")
	_, pids := l.ranks(4)
	time.Sleep(1500 * time.Millisecond)
	sent := time.Now()
	syscall.Kill(pids[2], syscall.SIGKILL)
	code, stderr, after := l.wait(30*time.Second, sent)
	if want := "rank 2 was killed by SIGKILL"; code == 0 || !strings.Contains(stderr, want) || after > 10*time.Second {
		t.Errorf("node1's engine killed: exit %d after %v; want non-zero within 10 s naming %q\n%s", code, after, want, stderr)
	}
	r := hostsRun(t, dir, root, 4, 2, "ior", "-a", "DFS", "--dfs.cont", "shared", "--dfs.oclass", "SX", "--dfs.chunk_size", "64k",
		"-b", "2m", "-t", "256k", "-s", "2", "-C", "-G", "271828", "-o", "/data", "-r", "-R", "-k")
	if r.Code != 0 || !iorRows(r.Stdout)["read"] {
		t.Errorf("after the kill, the kept file: exit %d; want a read row\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}

	r = hostsRun(t, dir, root, 4, 2, "mdtest", "-a", "DFS", "--dfs.cont", "md", "-d", "/t", "-n", "100", "-F", "-u", "-w", "4096", "-e", "4096")
	for _, want := range []string{"4 tasks, 400 files", "File creation", "File read", "File removal"} {
		if r.Code != 0 || !strings.Contains(r.Stdout, want) {
			t.Errorf("mdtest over two engines: exit %d; want %q\nstdout:\n%s\nstderr:\n%s", r.Code, want, r.Stdout, r.Stderr)
		}
	}
	// Directories of class SX: their entries spread over both engines,
	// and a tree's removal lists them engine after engine.
	r = hostsRun(t, dir, root, 4, 2, "mdtest", "-a", "DFS", "--dfs.cont", "mdsx", "--dfs.dir_oclass", "SX", "-d", "/t", "-n", "40", "-z", "2", "-b", "3")
	for _, want := range []string{"Directory creation", "Directory removal", "File removal", "Tree removal"} {
		if r.Code != 0 || !strings.Contains(r.Stdout, want) {
			t.Errorf("mdtest with SX directories over two engines: exit %d; want %q\nstdout:\n%s\nstderr:\n%s", r.Code, want, r.Stdout, r.Stderr)
		}
	}
}
