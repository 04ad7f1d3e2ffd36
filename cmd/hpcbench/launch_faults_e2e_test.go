package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launched is a launcher started in the background, for tests that inject
// a fault into a running job.
type launched struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr *os.File
	done   chan struct{}
	code   int
	ended  time.Time
}

// startLaunch starts hpcbench launch with args in its own process group;
// the test's cleanup kills what is left of it (the ranks die with their
// spawner, which dies with the launcher).
func startLaunch(t *testing.T, args ...string) *launched {
	t.Helper()
	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hpcbench, append([]string{"launch"}, args...)...)
	cmd.Env = append(os.Environ(), noPMIEnv...)
	cmd.Dir = t.TempDir()
	cmd.Stdout, cmd.Stderr = nil, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l := &launched{t: t, cmd: cmd, stderr: stderr, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		l.ended = time.Now()
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		l.code = ws.ExitStatus()
		if ws.Signaled() {
			l.code = 128 + int(ws.Signal())
		}
		close(l.done)
	}()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-l.done
		stderr.Close()
	})
	return l
}

// ranks waits until the launcher's spawner has n ranks running, and
// returns the spawner's pid and the ranks' pids by rank.
func (l *launched) ranks(n int) (spawner int, pids []int) {
	l.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-l.done:
			l.t.Fatalf("the launcher exited %d before its ranks ran:\n%s", l.code, l.stderrText())
		default:
		}
		for _, sp := range children(l.cmd.Process.Pid) {
			pids = make([]int, n)
			found := 0
			for _, k := range children(sp) {
				if r := rankOf(k); r >= 0 && r < n && pids[r] == 0 {
					pids[r] = k
					found++
				}
			}
			if found == n {
				return sp, pids
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	l.t.Fatalf("the job's %d ranks did not start:\n%s", n, l.stderrText())
	return 0, nil
}

// wait waits for the launcher's exit (at most limit) and returns its exit
// status, its stderr and how long after since it ended.
func (l *launched) wait(limit time.Duration, since time.Time) (int, string, time.Duration) {
	l.t.Helper()
	select {
	case <-l.done:
	case <-time.After(limit):
		l.t.Fatalf("the launcher did not exit within %v:\n%s", limit, l.stderrText())
	}
	return l.code, l.stderrText(), l.ended.Sub(since)
}

func (l *launched) stderrText() string {
	b, _ := os.ReadFile(l.stderr.Name())
	return string(b)
}

// launcherLines are the launcher's own lines of stderr.
func launcherLines(stderr string) []string {
	var own []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "hpcbench: launch:") {
			own = append(own, line)
		}
	}
	return own
}

// faultJobs are the real benchmarks the fault tests run: long enough to be
// running when the fault comes.
func faultJobs(t *testing.T) map[string][]string {
	return map[string][]string{
		"coll": {hpcbench, "coll", "-iter", "100000", "-time", "30", "Allreduce"},
		"ior":  {hpcbench, "ior", "-a", "POSIX", "-w", "-r", "-t", "1m", "-b", "16m", "-i", "1000", "-o", filepath.Join(t.TempDir(), "f")},
	}
}

