package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/report"
)

// noPMIEnv clears the PMI variables a test may have inherited (when go test
// itself runs under a launcher), so each case chooses its own.
var noPMIEnv = []string{"PMI_FD=", "PMI_PORT=", "PMI_ID=", "PMI_RANK=", "PMI_SIZE="}

func run(t *testing.T, timeout time.Duration, args ...string) testenv.Result {
	t.Helper()
	return testenv.Run(t, testenv.Context(t, timeout), "", noPMIEnv, hpcbench, args...)
}

// wireupResult parses rank 0's JSON and checks the run covered n ranks, every
// phase, and the gets the pattern implies.
func wireupResult(t *testing.T, r testenv.Result, n, gets int) *report.Result {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	res, err := report.ReadJSON(strings.NewReader(r.Stdout))
	if err != nil {
		t.Fatalf("stdout is not a result: %v\n%s", err, r.Stdout)
	}
	if res.Run.Ranks != n {
		t.Errorf("ranks = %d, want %d", res.Run.Ranks, n)
	}
	if len(res.Tables) != 1 || len(res.Tables[0].Rows) != 6 {
		t.Fatalf("want one table of 6 phases, got %+v", res.Tables)
	}
	for _, row := range res.Tables[0].Rows {
		if got := len(row.Samples["rank"]); got != n {
			t.Errorf("phase %s has %d per-rank samples, want %d", row.Labels[0], got, n)
		}
		for i, v := range row.Metrics {
			if !(v >= 0) || v > 60 {
				t.Errorf("phase %s metric %d = %v s: not a plausible time", row.Labels[0], i, v)
			}
		}
	}
	want := strconv.Itoa(gets)
	for _, p := range res.Params {
		if p.Name == "gets per rank" && p.Value != want {
			t.Errorf("gets per rank = %s, want %s", p.Value, want)
		}
	}
	return res
}

func TestLaunchWireup(t *testing.T) {
	for _, n := range []int{1, 2, 7, 64} {
		t.Run("n="+strconv.Itoa(n), func(t *testing.T) {
			r := run(t, 2*time.Minute, "launch", "-n", strconv.Itoa(n), "--", "hpcbench", "wireup", "--json")
			wireupResult(t, r, n, n)
			if r.Stderr != "" {
				t.Errorf("a successful launch printed on stderr: %q", r.Stderr)
			}
		})
	}
	t.Run("ring", func(t *testing.T) {
		r := run(t, time.Minute, "launch", "-n", "5", "--", "hpcbench", "wireup", "--json", "--pattern", "ring", "--card-size", "3000")
		wireupResult(t, r, 5, 1)
	})
	t.Run("pmi-port", func(t *testing.T) {
		r := run(t, time.Minute, "launch", "--pmi-port", "-n", "4", "--", "hpcbench", "wireup", "--json")
		res := wireupResult(t, r, 4, 4)
		if res.Run.Env["pmi"] != "port" {
			t.Errorf("pmi mode = %q, want port", res.Run.Env["pmi"])
		}
	})
}

func TestWireupSingleton(t *testing.T) {
	r := run(t, 30*time.Second, "wireup", "--json")
	res := wireupResult(t, r, 1, 1)
	if res.Run.Env["pmi"] != "singleton" {
		t.Errorf("pmi mode = %q, want singleton", res.Run.Env["pmi"])
	}
}

func TestWireupFormats(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "w.json")
	r := run(t, 30*time.Second, "launch", "-n", "3", "--", "hpcbench", "wireup", "--csv", "--output", out)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if !strings.HasPrefix(r.Stdout, "table,phase,min(s),mean(s),max(s)\n") || strings.Count(r.Stdout, "\nphases,") != 6 {
		t.Errorf("CSV on stdout:\n%s", r.Stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if res, err := report.ReadJSON(f); err != nil || res.Run.Ranks != 3 {
		t.Errorf("--output file: %v, %+v", err, res)
	}
	r = run(t, 30*time.Second, "wireup")
	for _, want := range []string{"Benchmark           : wireup", "phase", "barrier", "finalize"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("human output lacks %q:\n%s", want, r.Stdout)
		}
	}
}

