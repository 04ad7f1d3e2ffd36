package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/internal/progress"
)

// TestMain lets the test binary stand in for hpcbench as the spawner.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == SpawnerCommand {
		if err := ServeSpawner(os.Args[2], os.Args[3:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{N: 0, Command: []string{"true"}}, "-n 0: must be in [1, 65536]"},
		{Options{N: -3, Command: []string{"true"}}, "-n -3"},
		{Options{N: MaxRanks + 1, Command: []string{"true"}}, "-n 65537"},
		{Options{N: 1}, "missing command"},
		{Options{N: 1, Command: []string{""}}, "missing command"},
		{Options{N: 1, Command: []string{"true"}, Timeout: -time.Second}, "--timeout -1s"},
		{Options{N: 1, Command: []string{"true"}, Grace: -time.Second}, "--grace -1s"},
		{Options{N: 1, Command: []string{"true"}}, ""},
	} {
		err := tc.o.Validate()
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.o, err, tc.want)
		}
	}
}

func TestPrepare(t *testing.T) {
	if _, err := Prepare(Options{N: 1, Command: []string{"true"}}); err == nil {
		t.Error("Prepare without Self succeeded")
	}
	j, err := Prepare(Options{N: 1, Command: []string{"hpcbench", "wireup"}, Self: "/x/hpcbench"})
	if err != nil || j.path != "/x/hpcbench" {
		t.Errorf("hpcbench command: %v, path %q", err, j.path)
	}
	_, err = Prepare(Options{N: 1, Command: []string{"no-such-cmd-xyz"}, Self: "/x"})
	if err == nil || !strings.Contains(err.Error(), `command "no-such-cmd-xyz": executable file not found`) {
		t.Errorf("missing command: %v", err)
	}
}