// TestLaunchWatchdogStopped: a SIGSTOPped rank of coll or ior ends the job
// (exit 123) within a few seconds of --phase-timeout, and the message names
// the rank, that it is stopped, its phase and the ranks waiting for it.
// Before the watchdog the job hung until killed from outside.
func TestLaunchWatchdogStopped(t *testing.T) {
	for name, job := range faultJobs(t) {
		t.Run(name, func(t *testing.T) {
			l := startLaunch(t, append([]string{"-n", "4", "--phase-timeout", "2s", "--"}, job...)...)
			_, pids := l.ranks(4)
			time.Sleep(1500 * time.Millisecond) // into the benchmark's phases
			stopped := time.Now()
			syscall.Kill(pids[2], syscall.SIGSTOP)
			code, stderr, after := l.wait(30*time.Second, stopped)
			if code != 123 {
				t.Errorf("exit %d, want 123\n%s", code, stderr)
			}
			if after < 2*time.Second || after > 7*time.Second {
				t.Errorf("the job ended %v after the stop, want 2 s (the deadline) to 7 s", after)
			}
			own := launcherLines(stderr)
			want := []string{"watchdog: rank 2 (pid " + strconv.Itoa(pids[2]), "is stopped (SIGSTOP) in phase \"", "ranks 0,1,3 are waiting for it ("}
			// The waiting ranks may be in one phase ("(in "read" iter 41)")
			// or, when some moved on to the next before the barrier that
			// needs the stopped one, in several ("(0,1 in "write" iter 42;
			// 3 in "read" iter 41)"): either names each.
			if !regexp.MustCompile(`waiting for it \((in "[^"]+"|[0-9,]+ in "[^"]+"[^)]*)`).MatchString(own0(own)) {
				t.Errorf("launcher line does not say where the waiting ranks are:\n%s", stderr)
			}
			if len(own) != 1 {
				t.Fatalf("want one launcher line, got:\n%s", stderr)
			}
			for _, w := range want {
				if !strings.Contains(own[0], w) {
					t.Errorf("launcher line lacks %q:\n%s", w, own[0])
				}
			}
		})
	}
}

// TestLaunchInterrupted: SIGINT or SIGTERM to the launcher is said first,
// as what it is, and the launcher exits 128+signal; the ranks' own aborts
// after it are not blamed (it said "rank 3 called abort with exit code 1",
// exit 1). A second SIGINT kills at once, even ranks that ignore SIGINT.
func TestLaunchInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name string
		sigs []syscall.Signal
		code int
		want string
	}{
		{"SIGINT", []syscall.Signal{syscall.SIGINT}, 130, "hpcbench: launch: interrupted (SIGINT): stopping 4 ranks"},
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}, 143, "hpcbench: launch: interrupted (SIGTERM): stopping 4 ranks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := startLaunch(t, append([]string{"-n", "4", "--"}, faultJobs(t)["coll"]...)...)
			l.ranks(4)
			time.Sleep(time.Second)
			sent := time.Now()
			// To the launcher's group, as a terminal's Ctrl-C.
			syscall.Kill(-l.cmd.Process.Pid, tc.sigs[0])
			code, stderr, after := l.wait(30*time.Second, sent)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
			if after > 5*time.Second {
				t.Errorf("took %v", after)
			}
			own := launcherLines(stderr)
			if len(own) != 1 || own[0] != tc.want {
				t.Errorf("launcher lines %q, want just %q\n%s", own, tc.want, stderr)
			}
			if strings.Contains(stderr, "called abort") {
				t.Errorf("a rank's abort is blamed:\n%s", stderr)
			}
		})
	}
	t.Run("second SIGINT", func(t *testing.T) {
		l := startLaunch(t, "-n", "3", "--grace", "1m", "--", "sh", "-c", "trap '' INT TERM; while :; do sleep 0.1; done")
		l.ranks(3)
		syscall.Kill(l.cmd.Process.Pid, syscall.SIGINT)
		time.Sleep(300 * time.Millisecond)
		sent := time.Now()
		syscall.Kill(l.cmd.Process.Pid, syscall.SIGINT)
		code, stderr, after := l.wait(30*time.Second, sent)
		if code != 130 || after > 5*time.Second {
			t.Errorf("exit %d %v after the second SIGINT, want 130 within 5 s (--grace is 1m)\n%s", code, after, stderr)
		}
	})
}

// TestLaunchRankKilledBySignal: SIGTERM to one rank of coll names that rank
// and the signal, every time, although its peers abort when its
// connections close (in 3 of 20 runs a peer was named, and the signal
// never was: SIGTERM was taken for the teardown's own).
func TestLaunchRankKilledBySignal(t *testing.T) {
	runs := 10
	if testing.Short() {
		runs = 3
	}
	for i := range runs {
		l := startLaunch(t, append([]string{"-n", "4", "--"}, faultJobs(t)["coll"]...)...)
		_, pids := l.ranks(4)
		victim := 1 + i%3
		time.Sleep(time.Duration(300+100*i) * time.Millisecond)
		sent := time.Now()
		syscall.Kill(pids[victim], syscall.SIGTERM)
		code, stderr, after := l.wait(30*time.Second, sent)
		want := "hpcbench: launch: rank " + strconv.Itoa(victim) + " was killed by SIGTERM"
		own := launcherLines(stderr)
		if code != 143 || len(own) != 1 || !strings.HasPrefix(own[0], want) || after > 5*time.Second {
			t.Errorf("run %d: exit %d after %v, launcher lines %q; want 143 within 5 s and %q\n%s", i, code, after, own, want, stderr)
		}
	}
}