// TestWireupUnderHydra: our PMI client as the ranks of Debian MPICH's real
// mpiexec (Hydra serves), in fd and in port mode.
func TestWireupUnderHydra(t *testing.T) {
	mpiexec := testenv.RequireTool(t, "mpiexec.mpich", "mpiexec.hydra", "mpiexec")
	for _, mode := range [][]string{nil, {"-pmi-port"}} {
		name := "fd"
		if mode != nil {
			name = "port"
		}
		t.Run(name, func(t *testing.T) {
			args := append(append([]string{}, mode...), "-n", "4", hpcbench, "wireup", "--json")
			r := testenv.Run(t, testenv.Context(t, 2*time.Minute), "", noPMIEnv, mpiexec, args...)
			res := wireupResult(t, r, 4, 4)
			if res.Run.Env["pmi"] != name {
				t.Errorf("pmi mode = %q, want %s", res.Run.Env["pmi"], name)
			}
			// Hydra's server is not known to take pipelined requests.
			if got := paramValue(res.Params, "gets"); got != "one at a time" {
				t.Errorf("gets = %q under Hydra, want one at a time", got)
			}
		})
	}
}

// TestWireupPipeline: under hpcbench launch the get phase pipelines its
// requests, and --pipeline=false sends them one at a time; both read
// every card intact (wireup verifies each).
func TestWireupPipeline(t *testing.T) {
	for _, tc := range []struct {
		flag, want string
	}{{"--pipeline", "pipelined"}, {"--pipeline=false", "one at a time"}} {
		r := run(t, 2*time.Minute, "launch", "-n", "8", "--", hpcbench, "wireup", "--card-size", "3000", tc.flag, "--json")
		res := wireupResult(t, r, 8, 8)
		if got := paramValue(res.Params, "gets"); got != tc.want {
			t.Errorf("%s: gets = %q, want %q", tc.flag, got, tc.want)
		}
	}
}

// paramValue returns the value of the parameter named name, or "".
func paramValue(ps []report.Param, name string) string {
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// TestLaunchMPICH: an unmodified MPICH program (MPI_Init, Allreduce, Barrier,
// Finalize) under our launcher, in fd and port mode.
func TestLaunchMPICH(t *testing.T) {
	hello := testenv.CompileMPI(t, "testdata/mpi/hello.c")
	for _, mode := range []string{"", "--pmi-port"} {
		t.Run("mode="+mode, func(t *testing.T) {
			args := []string{"launch", "-n", "4"}
			if mode != "" {
				args = append(args, mode)
			}
			r := run(t, 2*time.Minute, append(args, "--", hello)...)
			if r.Code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
			sort.Strings(lines)
			want := "rank 0 of 4 sum 10|rank 1 of 4 sum 10|rank 2 of 4 sum 10|rank 3 of 4 sum 10"
			if got := strings.Join(lines, "|"); got != want {
				t.Errorf("stdout lines %q, want %q", got, want)
			}
			if r.Stderr != "" {
				t.Errorf("stderr not empty on success: %q", r.Stderr)
			}
		})
	}
}

func TestLaunchMPIAbort(t *testing.T) {
	abort := testenv.CompileMPI(t, "testdata/mpi/abort.c")
	r := run(t, time.Minute, "launch", "-n", "4", "--", abort)
	if r.Code != 7 {
		t.Fatalf("exit %d, want 7\nstderr:\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "hpcbench: launch: rank 1 called abort with exit code 7") {
		t.Errorf("stderr does not name the aborting rank:\n%s", r.Stderr)
	}
}

// TestLaunchUniverseSize: get_universe_size is answered with the job size.
func TestLaunchUniverseSize(t *testing.T) {
	usize := testenv.CompileMPI(t, "testdata/mpi/usize.c")
	r := run(t, time.Minute, "launch", "-n", "3", "--", usize)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "universe_size 3") || !strings.Contains(r.Stdout, "appnum 0") {
		t.Errorf("stdout:\n%s", r.Stdout)
	}
}

// pmiScript is a rank that speaks raw PMI on fd 3: it inits, then does what
// `then` says while the other ranks (wireup) wait in the barrier.
func pmiScript(then string) string {
	return `if [ "$PMI_RANK" = 2 ]; then
  printf 'cmd=init pmi_version=1 pmi_subversion=1\n' >&3; read -r l <&3
  sleep 0.5; ` + then + `
fi
exec "$0" wireup`
}

// TestLaunchFailFast: a rank that exits 3 or is SIGKILLed while the others
// wait in a barrier ends the job within 5 s, naming the rank; nothing is
// left running.
func TestLaunchFailFast(t *testing.T) {
	for _, tc := range []struct {
		name, then string
		code       int
		msg        string
	}{
		{"exit 3", "exit 3", 3, "rank 2 exited with status 3"},
		{"kill -9", "kill -9 $$", 137, "rank 2 was killed by SIGKILL (signal 9)"},
		{"closes PMI", "exec 3>&-; sleep 30", 1, "rank 2 closed its PMI connection before finalize"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, time.Minute, "launch", "-n", "4", "--", "sh", "-c", pmiScript(tc.then), hpcbench)
			if r.Code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", r.Code, tc.code, r.Stderr)
			}
			if r.Elapsed > 5*time.Second {
				t.Errorf("job took %v to fail, want < 5s", r.Elapsed)
			}
			// The ranks may report the job's end on stderr too; the
			// launcher itself says one line.
			var own []string
			for _, l := range strings.Split(r.Stderr, "\n") {
				if strings.HasPrefix(l, "hpcbench: launch:") {
					own = append(own, l)
				}
			}
			if len(own) != 1 || !strings.Contains(own[0], tc.msg) {
				t.Errorf("the launcher should print one line containing %q, got:\n%s", tc.msg, r.Stderr)
			}
			if r.Leftovers {
				t.Error("processes were left behind")
			}
		})
	}
}