func TestScrubbedEnv(t *testing.T) {
	in := []string{"HOME=/root", "PMI_FD=6", "PMI_RANK=1", "HYDI_CONTROL_FD=7", "MPI_LOCALNRANKS=2", "MPI_LOCALRANKID=0", "PMIX_RANK=0", "PATH=/bin",
		EnvLauncherKVS + "=kvs_other", progress.EnvLauncher + "=1", EnvPhaseTimeout + "=5s"}
	got := strings.Join(scrubbedEnv(in, false), " ")
	if want := "HOME=/root PMIX_RANK=0 PATH=/bin " + EnvPhaseTimeout + "=5s"; got != want {
		t.Errorf("scrubbedEnv = %q, want %q", got, want)
	}
	got = strings.Join(scrubbedEnv(in, true), " ")
	if want := "HOME=/root PMIX_RANK=0 PATH=/bin"; got != want {
		t.Errorf("scrubbedEnv with a phase timeout = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		d     time.Duration
		shows bool
		want  string
	}{
		{0, false, EnvLauncherKVS + "=k"},
		{2 * time.Second, false, EnvLauncherKVS + "=k " + EnvPhaseTimeout + "=2s"},
		{PhaseTimeoutOff, false, EnvLauncherKVS + "=k " + EnvPhaseTimeout + "=0s"},
		{0, true, EnvLauncherKVS + "=k " + progress.EnvLauncher + "=1"},
	} {
		if got := strings.Join(jobVars("k", tc.d, tc.shows), " "); got != tc.want {
			t.Errorf("jobVars(%v, %v) = %q, want %q", tc.d, tc.shows, got, tc.want)
		}
	}
}

func TestRankVars(t *testing.T) {
	if got := strings.Join(rankVars(2, 4, 2, 4, ""), " "); got != "PMI_FD=3 PMI_RANK=2 PMI_SIZE=4 MPI_LOCALNRANKS=4 MPI_LOCALRANKID=2" {
		t.Errorf("fd mode: %s", got)
	}
	if got := strings.Join(rankVars(1, 2, 1, 2, "127.0.0.1:5"), " "); got != "PMI_PORT=127.0.0.1:5 PMI_ID=1 MPI_LOCALNRANKS=2 MPI_LOCALRANKID=1" {
		t.Errorf("port mode: %s", got)
	}
	// Across hosts: the job's rank and size, the host's count and index.
	if got := strings.Join(rankVars(5, 8, 1, 3, ""), " "); got != "PMI_FD=3 PMI_RANK=5 PMI_SIZE=8 MPI_LOCALNRANKS=3 MPI_LOCALRANKID=1" {
		t.Errorf("a proxy's rank: %s", got)
	}
	if got := processMapping(7); got != "(vector,(0,1,7))" {
		t.Errorf("processMapping(7) = %s", got)
	}
}

func TestDescribeExit(t *testing.T) {
	for _, tc := range []struct {
		ws   syscall.WaitStatus
		code int
		msg  string
	}{
		{0, 0, "exited with status 0"},
		{3 << 8, 3, "exited with status 3"},
		{9, 137, "was killed by SIGKILL (signal 9)"},
		{15, 143, "was killed by SIGTERM (signal 15)"},
		{143 << 8, 143, "was killed by SIGTERM (it caught it and exited with status 143)"},
		{130 << 8, 130, "was killed by SIGINT (it caught it and exited with status 130)"},
		{137 << 8, 137, "exited with status 137"},
	} {
		code, msg := describeExit(tc.ws)
		if code != tc.code || msg != tc.msg {
			t.Errorf("describeExit(%#x) = %d %q, want %d %q", int(tc.ws), code, msg, tc.code, tc.msg)
		}
	}
	jb := newJob(Options{N: 1}, &lineWriter{w: io.Discard}, &noteBox{})
	if jb.ourSignal(15) || jb.ourSignal(143<<8) {
		t.Error("a SIGTERM the launcher did not send is taken for its own")
	}
	jb.signal(syscall.SIGTERM)
	if !jb.ourSignal(15) || !jb.ourSignal(143<<8) || jb.ourSignal(9) || jb.ourSignal(3<<8) {
		t.Error("ourSignal after SIGTERM")
	}
}

func TestParseSpawnerMsg(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want procEvent
		bad  bool
	}{
		{in: "S 3 1234", want: procEvent{kind: evStarted, rank: 3, pid: 1234}},
		{in: "X 0 256", want: procEvent{kind: evExited, rank: 0, status: 256}},
		{in: "E 1 exec format error", want: procEvent{kind: evStartFailed, rank: 1}},
		{in: "T 2 19", want: procEvent{kind: evStopped, rank: 2, sig: syscall.SIGSTOP}},
		{in: "C 2 0", want: procEvent{kind: evContinued, rank: 2}},
		{in: "T 2 x", bad: true},
		{in: "S x 1", bad: true},
		{in: "Q 1 1", bad: true},
		{in: "S 1", bad: true},
		{in: "X 1 y", bad: true},
	} {
		ev, err := parseSpawnerMsg([]byte(tc.in))
		if tc.bad {
			if err == nil {
				t.Errorf("%q parsed", tc.in)
			}
			continue
		}
		if err != nil || ev.kind != tc.want.kind || ev.rank != tc.want.rank || ev.pid != tc.want.pid || ev.status != tc.want.status || ev.sig != tc.want.sig {
			t.Errorf("%q = %+v, %v", tc.in, ev, err)
		}
	}
}

// pmiInit is the shell that opens a rank's PMI connection (fd 3).
const pmiInit = `printf 'cmd=init pmi_version=1 pmi_subversion=1\n' >&3; read l <&3; `

// runJob runs a job with the test binary as the spawner, in o.Env (this
// process's environment when nil) with a stray PMI_FD and HYDI_CONTROL_FD
// the launcher must scrub.
func runJob(t *testing.T, o Options) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	o.Stdout, o.Stderr = &out, &errb
	o.Self = os.Args[0]
	if o.Env == nil {
		o.Env = os.Environ()
	}
	o.Env = append(o.Env, "PMI_FD=99", "HYDI_CONTROL_FD=7")
	j, err := Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	err = j.Run(ctx)
	return out.String(), errb.String(), err
}

