package engine

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/objstore/client"
	"github.com/hpcbench/hpcbench/objstore/store"
	"github.com/hpcbench/hpcbench/objstore/store/storetest"
)

// testBinary is this test binary, which serves ChildCommand (TestMain).
func testBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// TestEngineChild: the engine process reports addresses a client reaches,
// serves the pool, and at close stops with the pool closed (the lock is
// free again); closing twice is harmless.
func TestEngineChild(t *testing.T) {
	dir := storetest.Dir(t, 2)
	c, busy, err := StartChild(t.Context(), testBinary(t), dir)
	if err != nil || busy != "" {
		t.Fatalf("StartChild: %v, busy %q", err, busy)
	}
	cl, err := client.DialEngine(t.Context(), c.addrs, 1)
	if err != nil {
		c.Close()
		t.Fatalf("dial %v: %v", c.addrs, err)
	}
	pi, err := cl.Query(t.Context())
	if err != nil || len(pi.Targets) != 2 {
		t.Errorf("Query through the child's engine: %+v, %v; want 2 targets", pi, err)
	}
	cl.Close()
	if err := c.Close(); err != nil {
		t.Errorf("close: %v; want a clean exit", err)
	}
	p, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatalf("the pool after the engine stopped: %v", err)
	}
	p.Close()
}

// TestEngineChildBusy: a pool another engine holds is reported as busy,
// with why, and no child keeps running.
func TestEngineChildBusy(t *testing.T) {
	dir := storetest.Dir(t, 2)
	p, err := store.Open(dir, store.Options{}) // this process holds it
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, busy, err := StartChild(t.Context(), testBinary(t), dir)
	if err != nil || c != nil || !strings.Contains(busy, "holds") {
		t.Errorf("StartChild on a held pool: %v, %v, busy %q; want busy saying who holds it", c, err, busy)
	}
}

// TestEngineChildFails: an engine that cannot open its pool says why, and
// one killed mid-job makes close report the signal.
func TestEngineChildFails(t *testing.T) {
	notPool := t.TempDir()
	if _, _, err := StartChild(t.Context(), testBinary(t), notPool); err == nil || !strings.Contains(err.Error(), notPool) {
		t.Errorf("StartChild on a directory that is no pool: %v; want the store's error naming it", err)
	}
	c, _, err := StartChild(t.Context(), testBinary(t), storetest.Dir(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	c.cmd.Process.Signal(syscall.SIGKILL)
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("close after the engine was killed: %v; want the signal named", err)
	}
}

// TestEngineChildUnbound: a rank bound to one CPU starts an engine that may
// run on every CPU the rank's process could.
func TestEngineChildUnbound(t *testing.T) {
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Fatal(err)
	}
	if all.Count() < 2 {
		t.Skipf("this process may run on %d CPU: there is no binding to undo", all.Count())
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var one unix.CPUSet
	for i := range 64 * len(all) {
		if all.IsSet(i) {
			one.Set(i)
			break
		}
	}
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		t.Fatal(err)
	}
	defer unix.SchedSetaffinity(0, &all)
	c, _, err := StartChild(t.Context(), testBinary(t), storetest.Dir(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got unix.CPUSet
	if err := unix.SchedGetaffinity(c.cmd.Process.Pid, &got); err != nil {
		t.Fatal(err)
	}
	if got != all {
		t.Errorf("the engine may run on %d CPUs; want the %d of its rank's process, not the rank's binding", got.Count(), all.Count())
	}
	var now unix.CPUSet
	if unix.SchedGetaffinity(0, &now); now != one {
		t.Errorf("the starting thread's binding was not restored: %d CPUs, want 1", now.Count())
	}
}

// TestChildEnv: the engine gets the rank's environment without its PMI
// variables and GOMAXPROCS.
func TestChildEnv(t *testing.T) {
	in := []string{"PATH=/bin", "PMI_FD=3", "PMI_RANK=0", "PMI_SIZE=4", "PMI_PORT=h:1", "GOMAXPROCS=1", "HPCBENCH_HOSTNAME=a", "GOMAXPROCSX=2"}
	want := []string{"PATH=/bin", "HPCBENCH_HOSTNAME=a", "GOMAXPROCSX=2"}
	if got := childEnv(in); !slices.Equal(got, want) {
		t.Errorf("childEnv(%q) = %q; want %q", in, got, want)
	}
}