// leftovers lists live processes whose command line contains marker.
func leftovers(t *testing.T, marker string) []string {
	t.Helper()
	var found []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(filepath.Dir(d), "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			found = append(found, "zombie "+d)
			continue
		}
		found = append(found, d)
	}
	return found
}

func TestLaunchTimeoutKillsEverything(t *testing.T) {
	marker := "31." + strconv.Itoa(os.Getpid())
	start := time.Now()
	r := run(t, time.Minute, "launch", "-n", "3", "--timeout", "1s", "--grace", "500ms", "--", "sh", "-c", "sleep "+marker+" & trap '' TERM; sleep "+marker)
	if r.Code != 124 {
		t.Errorf("exit %d, want 124\n%s", r.Code, r.Stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if !strings.Contains(r.Stderr, "job exceeded --timeout 1s") {
		t.Errorf("stderr: %s", r.Stderr)
	}
	time.Sleep(100 * time.Millisecond)
	if l := leftovers(t, marker); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// TestLaunchSignalForwarded: SIGTERM to the launcher reaches every rank, the
// launcher exits 128+15, and no rank outlives it.
// launcherOf returns the pid of the launcher of a job whose ranks run
// "sleep marker", once at least ranks of them run, looking every poll;
// it fails the test after 10 s.
func launcherOf(t *testing.T, marker string, ranks int, poll time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		launcher, running := 0, 0
		for _, p := range leftovers(t, marker) {
			b, _ := os.ReadFile(p)
			switch {
			case strings.HasPrefix(string(b), "sleep\x00"):
				running++
			case strings.Contains(string(b), "\x00launch\x00"):
				launcher, _ = strconv.Atoi(strings.Split(p, "/")[2])
			}
		}
		if launcher != 0 && running >= ranks {
			return launcher
		}
		time.Sleep(poll)
	}
	t.Fatalf("the launcher and %d of its ranks did not start in 10 s", ranks)
	return 0
}

func TestLaunchSignalForwarded(t *testing.T) {
	marker := "32." + strconv.Itoa(os.Getpid())
	ctx := testenv.Context(t, time.Minute)
	done := make(chan testenv.Result, 1)
	go func() {
		done <- testenv.Run(t, ctx, "", noPMIEnv, hpcbench, "launch", "-n", "3", "--", "sleep", marker)
	}()
	launcher := launcherOf(t, marker, 3, 20*time.Millisecond)
	syscall.Kill(launcher, syscall.SIGTERM)
	r := <-done
	if r.Code != 143 {
		t.Errorf("exit %d, want 143\n%s", r.Code, r.Stderr)
	}
	time.Sleep(100 * time.Millisecond)
	if l := leftovers(t, marker); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// TestLaunchSignalDuringStart: SIGINT to the launcher while it is still
// starting 1,500 ranks stops the starting at once: it says how many ranks
// it stops, fewer than it was asked for, exits 130, and leaves none.
func TestLaunchSignalDuringStart(t *testing.T) {
	const n = 1500
	marker := "33." + strconv.Itoa(os.Getpid())
	ctx := testenv.Context(t, 2*time.Minute)
	done := make(chan testenv.Result, 1)
	go func() {
		done <- testenv.Run(t, ctx, "", noPMIEnv, hpcbench, "launch", "-n", strconv.Itoa(n), "--", "sleep", marker)
	}()
	launcher := launcherOf(t, marker, 1, time.Millisecond)
	syscall.Kill(launcher, syscall.SIGINT)
	r := <-done
	if r.Code != 130 {
		t.Fatalf("exit %d, want 130\n%s", r.Code, r.Stderr)
	}
	m := regexp.MustCompile(`interrupted \(SIGINT\): stopping (\d+) ranks?`).FindStringSubmatch(r.Stderr)
	if m == nil {
		t.Fatalf("stderr does not say it was interrupted:\n%s", r.Stderr)
	}
	if k, _ := strconv.Atoi(m[1]); k >= n {
		t.Errorf("stopping %d ranks: want fewer than the %d asked for (the start loop should stop at the signal)\n%s", k, n, r.Stderr)
	}
	time.Sleep(100 * time.Millisecond)
	if l := leftovers(t, marker); len(l) > 0 {
		t.Errorf("left behind: %d processes, first %v", len(l), l[0])
	}
}

func TestLaunchOutput(t *testing.T) {
	dir := t.TempDir()
	r := run(t, time.Minute, "launch", "-n", "3", "--tag-output", "--pmi-trace", dir, "--", "sh", "-c", `printf 'out %s\nsecond\n' $PMI_RANK; echo err >&2; exec "$0" wireup >/dev/null`, hpcbench)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for rank := range 3 {
		p := "[" + strconv.Itoa(rank) + "] "
		// Lines of different ranks may interleave, but each arrives whole
		// and tagged, in the rank's own order.
		out := regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(p)+`.*$`).FindAllString(r.Stdout, -1)
		if strings.Join(out, "|") != p+"out "+strconv.Itoa(rank)+"|"+p+"second" {
			t.Errorf("stdout lacks rank %d's tagged lines:\n%s", rank, r.Stdout)
		}
		if !strings.Contains(r.Stderr, p+"err\n") {
			t.Errorf("stderr lacks rank %d's tagged line:\n%s", rank, r.Stderr)
		}
		tr, err := os.ReadFile(filepath.Join(dir, "rank"+strconv.Itoa(rank)+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(tr), "C: cmd=init pmi_version=1 pmi_subversion=1\nS: cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n") ||
			!strings.HasSuffix(string(tr), "C: cmd=finalize\nS: cmd=finalize_ack\n") {
			t.Errorf("trace of rank %d:\n%s", rank, tr)
		}
	}
}

// TestLaunchBadInput: usage errors exit 2 with one line naming the flag or
// command, and start nothing.
func TestLaunchBadInput(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-n", "0", "--", "touch", marker}, "-n 0: must be in [1, 65536]"},
		{[]string{"-n", "-3", "--", "touch", marker}, "-n -3: must be in [1, 65536]"},
		{[]string{"-n", "abc", "--", "touch", marker}, `launch: -n: "abc" is not a whole number: want 1 to 65536`},
		{[]string{"-n", "2"}, "missing command"},
		{[]string{"-n", "2", "--", "/no/such/program"}, `command "/no/such/program"`},
		{[]string{"-n", "2", "--", "no-such-program-xyz"}, `command "no-such-program-xyz": executable file not found`},
		{[]string{"--timeout", "xyz", "-n", "2", "--", "touch", marker}, `launch: --timeout: must be a duration like "30s" or "5m"`},
		{[]string{"--bogus", "-n", "2", "--", "touch", marker}, `launch: unknown option "--bogus"`},
		{[]string{"--phase-timeout", "50ms", "-n", "2", "--", "touch", marker}, "launch: --phase-timeout 50ms: want 0 (off) or a duration in [100ms, 1000h]"},
		{[]string{"--phase-timeout", "2000h", "-n", "2", "--", "touch", marker}, "launch: --phase-timeout 2000h0m0s: want 0 (off)"},
		{[]string{"--phase-timeout", "-1s", "-n", "2", "--", "touch", marker}, "launch: --phase-timeout -1s: want 0 (off)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := run(t, 30*time.Second, append([]string{"launch"}, tc.args...)...)
			if r.Code != 2 {
				t.Errorf("exit %d, want 2", r.Code)
			}
			lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tc.msg) {
				t.Errorf("stderr should be one line containing %q, got:\n%s", tc.msg, r.Stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("a rank was started")
			}
		})
	}
}

func TestWireupBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--card-size", "0"}, "--card-size 0: want 1 to 1m"},
		{[]string{"--card-size", "2m"}, "--card-size 2m: want 1 to 1m"},
		{[]string{"--card-size", "10g"}, "--card-size 10g: want 1 to 1m"},
		{[]string{"--card-size", "1.5k"}, `--card-size: "1.5k" is not a size: fractions are not accepted`},
		{[]string{"--pattern", "star"}, `--pattern "star": must be ring or all`},
		{[]string{"--format", "xml"}, "xml"},
		{[]string{"--json", "--csv"}, "choose one"},
	} {
		r := run(t, 30*time.Second, append([]string{"wireup"}, tc.args...)...)
		if r.Code != 2 || !strings.Contains(r.Stderr, tc.msg) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
			t.Errorf("wireup %v: exit %d stderr %q, want 2 and one line with %q", tc.args, r.Code, r.Stderr, tc.msg)
		}
	}
}

