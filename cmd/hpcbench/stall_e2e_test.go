package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// TestStalledRankEndsJob: a SIGSTOPped rank of a 4-rank coll or ior job
// ends the job, under hpcbench launch and under MPICH's mpiexec, whose
// ranks are the same PMI-1 clients, and under Open MPI's mpirun, whose
// ranks join through PMIx: the other ranks find it at their
// next wait for it (--phase-timeout 2s), print whom they waited for and
// abort through PMI. Today's behaviour was a hang until killed from
// outside. The job must exit non-zero within 15 s of the SIGSTOP (2 s of
// deadline plus a loaded machine's slack) and a rank's line must name the
// stopped rank.
//
// Rank 1 and rank 2 are stopped in turn: with 4 ranks, rank 0 waits for
// rank 2 directly in a dissemination barrier, but for rank 1 only through
// rank 2, whose line must then get out before the job ends.
func TestStalledRankEndsJob(t *testing.T) {
	dir := t.TempDir()
	coll := []string{"coll", "--phase-timeout", "2s", "-npmin", "4", "-time", "1", "-iter", "1000", "-msglog", "0:22",
		"Allreduce", "Bcast", "Allgather", "Alltoall"}
	ior := []string{"ior", "--phase-timeout", "2s", "-a", "DUMMY", "-b", "16m", "-t", "1m", "--dummy.delay-xfer", "50000",
		"-w", "-r", "-i", "100", "-o", filepath.Join(dir, "f")}
	launchers := []struct {
		name   string
		prefix []string
	}{
		{"launch", []string{hpcbench, "launch", "-n", "4", "--", hpcbench}},
	}
	if mpirun, err := exec.LookPath("mpirun.openmpi"); err == nil {
		launchers = append(launchers, struct {
			name   string
			prefix []string
		}{"mpirun-pmix", []string{mpirun, "--allow-run-as-root", "--oversubscribe", "-n", "4", hpcbench}})
	} else {
		t.Run("mpirun-pmix", func(t *testing.T) { testenv.RequireTool(t, "mpirun.openmpi") })
	}
	if mpiexec, err := exec.LookPath("mpiexec.mpich"); err == nil {
		launchers = append(launchers, struct {
			name   string
			prefix []string
		}{"mpiexec", []string{mpiexec, "-n", "4", hpcbench}})
	} else {
		// The requirement is stated, not skipped silently: RequireTool
		// fails or skips the subtest with the package to install.
		t.Run("mpiexec", func(t *testing.T) { testenv.RequireTool(t, "mpiexec.mpich") })
	}
	for _, l := range launchers {
		for _, bench := range []struct {
			args   []string
			marker string // on stdout once the benchmark runs ("": coll prints at the end)
		}{{coll, ""}, {ior, "Results:"}} {
			for _, stopped := range []int{1, 2} {
				t.Run(l.name+"/"+bench.args[0]+"/rank"+strconv.Itoa(stopped), func(t *testing.T) {
					elapsed, code, stderr := stopRank(t, append(append([]string{}, l.prefix...), bench.args...), bench.marker, stopped)
					t.Logf("SIGSTOP of rank %d to exit %d: %v; stderr:\n%s", stopped, code, elapsed.Round(time.Millisecond), stderr)
					if code == 0 {
						t.Errorf("exit 0; want non-zero\nstderr:\n%s", stderr)
					}
					if elapsed > 15*time.Second {
						t.Errorf("job ended %v after the SIGSTOP; want within 15 s", elapsed)
					}
					if want := "waited 2s for rank " + strconv.Itoa(stopped); !strings.Contains(stderr, want) {
						t.Errorf("stderr does not name the stopped rank (%q):\n%s", want, stderr)
					}
					// The launcher's own last word names the stopped rank,
					// not a peer whose abort reached it first (its stop
					// deadline, 10 s, is still ahead: the ranks' 2 s one
					// ended the job).
					if l.name == "launch" {
						lines := strings.Split(strings.TrimSpace(stderr), "\n")
						last := lines[len(lines)-1]
						if want := "rank " + strconv.Itoa(stopped) + " "; !strings.Contains(last, "watchdog: "+want) || !strings.Contains(last, "is stopped") {
							t.Errorf("the launcher's line %q does not name rank %d as stopped", last, stopped)
						}
					}
				})
			}
		}
	}
}

