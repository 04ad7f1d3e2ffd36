// Package testenv holds helpers for hpcbench's own tests: build the hpcbench
// binary once per test package, require an external tool (skip with a reason,
// or fail under scripts/test.sh), compile an MPI program with MPICH's mpicc,
// and run a command under a deadline without leaving processes behind.
//
// It uses the standard library only and has no package-level mutable state:
// the path of the built binary lives in a variable of the test package, which
// BuildMain fills in from that package's TestMain.
package testenv

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// RequireToolsEnv is the environment variable that turns RequireTool's skip
// into a failure when set to "1". scripts/test.sh sets it, because it
// installs every tool the tests need, so a test that would skip in CI points
// at a broken install step, not at a machine without MPICH.
const RequireToolsEnv = "HPCBENCH_REQUIRE_TOOLS"

// BuildMain builds ./cmd/hpcbench once for a test package, stores the path of
// the binary in *out, runs the package's tests and returns their exit code.
// Call it from TestMain:
//
//	var hpcbench string // path of the hpcbench binary; set by TestMain
//
//	func TestMain(m *testing.M) { os.Exit(testenv.BuildMain(m, &hpcbench)) }
//
// The binary goes into a fresh directory under os.TempDir, removed when the
// tests are done. It is built without -race even when the tests are: a Go
// process under the race detector costs tens of MiB more, and the end-to-end
// tests start hundreds of ranks.
//
// Nothing is built, and *out stays "", when the test binary runs no tests:
// when it only lists them (go test -list; scripts/test.sh discovers fuzz
// targets that way) or is a fuzzing worker. Fuzz targets must therefore not
// use the binary.
//
// If the build fails, BuildMain prints go build's output to stderr and returns
// 1 without running any test.
func BuildMain(m *testing.M, out *string) int {
	flag.Parse()
	if flagValue("test.list") != "" || flagValue("test.fuzzworker") == "true" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "hpcbench-test-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		return 1
	}
	root, err := findModuleRoot(wd)
	if err == nil {
		*out, err = build(root, "./cmd/hpcbench", filepath.Join(dir, "hpcbench"))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: building hpcbench for the tests: %v\n", err)
		return 1
	}
	return m.Run()
}

// flagValue returns the value of the registered flag name, or "" when no such
// flag exists.
func flagValue(name string) string {
	f := flag.Lookup(name)
	if f == nil {
		return ""
	}
	return f.Value.String()
}

// build runs "CGO_ENABLED=0 go build [FLAGS] -o out pkg" in the module root
// and returns out: the binary the README builds (it loads OpenPMIx at run
// time, where a launch needs it; -tags nopmix gives the fully static one).
// The error carries go build's combined output.
func build(root, pkg, out string, flags ...string) (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("go command not found: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"build"}, flags...)
	args = append(args, "-o", out, pkg)
	cmd := exec.CommandContext(ctx, gobin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	output, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go %s in %s: %w\n%s", strings.Join(args, " "), root, err, output)
	}
	return out, nil
}

// BuildTagged builds hpcbench with build tags (such as "nopmix") into the
// test's temporary directory and returns the binary's path.
func BuildTagged(t testing.TB, tags ...string) string {
	t.Helper()
	return buildInto(t, "-tags", strings.Join(tags, ","))
}

// BuildVersion builds hpcbench stamped with version v (as a release's
// -ldflags -X stamps it) into the test's temporary directory and returns
// the binary's path: another build, for the checks that tell builds apart.
func BuildVersion(t testing.TB, v string) string {
	t.Helper()
	return buildInto(t, "-ldflags", "-X github.com/hpcbench/hpcbench/internal/version.Version="+v)
}

// buildInto builds hpcbench with go build's flags into the test's
// temporary directory.
func buildInto(t testing.TB, flags ...string) string {
	t.Helper()
	out, err := build(RepoRoot(t), "./cmd/hpcbench", filepath.Join(t.TempDir(), "hpcbench"), flags...)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return out
}

// findModuleRoot returns the nearest directory at or above dir that holds a
// go.mod file.
func findModuleRoot(dir string) (string, error) {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
		d = parent
	}
}

// RepoRoot returns the repository root: the nearest directory at or above the
// test's working directory (its package directory) that holds go.mod. It
// fails the test if there is none.
func RepoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("testenv: working directory: %v", err)
	}
	root, err := findModuleRoot(wd)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return root
}