// stdinRun is run with stdin as the launcher's standard input (testenv.Run
// gives /dev/null), in a process group of its own that is killed
// afterwards; ctty makes stdin, a terminal, the launcher's controlling
// terminal in a session of its own, as in an interactive shell.
func stdinRun(t *testing.T, stdin *os.File, ctty bool, args ...string) testenv.Result {
	t.Helper()
	ctx := testenv.Context(t, 30*time.Second)
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, hpcbench, args...)
	cmd.Env = append(os.Environ(), noPMIEnv...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: !ctty, Setsid: ctty, Setctty: ctty}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", hpcbench, err)
	}
	err := cmd.Wait()
	r := testenv.Result{Elapsed: time.Since(start), Stdout: out.String(), Stderr: errb.String(), TimedOut: ctx.Err() != nil}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // whatever the launcher left in its group
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("wait %s: %v", hpcbench, err)
	}
	t.Logf("%s %s: exit %d after %v", hpcbench, strings.Join(args, " "), r.Code, r.Elapsed.Round(time.Millisecond))
	return r
}

// openPipe returns a pipe whose write end the test holds open (the writer
// goroutine of feed, if any, writes to it until the test ends).
func openPipe(t *testing.T, feed string) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	if feed != "" {
		if _, err := w.WriteString(feed); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestLaunchStdin: rank 0 reads the launcher's stdin, as under Hydra, the
// other ranks /dev/null, EOF reaches rank 0, and neither a rank 0 that never
// reads nor a stdin that never ends (a pipe nobody closes, a full one, an
// idle terminal) keeps the job from ending.
func TestLaunchStdin(t *testing.T) {
	closedPipe := func(t *testing.T, s string) *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		w.WriteString(s)
		w.Close()
		return r
	}
	t.Run("rank 0 only", func(t *testing.T) {
		r := stdinRun(t, closedPipe(t, "hi\n"), false, "launch", "-n", "2", "--", "cat")
		if r.Code != 0 || r.Stdout != "hi\n" {
			t.Errorf("exit %d, stdout %q, want 0 and hi once\n%s", r.Code, r.Stdout, r.Stderr)
		}
	})
	t.Run("EOF reaches rank 0", func(t *testing.T) {
		r := stdinRun(t, closedPipe(t, "a\nb\n"), false, "launch", "-n", "1", "--", "sh", "-c", "cat; echo eof")
		if r.Code != 0 || r.Stdout != "a\nb\neof\n" {
			t.Errorf("exit %d, stdout %q\n%s", r.Code, r.Stdout, r.Stderr)
		}
	})
	t.Run("rank 1 reads EOF at once", func(t *testing.T) {
		// stdin stays open: only rank 0 could wait on it.
		r := stdinRun(t, openPipe(t, ""), false, "launch", "-n", "2", "--", "sh", "-c", `[ "$PMI_RANK" = 0 ] && exit 0; cat; echo "rank $PMI_RANK EOF"`)
		if r.Code != 0 || r.Stdout != "rank 1 EOF\n" || r.Elapsed > 5*time.Second {
			t.Errorf("exit %d after %v, stdout %q\n%s", r.Code, r.Elapsed, r.Stdout, r.Stderr)
		}
	})
	t.Run("rank 0 never reads an open pipe", func(t *testing.T) {
		// More than the pipes between here and rank 0 hold, and never
		// closed: the launcher's copy must not block it or its exit.
		in, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		fed := make(chan error, 1)
		go func() {
			_, err := w.Write(make([]byte, 1<<20))
			fed <- err
		}()
		r := stdinRun(t, in, false, "launch", "-n", "2", "--", "sleep", "0.2")
		w.Close() // ends the writer (EPIPE or a short write once in is closed)
		in.Close()
		<-fed
		if r.Code != 0 || r.Elapsed > 5*time.Second {
			t.Errorf("exit %d after %v\n%s", r.Code, r.Elapsed, r.Stderr)
		}
	})
	t.Run("terminal", func(t *testing.T) {
		master, tty := openPTY(t)
		// An idle terminal: the job ends with the ranks.
		r := stdinRun(t, tty, true, "launch", "-n", "2", "--", "sleep", "0.2")
		if r.Code != 0 || r.Elapsed > 5*time.Second {
			t.Errorf("idle terminal: exit %d after %v\n%s", r.Code, r.Elapsed, r.Stderr)
		}
		// A line typed on it reaches rank 0.
		if _, err := master.WriteString("typed\n"); err != nil {
			t.Fatal(err)
		}
		r = stdinRun(t, tty, true, "launch", "-n", "2", "--", "sh", "-c", `if [ "$PMI_RANK" = 0 ]; then head -n 1; fi`)
		if r.Code != 0 || r.Stdout != "typed\n" {
			t.Errorf("typed line: exit %d, stdout %q\n%s", r.Code, r.Stdout, r.Stderr)
		}
	})
}

// openPTY returns a pseudo-terminal's master and its terminal.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0)
	}
	if err != nil {
		t.Fatalf("unlock pseudo-terminal: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pseudo-terminal %d: %v", n, err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestLaunchNp: Hydra's -np N is -n N.
func TestLaunchNp(t *testing.T) {
	for _, args := range [][]string{{"-np", "3"}, {"-np=3"}, {"--np", "3"}} {
		r := run(t, 30*time.Second, append(append([]string{"launch"}, args...), "--", "sh", "-c", `echo "$PMI_SIZE"`)...)
		if r.Code != 0 || r.Stdout != "3\n3\n3\n" {
			t.Errorf("launch %v: exit %d, stdout %q\n%s", args, r.Code, r.Stdout, r.Stderr)
		}
	}
}
