package mdtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookFailureCleansUp: a --run-cmd-before-phase or -after-phase
// command that fails ends the run on every rank, which leaves the test
// tree as a failing phase does: removed, the -d directory too when the
// run made it; every rank returns the hook's error.
func TestHookFailureCleansUp(t *testing.T) {
	for _, c := range []struct {
		flag, phase, extra string
	}{
		{"--run-cmd-before-phase", "File stat", ""},
		{"--run-cmd-after-phase", "File creation", ""},
		{"--run-cmd-after-phase", "Directory stat", "-u"},
		{"--run-cmd-before-phase", "Tree removal", "-F"},
	} {
		t.Run(c.flag+" "+c.phase, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "made")
			fail := errors.New("exit status 1")
			runCmd := func(_ context.Context, _, phase string) error {
				if phase == c.phase {
					return fail
				}
				return nil
			}
			args := "-n 6 -d " + dir + " " + c.flag + " check " + c.extra
			j := runJob(t, 3, args, false, runCmd)
			for r, err := range j.errs {
				if err == nil || !strings.Contains(err.Error(), c.phase+": command") {
					t.Errorf("rank %d: %v, want the command's failure in %s", r, err, c.phase)
				}
			}
			if r := j.errs[0]; !errors.Is(r, fail) {
				t.Errorf("rank 0: %v, want it to wrap the command's error", r)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				left, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
				t.Errorf("%s is still there (%v), with %v", dir, err, left)
			}
		})
	}
}