// stopRank starts argv in a process group of its own, waits for marker on
// its stdout (for 2 s after the rank's process appears when marker is
// ""), SIGSTOPs the process of PMI rank rank and returns how long
// the job took to exit after that, its exit status and its stderr. Every
// process it started is continued and killed when the test ends, the
// ranks hpcbench launch puts in sessions of their own too.
func stopRank(t *testing.T, argv []string, marker string, rank int) (time.Duration, int, string) {
	t.Helper()
	dir := t.TempDir()
	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), noPMIEnv...)
	cmd.Env = append(cmd.Env, "HPCBENCH_PHASE_TIMEOUT=") // the flag decides
	tag := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 10)
	cmd.Env = append(cmd.Env, stopTagEnv+"="+tag)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", argv[0], err)
	}
	root := cmd.Process.Pid
	job := func() []int { return append(descendants(root), tagged(tag)...) }
	var seen []int // every descendant seen, for the cleanup
	stoppedPid := 0
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	// One cleanup, killing before it waits: cleanups run last first, and
	// a wait registered after the kill ran before it (a test that failed
	// with the job running hung until go test's timeout).
	t.Cleanup(func() {
		if stoppedPid != 0 {
			syscall.Kill(stoppedPid, syscall.SIGCONT)
		}
		syscall.Kill(-root, syscall.SIGKILL)
		for _, p := range seen {
			syscall.Kill(p, syscall.SIGKILL)
		}
		<-exited
	})

	deadline := time.Now().Add(90 * time.Second)
	var found time.Time
	for stoppedPid == 0 {
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(stdout.Name())
			t.Fatalf("no rank %d running %q after 90 s\nstdout:\n%s", rank, marker, out)
		}
		select {
		case <-exited:
			out, _ := os.ReadFile(stdout.Name())
			errOut, _ := os.ReadFile(stderr.Name())
			t.Fatalf("job ended before the SIGSTOP\nstdout:\n%s\nstderr:\n%s", out, errOut)
		case <-time.After(50 * time.Millisecond):
		}
		seen = append(seen, job()...)
		if found.IsZero() {
			for _, p := range seen {
				if isRank(p, rank) {
					found = time.Now()
				}
			}
			continue
		}
		out, _ := os.ReadFile(stdout.Name())
		if marker != "" && !bytes.Contains(out, []byte(marker)) || marker == "" && time.Since(found) < 2*time.Second {
			continue
		}
		for _, p := range job() {
			if isRank(p, rank) {
				stoppedPid = p
			}
		}
	}
	time.Sleep(500 * time.Millisecond) // into the benchmark's work
	seen = append(seen, job()...)
	if err := syscall.Kill(stoppedPid, syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP rank %d (pid %d): %v", rank, stoppedPid, err)
	}
	start := time.Now()
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Errorf("job still running 60 s after the SIGSTOP of rank %d: hung", rank)
		return time.Since(start), -1, ""
	}
	elapsed := time.Since(start)
	errOut, _ := os.ReadFile(stderr.Name())
	return elapsed, cmd.ProcessState.ExitCode(), string(errOut)
}