// RequireTool returns the path of the first of names found in $PATH; names
// are alternatives, best first, as in RequireTool(t, "mpicc.mpich", "mpicc"),
// which prefers MPICH's wrapper where Open MPI provides mpicc too.
//
// When none is found it skips the test with the reason and, for tools it
// knows, the Debian package to install: "mpicc not found in $PATH: install
// Debian package libmpich-dev". When RequireToolsEnv is "1" it fails the test
// with the same message instead of skipping.
func RequireTool(t testing.TB, names ...string) string {
	t.Helper()
	if len(names) == 0 {
		t.Fatalf("testenv: RequireTool needs at least one tool name")
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	what := names[0] + " not found in $PATH"
	if len(names) > 1 {
		what = "none of " + strings.Join(names, ", ") + " found in $PATH"
	}
	for _, n := range names {
		if pkg := debianPackage(n); pkg != "" {
			what += ": install Debian package " + pkg
			break
		}
	}
	if os.Getenv(RequireToolsEnv) == "1" {
		t.Fatalf("%s (%s=1 makes a missing tool a failure)", what, RequireToolsEnv)
	}
	t.Skipf("%s", what)
	return ""
}

// RequireSlurm returns the path of srun when a Slurm answers on this
// machine (scontrol ping; scripts/test.sh starts one of its own with
// scripts/slurm.sh and exports SLURM_CONF). Otherwise it skips the test
// saying so, or fails it when RequireToolsEnv is "1".
func RequireSlurm(t testing.TB) string {
	t.Helper()
	srun := RequireTool(t, "srun")
	scontrol := RequireTool(t, "scontrol")
	out, err := exec.Command(scontrol, "ping").CombinedOutput()
	if err == nil && strings.Contains(string(out), "is UP") {
		return srun
	}
	what := fmt.Sprintf("no Slurm answers (scontrol ping: %s): start one with scripts/slurm.sh start DIR and export SLURM_CONF=DIR/slurm.conf (scripts/test.sh does)",
		strings.ReplaceAll(strings.TrimSpace(string(out)), "\n", "; "))
	if os.Getenv(RequireToolsEnv) == "1" {
		t.Fatalf("%s (%s=1 makes a missing tool a failure)", what, RequireToolsEnv)
	}
	t.Skip(what)
	return ""
}

// debianPackage names the Debian package that provides the command name, or
// returns "" when it does not know.
func debianPackage(name string) string {
	switch name {
	case "mpicc", "mpicc.mpich", "mpicxx", "mpicxx.mpich", "mpifort", "mpifort.mpich":
		return "libmpich-dev"
	case "mpiexec", "mpiexec.mpich", "mpiexec.hydra", "mpirun", "mpirun.mpich":
		return "mpich"
	case "mpirun.openmpi", "mpiexec.openmpi":
		return "openmpi-bin"
	case "gcc", "cc":
		return "gcc"
	case "fio":
		return "fio"
	case "fi_info", "fi_pingpong", "fi_rdm_pingpong", "fi_msg_bw":
		return "libfabric-bin"
	case "hyperfine":
		return "hyperfine"
	case "strace":
		return "strace"
	case "time":
		return "time"
	case "ssh":
		return "openssh-client"
	case "srun", "sinfo", "scontrol", "slurmctld", "slurmd":
		return "slurm-wlm"
	}
	return ""
}

// CompileMPI compiles the C file src with MPICH's mpicc (mpicc.mpich, else
// mpicc; see RequireTool) into t.TempDir() and returns the executable's path,
// named after src without its ".c". A relative src is taken from the test's
// working directory, its package directory; the MPI test programs are in
// cmd/hpcbench/testdata/mpi (join RepoRoot from other packages). It fails the
// test, showing the compiler's output, when compilation fails.
func CompileMPI(t testing.TB, src string) string {
	t.Helper()
	mpicc := RequireTool(t, "mpicc.mpich", "mpicc")
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	exe := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".c"))
	ctx := Context(t, 2*time.Minute)
	r := Run(t, ctx, "", nil, mpicc, "-O2", "-Wall", "-o", exe, abs)
	if r.Code != 0 {
		t.Fatalf("testenv: %s -o %s %s: exit %d\n%s%s", mpicc, exe, abs, r.Code, r.Stdout, r.Stderr)
	}
	return exe
}

// Context returns a context that ends after d, or earlier so that a command
// bounded by it is killed before the go test -timeout panic would abandon
// it: a few seconds before the test's deadline, when the test has one. It is
// cancelled when the test ends.
func Context(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := boundByTest(t, context.Background())
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, d)
	t.Cleanup(cancel)
	return ctx
}

