// Package libtest tests the shell helpers of scripts/lib.sh (a directory of
// its own: scripts/ holds C programs, which a Go package there would have
// to build with cgo).
package libtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitLocks runs hb_wait_apt_locks from lib.sh on the lock files locks,
// giving up after limit seconds, and returns its exit status, its stderr
// and how long it took.
func waitLocks(t *testing.T, limit string, locks ...string) (int, string, time.Duration) {
	t.Helper()
	cmd := exec.Command("bash", "-c", `. ../lib.sh && hb_wait_apt_locks`)
	cmd.Env = append(os.Environ(), "HB_APT_LOCKS="+strings.Join(locks, " "), "HPCBENCH_APT_LOCK_WAIT="+limit)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String(), time.Since(start)
}

// lockFile returns a new file under the test's directory, locked with
// flock(2) by this process (/proc/locks lists it as apt's fcntl locks are
// listed), and the function that unlocks it.
func lockFile(t *testing.T) (string, func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lock-frontend")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	return path, func() { once.Do(func() { unix.Flock(int(f.Fd()), unix.LOCK_UN) }) }
}

func TestWaitAptLocks(t *testing.T) {
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skipf("no /proc/locks: %v", err)
	}
	free := filepath.Join(t.TempDir(), "free")
	if err := os.WriteFile(free, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	// Nothing locked (or no such file): returns at once, silently.
	if code, stderr, _ := waitLocks(t, "300", free, "/nonexistent/lock"); code != 0 || stderr != "" {
		t.Errorf("free locks: exit %d, stderr %q", code, stderr)
	}

	// Locked for 3 s: says once that it waits and for what, then goes on.
	held, unlock := lockFile(t)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(3 * time.Second)
		unlock()
	}()
	code, stderr, took := waitLocks(t, "300", free, held)
	wg.Wait()
	if code != 0 || took < 2*time.Second {
		t.Errorf("held lock: exit %d after %v; want 0 after the 3 s it was held\n%s", code, took, stderr)
	}
	if strings.Count(stderr, "waiting up to 300s") != 1 || !strings.Contains(stderr, held) ||
		!strings.Contains(stderr, "(pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(stderr, "package locks free after") {
		t.Errorf("held lock: stderr %q; want one line naming %s and this process, then that it is free", stderr, held)
	}

	// Held past the limit: exit 1 naming the lock.
	held, unlock = lockFile(t)
	defer unlock()
	code, stderr, _ = waitLocks(t, "1", held)
	if code != 1 || !strings.Contains(stderr, "still holds "+held) {
		t.Errorf("lock held past the limit: exit %d, stderr %q; want 1 and the lock named", code, stderr)
	}
}
