package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// memoryCgroup makes a memory cgroup of limit bytes below this process's
// own, for a test to run a job in, and removes it when the test ends. It
// skips the test, saying why, where it cannot (not root, no memory
// controller, a cgroup v2 tree that does not delegate memory here).
func memoryCgroup(t *testing.T, limit int64) string {
	t.Helper()
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		t.Skipf("cannot make a memory cgroup: %v", err)
	}
	defer f.Close()
	var dir, limitFile string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "ID:CONTROLLERS:PATH"
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				dir, limitFile = filepath.Join("/sys/fs/cgroup/memory", parts[2]), "memory.limit_in_bytes"
			}
		}
		if parts[0] == "0" && dir == "" {
			if b, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers"); err == nil && strings.Contains(string(b), "memory") {
				dir, limitFile = filepath.Join("/sys/fs/cgroup", parts[2]), "memory.max"
			}
		}
	}
	if dir == "" {
		t.Skip("cannot make a memory cgroup: this process is in no cgroup with the memory controller")
	}
	cg := filepath.Join(dir, "hpcbench-oom-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(cg, 0o755); err != nil {
		t.Skipf("cannot make a memory cgroup (needs root and a writable cgroup tree): %v", err)
	}
	t.Cleanup(func() {
		// Its processes are gone once the job is; the kernel may take a
		// moment to let the directory go.
		for i := 0; i < 100; i++ {
			if err := os.Remove(cg); err == nil || os.IsNotExist(err) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("could not remove the test's cgroup %s", cg)
	})
	if err := os.WriteFile(filepath.Join(cg, limitFile), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
		t.Skipf("cannot limit the memory of cgroup %s: %v", cg, err)
	}
	return cg
}

// TestLaunchOOMKilledRank: a rank the kernel's OOM killer kills is not just
// "killed by SIGKILL": the launcher says memory ran out (issue 11: "when
// memory does run out, the message says memory"). The job runs in a
// memory cgroup of 128 MiB where rank 1, an awk doubling a string, runs
// into the limit.
func TestLaunchOOMKilledRank(t *testing.T) {
	cg := memoryCgroup(t, 128<<20)
	hog := `BEGIN { if (ENVIRON["PMI_RANK"] == 1) { s = "x"; while (1) s = s s } else system("sleep 60") }`
	script := `echo $$ > "$1/cgroup.procs" && shift && exec "$@"`
	r := testenv.Run(t, testenv.Context(t, time.Minute), t.TempDir(), noPMIEnv,
		"sh", "-c", script, "sh", cg, hpcbench, "launch", "-n", "2", "--", "awk", hog)
	if r.Code != 137 {
		t.Errorf("exit %d, want 137 (SIGKILL)\n%s", r.Code, r.Stderr)
	}
	want := "hpcbench: launch: rank 1 was killed by SIGKILL (signal 9): out of memory? the kernel's OOM killer killed "
	if !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
	}
}

// TestMemoryCheckInCgroup: the memory check reads the limit of the memory
// cgroup the process is in (a Slurm step's, a container's), not only the
// host's MemAvailable: in a 128 MiB cgroup, buffers beyond it are refused
// before any work, exit 2, naming the cgroup.
func TestMemoryCheckInCgroup(t *testing.T) {
	cg := memoryCgroup(t, 128<<20)
	script := `echo $$ > "$1/cgroup.procs" && shift && exec "$@"`
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{hpcbench, "ior", "-a", "DUMMY", "-t", "256m", "-b", "256m", "-w"},
			"hpcbench: ior: -t 256m: needs 256 MiB of buffer per rank, this host has "},
		{[]string{hpcbench, "launch", "-n", "2", "--", hpcbench, "coll", "-msglog", "25:26", "Allreduce"},
			"hpcbench: coll: -msglog 25:26: needs 128 MiB of buffer per rank, 256 MiB for the 2 ranks on this host, which has "},
	} {
		r := testenv.Run(t, testenv.Context(t, time.Minute), t.TempDir(), noPMIEnv, "sh", append([]string{"-c", script, "sh", cg}, tc.args...)...)
		if r.Code != 2 || !strings.Contains(r.Stderr, tc.want) || !strings.Contains(r.Stderr, "MiB available (the memory cgroup's limit)") {
			t.Errorf("%s: exit %d, want 2 and %q ... (the memory cgroup's limit):\n%s", tc.args[1], r.Code, tc.want, r.Stderr)
		}
	}
}