// boundByTest returns ctx limited to a little before t's deadline, when t has
// one (a *testing.T does; a *testing.B does not).
func boundByTest(t testing.TB, ctx context.Context) (context.Context, context.CancelFunc) {
	dt, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return context.WithCancel(ctx)
	}
	dl, ok := dt.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	grace := min(5*time.Second, time.Until(dl)/10)
	return context.WithDeadline(ctx, dl.Add(-grace))
}

// Result is what Run saw of one command.
type Result struct {
	// Stdout and Stderr are everything the command and its children wrote.
	Stdout, Stderr string
	// Code is the exit status: the process's own, or 128+N when signal N
	// killed it (as a shell reports it), so a timeout gives 137.
	Code int
	// TimedOut reports that the context ended before the command did, and
	// Run killed its process group.
	TimedOut bool
	// Leftovers reports that processes of the command's process group were
	// still alive after the command itself had exited (a launcher that did
	// not reap its ranks, say). Run killed them.
	Leftovers bool
	// Elapsed is the wall time from start to exit.
	Elapsed time.Duration
}

// Run runs name with args in dir (the test's working directory when dir is
// "") and returns what happened; a non-zero exit is data in the Result, not a
// test failure. env is added to the test process's environment, a later
// entry overriding an earlier one with the same key. Stdin is /dev/null.
//
// The command is bounded by ctx and, like Context, by the test's deadline. It
// runs in a process group of its own (Setpgid); when the deadline passes, Run
// kills the whole group with SIGKILL, and once the command has exited it
// kills whatever is left in the group, so nothing is left behind. Processes
// that moved to another process group or session escape both.
//
// Run fails the test if the command cannot be started.
func Run(t testing.TB, ctx context.Context, dir string, env []string, name string, args ...string) Result {
	t.Helper()
	ctx, cancel := boundByTest(t, ctx)
	defer cancel()

	// Output goes to files, not pipes: a leftover process holding a pipe open
	// would keep Wait from returning.
	stdout, stderr := tempFile(t, "stdout"), tempFile(t, "stderr")
	defer stdout.Close()
	defer stderr.Close()

	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var killed atomic.Bool // set when ctx ended first and Cancel killed the group
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		killed.Store(err == nil)
		return err
	}

	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("testenv: start %s: %v", name, err)
	}
	pgid := cmd.Process.Pid
	// The error is ignored: exit status and cancellation are read from
	// ProcessState and killed below, and Wait with files for stdio has no
	// copying goroutines to fail.
	_ = cmd.Wait()
	r := Result{Elapsed: time.Since(start), TimedOut: killed.Load()}
	if !r.TimedOut {
		r.Leftovers = !groupGone(pgid, 200*time.Millisecond)
	}
	if err := killGroup(pgid); err != nil {
		t.Errorf("testenv: killing process group %d of %s: %v", pgid, name, err)
	}
	if cmd.ProcessState == nil {
		t.Fatalf("testenv: wait %s: no exit status", name)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		r.Code = 128 + int(ws.Signal())
	} else {
		r.Code = ws.ExitStatus()
	}
	r.Stdout, r.Stderr = readAll(t, stdout), readAll(t, stderr)

	note := ""
	if r.TimedOut {
		note = " (timed out: process group killed)"
	} else if r.Leftovers {
		note = " (left processes in its group: killed)"
	}
	t.Logf("testenv: %s %s: exit %d after %v%s", name, strings.Join(args, " "), r.Code,
		r.Elapsed.Round(time.Millisecond), note)
	return r
}

// killGroup sends SIGKILL to the process group pgid. A group that is already
// gone is not an error.
func killGroup(pgid int) error {
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// groupGone reports whether the process group pgid has no live members left,
// polling for up to wait so that processes already dying can finish. Zombies
// do not count: an orphan that has exited stays in its group until init reaps
// it, which can take a second.
func groupGone(pgid int, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for {
		if !groupAlive(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// groupAlive reports whether a process that is not a zombie is in process
// group pgid, from /proc; without /proc, whether the group exists at all.
func groupAlive(pgid int) bool {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return false
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, group, ok := procStat(pid)
		if ok && group == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procStat returns the state letter and process group of pid from
// /proc/PID/stat; ok is false when the process is gone or the file is
// unreadable.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses,
	// so parse from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pgrp, true
}

// tempFile creates a file in t.TempDir for one stream of a command.
func tempFile(t testing.TB, stream string) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), stream+"-*")
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return f
}

// readAll returns the whole content of f, which a command has written to.
func readAll(t testing.TB, f *os.File) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatalf("testenv: %v", err)
	}
	if _, err := b.ReadFrom(f); err != nil {
		t.Fatalf("testenv: reading %s: %v", f.Name(), err)
	}
	return b.String()
}