// TestPhaseTimeoutBadInput: a bad --phase-timeout, or a bad
// $HPCBENCH_PHASE_TIMEOUT when the flag is not given, is one line naming
// it and the accepted range, exit 2, before any work; a flag given
// overrides the variable.
func TestPhaseTimeoutBadInput(t *testing.T) {
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"ior", "--phase-timeout", "1ms"}, "hpcbench: ior: --phase-timeout: 1ms: want 0 (off) or a duration in [100ms, 1000h]\n"},
		{"", []string{"mdtest", "--phase-timeout=soon"}, "hpcbench: mdtest: --phase-timeout: \"soon\" is not a duration such as 30s or 2m\n"},
		{"", []string{"ior", "-w", "--phase-timeout"}, "hpcbench: ior: --phase-timeout: needs a value (a duration, 0 for off)\n"},
		{"", []string{"coll", "-phase-timeout", "2000h", "Barrier"}, "hpcbench: coll: --phase-timeout: 2000h0m0s: want 0 (off) or a duration in [100ms, 1000h]\n"},
		{"5", []string{"coll", "Barrier"}, "hpcbench: coll: $HPCBENCH_PHASE_TIMEOUT: \"5\" is not a duration such as 30s or 2m\n"},
		{"-1s", []string{"ior", "-w"}, "hpcbench: ior: $HPCBENCH_PHASE_TIMEOUT: -1s: want 0 (off) or a duration in [100ms, 1000h]\n"},
		{"soon", []string{"mdtest", "-n", "1"}, "hpcbench: mdtest: $HPCBENCH_PHASE_TIMEOUT: \"soon\" is not a duration such as 30s or 2m\n"},
	} {
		dir := t.TempDir()
		env := append(append([]string{}, noPMIEnv...), "HPCBENCH_PHASE_TIMEOUT="+tc.env)
		r := testenv.Run(t, testenv.Context(t, time.Minute), dir, env, hpcbench, tc.args...)
		if r.Code != 2 || r.Stderr != tc.want {
			t.Errorf("%v with $HPCBENCH_PHASE_TIMEOUT=%q: exit %d, stderr %q; want 2, %q", tc.args, tc.env, r.Code, r.Stderr, tc.want)
		}
		if left := dirEntries(t, dir); len(left) != 0 {
			t.Errorf("%v: created %v", tc.args, left)
		}
	}
	// The flag given wins over a bad variable.
	r := testenv.Run(t, testenv.Context(t, time.Minute), t.TempDir(), append(append([]string{}, noPMIEnv...), "HPCBENCH_PHASE_TIMEOUT=5"),
		hpcbench, "coll", "--phase-timeout", "0", "-iter", "5", "-msglog", "0:1", "Barrier")
	if r.Code != 0 {
		t.Errorf("--phase-timeout 0 over a bad variable: exit %d\nstderr:\n%s", r.Code, r.Stderr)
	}
}

// TestStoppedRankForeignLauncher: under MPICH's mpiexec, which has no
// watchdog, a stopped rank 0 of 'mdtest -c' (the others wait for it with no
// stall deadline while it alone creates every rank's files) hung the job
// forever without --phase-timeout. Now its neighbour on the host (rank 3:
// the last rank watches the first) sees it stopped in /proc for the
// default 10 s and ends the job through PMI, exit 123, naming it.
func TestStoppedRankForeignLauncher(t *testing.T) {
	testenv.RequireTool(t, "mpiexec.mpich")
	mpiexec, _ := exec.LookPath("mpiexec.mpich")
	dir := t.TempDir()
	argv := []string{mpiexec, "-n", "4", hpcbench, "mdtest", "-c", "-n", "2000", "-F", "-C", "-T", "-r", "-i", "1000", "-d", filepath.Join(dir, "d")}
	elapsed, code, stderr := stopRank(t, argv, "", 0)
	t.Logf("SIGSTOP of rank 0 to exit %d: %v; stderr:\n%s", code, elapsed.Round(time.Millisecond), stderr)
	if code != 123 {
		t.Errorf("exit %d, want 123 (the watchdog's)", code)
	}
	if elapsed < 10*time.Second || elapsed > 20*time.Second {
		t.Errorf("the job ended %v after the stop, want 10 s (the stop deadline) to 20 s", elapsed)
	}
	for _, want := range []string{"hpcbench: watchdog: rank 0 (pid ", "is stopped (T in /proc) for 1", "rank 3, on the same host, ends the job"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
}