// TestLaunchSpawnerKilled: SIGKILL to the process spawner is named as the
// spawner's death (it was "rank 3 closed its PMI connection").
func TestLaunchSpawnerKilled(t *testing.T) {
	l := startLaunch(t, append([]string{"-n", "4", "--"}, faultJobs(t)["coll"]...)...)
	sp, _ := l.ranks(4)
	time.Sleep(500 * time.Millisecond)
	sent := time.Now()
	syscall.Kill(sp, syscall.SIGKILL)
	code, stderr, after := l.wait(30*time.Second, sent)
	own := launcherLines(stderr)
	want := "hpcbench: launch: the process spawner died (pid " + strconv.Itoa(sp) + " was killed by SIGKILL"
	if code != 1 || len(own) != 1 || !strings.HasPrefix(own[0], want) || after > 5*time.Second {
		t.Errorf("exit %d after %v, launcher lines %q; want 1 within 5 s and %q\n%s", code, after, own, want, stderr)
	}
}

// TestLaunchTerminatedCount: the count of terminated ranks counts only the
// ranks the launcher terminated ("the other 1 ranks were terminated" when
// the other rank had already exited on its own).
func TestLaunchTerminatedCount(t *testing.T) {
	for _, tc := range []struct {
		n      string
		script string
		want   string
	}{
		{"2", `[ $PMI_RANK = 0 ] && exit 0; sleep 0.5; exit 3`, "hpcbench: launch: rank 1 exited with status 3"},
		{"3", `[ $PMI_RANK = 0 ] && exit 0; [ $PMI_RANK = 1 ] && { sleep 0.5; exit 3; }; sleep 30`, "hpcbench: launch: rank 1 exited with status 3; the other rank still running was terminated"},
		{"4", `[ $PMI_RANK = 1 ] && { sleep 0.5; exit 3; }; sleep 30`, "hpcbench: launch: rank 1 exited with status 3; the other 3 ranks still running were terminated"},
	} {
		r := run(t, time.Minute, "launch", "-n", tc.n, "--", "sh", "-c", tc.script)
		own := launcherLines(r.Stderr)
		if r.Code != 3 || len(own) != 1 || own[0] != tc.want {
			t.Errorf("-n %s: exit %d, launcher lines %q, want 3 and %q", tc.n, r.Code, own, tc.want)
		}
	}
}

// TestLaunchTimeoutNamesRanks: --timeout says which ranks were still
// running, with their phase and state (it said only "4 of 4 ranks still
// running were killed").
func TestLaunchTimeoutNamesRanks(t *testing.T) {
	start := time.Now()
	l := startLaunch(t, append([]string{"-n", "4", "--timeout", "8s", "--phase-timeout", "0", "--"}, faultJobs(t)["coll"]...)...)
	_, pids := l.ranks(4)
	time.Sleep(time.Second)
	syscall.Kill(pids[3], syscall.SIGSTOP)
	if d := time.Since(start); d > 6*time.Second {
		t.Fatalf("the ranks started too late (%v) for the stop to come well before the timeout", d)
	}
	code, stderr, _ := l.wait(30*time.Second, time.Now())
	own := launcherLines(stderr)
	if code != 124 || len(own) != 1 {
		t.Fatalf("exit %d, launcher lines %q, want 124 and one line\n%s", code, own, stderr)
	}
	for _, w := range []string{"job exceeded --timeout 8s; 4 of 4 ranks still running were killed: ", "ranks 0,1,2 running in \"", "rank 3 stopped (SIGSTOP) in \""} {
		if !strings.Contains(own[0], w) {
			t.Errorf("launcher line lacks %q:\n%s", w, own[0])
		}
	}
}

// own0 returns the first of the launcher's lines, or "".
func own0(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}