func TestRunJob(t *testing.T) {
	out, errs, err := runJob(t, Options{N: 3, TagOutput: true, Command: []string{"sh", "-c", `echo "r$PMI_RANK of $PMI_SIZE fd $PMI_FD hydi=$HYDI_CONTROL_FD"; printf 'no newline' >&2`}})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, errs)
	}
	for r := range 3 {
		if want := fmt.Sprintf("[%d] r%d of 3 fd 3 hydi=\n", r, r); !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
		if want := fmt.Sprintf("[%d] no newline", r); !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// TestCrowdVars: GOMAXPROCS=1 for more than four ranks per CPU, unless
// the job's environment sets GOMAXPROCS or the CPUs are unknown.
func TestCrowdVars(t *testing.T) {
	for _, tc := range []struct {
		env     []string
		n, cpus int
		want    string
	}{
		{nil, 8, 2, ""},
		{nil, 9, 2, "GOMAXPROCS=1"},
		{[]string{"HOME=/root"}, 1024, 2, "GOMAXPROCS=1"},
		{[]string{"GOMAXPROCS=2"}, 1024, 2, ""},
		{[]string{"GOMAXPROCS="}, 1024, 2, ""},
		{nil, 1024, 0, ""},
		{nil, 256, 64, ""},
	} {
		if got := strings.Join(crowdVars(tc.env, tc.n, tc.cpus), " "); got != tc.want {
			t.Errorf("crowdVars(%q, %d ranks, %d CPUs) = %q, want %q", tc.env, tc.n, tc.cpus, got, tc.want)
		}
	}
}

// TestRunJobCrowded: the ranks of a job with more than four ranks per CPU
// of this host get GOMAXPROCS=1; those of a smaller one, and those of a
// job whose environment sets it, do not.
func TestRunJobCrowded(t *testing.T) {
	crowd := 4*fabric.OnlineCPUs() + 1
	if crowd > 257 {
		t.Skipf("this host has %d CPUs: a crowded job would take %d ranks", fabric.OnlineCPUs(), crowd)
	}
	show := []string{"sh", "-c", `[ $PMI_RANK = 0 ] && echo "GOMAXPROCS=${GOMAXPROCS-unset}"; exit 0`}
	for _, tc := range []struct {
		n    int
		env  []string
		want string
	}{
		{crowd, []string{"PATH=" + os.Getenv("PATH")}, "GOMAXPROCS=1"},
		{crowd - 1, []string{"PATH=" + os.Getenv("PATH")}, "GOMAXPROCS=unset"},
		{crowd, []string{"PATH=" + os.Getenv("PATH"), "GOMAXPROCS=3"}, "GOMAXPROCS=3"},
	} {
		out, errs, err := runJob(t, Options{N: tc.n, Env: tc.env, Command: show})
		if err != nil {
			t.Fatalf("%d ranks: %v\n%s", tc.n, err, errs)
		}
		if strings.TrimSpace(out) != tc.want {
			t.Errorf("%d ranks, env %q: rank 0 saw %q, want %q", tc.n, tc.env[1:], strings.TrimSpace(out), tc.want)
		}
	}
}

func TestRunJobFailures(t *testing.T) {
	garbage := t.TempDir() + "/garbage"
	// afterAbort starts a script in which rank 0 waits (up to 10 s) for
	// rank 1 to have sent its abort, then ends as the rest of the if
	// says: a death that follows the abort within abortGrace however
	// busy the machine (a fixed sleep of 50 ms did not, under load).
	afterAbort := `T=` + t.TempDir() + `; if [ $PMI_RANK = 0 ]; then i=0; while [ ! -e "$T/aborted" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done; `
	if err := os.WriteFile(garbage, []byte{0, 1, 2, 3}, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    Options
		code int
		rank int
		msg  string
	}{
		{"exit status", Options{N: 4, Command: []string{"sh", "-c", `[ $PMI_RANK = 1 ] && exit 5; sleep 30`}}, 5, 1, "rank 1 exited with status 5"},
		{"signal", Options{N: 2, Command: []string{"sh", "-c", `[ $PMI_RANK = 0 ] && kill -9 $$; sleep 30`}}, 137, 0, "rank 0 was killed by SIGKILL (signal 9)"},
		{"pmi abort", Options{N: 2, Command: []string{"sh", "-c", `printf 'cmd=abort exitcode=9\n' >&3; sleep 30`}}, 9, -2, "called abort with exit code 9"},
		// An abort is held back for abortGrace: a rank that dies by a
		// signal within it is named as the cause (peers abort when a
		// rank dies under them, and their abort can reach the PMI
		// server before the dead rank's exit status reaches us).
		{"signal death just after an abort", Options{N: 2, Command: []string{"sh", "-c", afterAbort + `kill -9 $$; fi; printf 'cmd=abort exitcode=1\n' >&3; touch "$T/aborted"; sleep 30`}}, 137, 0, "rank 0 was killed by SIGKILL (signal 9)"},
		// SIGTERM was taken for the teardown's own, so the abort's
		// sender was named.
		{"SIGTERM just after an abort", Options{N: 2, Command: []string{"sh", "-c", afterAbort + `kill -TERM $$; fi; printf 'cmd=abort exitcode=1\n' >&3; touch "$T/aborted"; sleep 30`}}, 143, 0, "rank 0 was killed by SIGTERM (signal 15)"},
		{"count: a peer that exited on its own", Options{N: 2, Command: []string{"sh", "-c", `[ $PMI_RANK = 0 ] && exit 0; sleep 0.3; exit 3`}}, 3, 1, "rank 1 exited with status 3"},
		{"count: one peer still running", Options{N: 3, Command: []string{"sh", "-c", `[ $PMI_RANK = 0 ] && exit 0; [ $PMI_RANK = 1 ] && { sleep 0.3; exit 3; }; sleep 30`}}, 3, 1, "rank 1 exited with status 3; the other rank still running was terminated"},
		{"watchdog: stopped", Options{N: 2, PhaseTimeout: time.Second, Command: []string{"sh", "-c", `[ $PMI_RANK = 1 ] && kill -STOP $$; sleep 30`}}, ExitWatchdog, 1,
			`watchdog: rank 1 (pid `},
		{"watchdog: stuck in a phase", Options{N: 3, PhaseTimeout: time.Second, Command: []string{"sh", "-c", pmiInit + `printf 'cmd=hpcbench_phase name=a iter=0\n' >&3; [ $PMI_RANK = 2 ] && exec sleep 30; sleep 0.2; printf 'cmd=hpcbench_phase name=b iter=0\n' >&3; sleep 30`}}, ExitWatchdog, 2,
			`is running (S) in phase "a" iter 0 for `},
		{"watchdog: never connects", Options{N: 3, PhaseTimeout: time.Second, Command: []string{"sh", "-c", `[ $PMI_RANK = 2 ] && exec sleep 30; ` + pmiInit + `printf 'cmd=barrier_in\n' >&3; read l <&3; sleep 30`}}, ExitWatchdog, 2,
			`in phase "start-up (not connected to PMI)" for `},
		{"timeout", Options{N: 2, Timeout: 300 * time.Millisecond, Grace: 100 * time.Millisecond, Command: []string{"sh", "-c", `trap '' TERM; sleep 30`}}, 124, -1, "job exceeded --timeout 300ms"},
		{"not a program", Options{N: 2, Command: []string{garbage}}, 1, 0, "rank 0: start " + garbage + ": exec format error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, errs, err := runJob(t, tc.o)
			var f *Failure
			if !errors.As(err, &f) {
				t.Fatalf("Run = %v, want a *Failure\n%s", err, errs)
			}
			if f.Code != tc.code || (tc.rank != -2 && f.Rank != tc.rank) || !strings.Contains(f.Msg, tc.msg) {
				t.Errorf("Failure = %+v, want code %d rank %d containing %q", f, tc.code, tc.rank, tc.msg)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestLateStartGetsSignal: a rank whose start is reported after a signal
// was forwarded to the job (the spawner reports ranks started back to back
// together) gets that signal on the report, and SIGKILL once the job is
// torn down.
func TestLateStartGetsSignal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sent     syscall.Signal
		tornDown bool
		want     syscall.Signal
	}{
		{"forwarded", syscall.SIGTERM, false, syscall.SIGTERM},
		{"torn down", syscall.SIGTERM, true, syscall.SIGKILL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sleep", "30")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			jb := newJob(Options{N: 1}, &lineWriter{w: io.Discard}, &noteBox{})
			jb.sent, jb.tornDown = tc.sent, tc.tornDown
			jb.handle(procEvent{kind: evStarted, rank: 0, pid: cmd.Process.Pid})
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatal("the late rank did not get the signal")
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != tc.want {
				t.Errorf("rank ended with %v, want killed by %v", ws, tc.want)
			}
		})
	}
}
