package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// recorder is a testing.TB that records Skipf and Fatalf instead of acting on
// them. Like the real ones, both end the calling goroutine, so the code under
// test must run in a goroutine of its own (see capture).
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// capture runs f with a recorder in a new goroutine and returns the recorder
// once f has returned or called Skipf or Fatalf.
func capture(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestRequireToolFound(t *testing.T) {
	if got := RequireTool(t, "sh"); filepath.Base(got) != "sh" {
		t.Errorf("RequireTool(sh) = %q, want a path ending in sh", got)
	}
	// The first name that exists wins.
	if got := RequireTool(t, "hpcbench-surely-missing-tool", "sh"); filepath.Base(got) != "sh" {
		t.Errorf("RequireTool(missing, sh) = %q, want a path ending in sh", got)
	}
}

func TestRequireToolMissing(t *testing.T) {
	const missing = "hpcbench-surely-missing-tool"
	for _, tc := range []struct {
		env                  string
		wantSkip, wantFailed bool
	}{
		{env: "", wantSkip: true},
		{env: "0", wantSkip: true},
		{env: "1", wantFailed: true}, // what scripts/test.sh sets
	} {
		t.Run(RequireToolsEnv+"="+tc.env, func(t *testing.T) {
			t.Setenv(RequireToolsEnv, tc.env)
			r := capture(t, func(tb testing.TB) { RequireTool(tb, missing) })
			if r.skipped != tc.wantSkip || r.failed != tc.wantFailed {
				t.Fatalf("skipped=%v failed=%v, want skipped=%v failed=%v (msg %q)",
					r.skipped, r.failed, tc.wantSkip, tc.wantFailed, r.msg)
			}
			if !strings.HasPrefix(r.msg, missing+" not found in $PATH") {
				t.Errorf("message %q does not start with %q", r.msg, missing+" not found in $PATH")
			}
		})
	}
}

func TestRequireToolMessageNamesPackage(t *testing.T) {
	t.Setenv(RequireToolsEnv, "")
	// An empty PATH makes the real tool names missing.
	t.Setenv("PATH", "")
	r := capture(t, func(tb testing.TB) { RequireTool(tb, "mpicc.mpich", "mpicc") })
	const want = "none of mpicc.mpich, mpicc found in $PATH: install Debian package libmpich-dev"
	if !r.skipped || r.msg != want {
		t.Errorf("skipped=%v msg=%q, want a skip with %q", r.skipped, r.msg, want)
	}
	r = capture(t, func(tb testing.TB) { RequireTool(tb, "mpiexec") })
	const want1 = "mpiexec not found in $PATH: install Debian package mpich"
	if r.msg != want1 {
		t.Errorf("msg=%q, want %q", r.msg, want1)
	}
}

func TestRunExitCodeAndOutput(t *testing.T) {
	sh := RequireTool(t, "sh")
	dir := t.TempDir()
	ctx := Context(t, time.Minute)
	r := Run(t, ctx, dir, []string{"TESTENV_X=one", "TESTENV_X=two"}, sh, "-c",
		`echo "out $TESTENV_X"; echo err >&2; pwd; exit 3`)
	if r.Code != 3 || r.TimedOut || r.Leftovers {
		t.Errorf("Code=%d TimedOut=%v Leftovers=%v, want 3 false false", r.Code, r.TimedOut, r.Leftovers)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "out two\n" + real + "\n"; r.Stdout != want {
		t.Errorf("Stdout = %q, want %q", r.Stdout, want)
	}
	if r.Stderr != "err\n" {
		t.Errorf("Stderr = %q, want %q", r.Stderr, "err\n")
	}

	if r := Run(t, ctx, "", nil, sh, "-c", "exit 0"); r.Code != 0 {
		t.Errorf("exit 0: Code = %d", r.Code)
	}
	if r := Run(t, ctx, "", nil, sh, "-c", "kill -TERM $$"); r.Code != 128+int(syscall.SIGTERM) {
		t.Errorf("killed by SIGTERM: Code = %d, want %d", r.Code, 128+int(syscall.SIGTERM))
	}
}

// TestRunTimeoutKillsGroup checks that a command that outlives its deadline
// is killed together with its children, promptly.
func TestRunTimeoutKillsGroup(t *testing.T) {
	sh := RequireTool(t, "sh")
	RequireTool(t, "sleep")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// The shell prints the pid of a background sleep, then waits for it.
	r := Run(t, ctx, "", nil, sh, "-c", "sleep 100 & echo $!; wait")
	if !r.TimedOut || r.Code != 128+int(syscall.SIGKILL) {
		t.Errorf("TimedOut=%v Code=%d, want true %d", r.TimedOut, r.Code, 128+int(syscall.SIGKILL))
	}
	if r.Elapsed > 10*time.Second {
		t.Errorf("Run took %v to return after a 300ms deadline", r.Elapsed)
	}
	assertGone(t, r.Stdout)
}

// TestRunLeftovers checks that processes a command leaves behind in its group
// are reported and killed.
func TestRunLeftovers(t *testing.T) {
	sh := RequireTool(t, "sh")
	RequireTool(t, "sleep")
	start := time.Now()
	r := Run(t, Context(t, time.Minute), "", nil, sh, "-c", "sleep 100 >/dev/null 2>&1 & echo $!")
	if r.Code != 0 || r.TimedOut || !r.Leftovers {
		t.Errorf("Code=%d TimedOut=%v Leftovers=%v, want 0 false true", r.Code, r.TimedOut, r.Leftovers)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Run took %v", d)
	}
	assertGone(t, r.Stdout)
}

// assertGone fails the test unless the process whose pid is in out (one
// decimal line) has died within a few seconds.
func assertGone(t *testing.T, out string) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("no pid in stdout %q: %v", out, err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		if state, _, ok := procStat(pid); !ok || state == 'Z' {
			return // gone, or killed and waiting for init to reap it
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("background process %d is still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunStartFailureFails(t *testing.T) {
	r := capture(t, func(tb testing.TB) {
		Run(tb, context.Background(), "", nil, filepath.Join(t.TempDir(), "no-such-program"))
	})
	if !r.failed || !strings.Contains(r.msg, "no-such-program") {
		t.Errorf("failed=%v msg=%q, want a failure naming the program", r.failed, r.msg)
	}
}

func TestContextBoundedByTestDeadline(t *testing.T) {
	ctx := Context(t, time.Hour)
	dl, ok := ctx.Deadline()
	if !ok {
		t.Fatal("Context has no deadline")
	}
	if td, ok := t.Deadline(); ok && !dl.Before(td) {
		t.Errorf("Context deadline %v is not before the test deadline %v", dl, td)
	}
	if time.Until(dl) > time.Hour {
		t.Errorf("Context deadline %v is more than an hour away", dl)
	}
}

func TestRepoRoot(t *testing.T) {
	root := RepoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "module github.com/hpcbench/hpcbench") {
		t.Errorf("%s/go.mod is not hpcbench's", root)
	}
}

// TestBuild builds a tiny module the way BuildMain builds ./cmd/hpcbench.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	RequireTool(t, "go")
	mod := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/hello\n\ngo 1.22\n")
	write("main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"built\") }\n")
	sub := filepath.Join(mod, "sub", "dir")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := findModuleRoot(sub)
	if err != nil || root != mod {
		t.Fatalf("findModuleRoot(%s) = %q, %v; want %q", sub, root, err, mod)
	}
	exe, err := build(root, ".", filepath.Join(t.TempDir(), "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if r := Run(t, Context(t, time.Minute), "", nil, exe); r.Code != 0 || r.Stdout != "built\n" {
		t.Errorf("built program: Code=%d Stdout=%q Stderr=%q", r.Code, r.Stdout, r.Stderr)
	}

	write("main.go", "package main\n\nfunc main() { undefined() }\n")
	if _, err := build(root, ".", filepath.Join(t.TempDir(), "broken")); err == nil ||
		!strings.Contains(err.Error(), "undefined") {
		t.Errorf("build of a broken program: err = %v, want go build's message", err)
	}
}

func TestDebianPackage(t *testing.T) {
	for name, want := range map[string]string{
		"mpicc": "libmpich-dev", "mpicc.mpich": "libmpich-dev", "mpiexec.hydra": "mpich",
		"fi_info": "libfabric-bin", "hyperfine": "hyperfine", "hpcbench-unknown": "",
	} {
		if got := debianPackage(name); got != want {
			t.Errorf("debianPackage(%q) = %q, want %q", name, got, want)
		}
	}
}
