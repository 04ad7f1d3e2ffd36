package mdtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBaseDirAsMdtest: -d is made with one mkdir, as mdtest makes it: a
// missing last directory is created (and removed at the end), a missing
// parent is bad input found before anything is created, on any rank's -d.
func TestBaseDirAsMdtest(t *testing.T) {
	root := t.TempDir()
	made := filepath.Join(root, "made")
	j := runJob(t, 1, "-n 4 -d "+made, false, nil)
	noErrors(t, j)
	if _, err := os.Stat(made); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: %v; want it removed at the end, as the run made it", made, err)
	}

	deep := filepath.Join(root, "missing", "deep")
	ok := filepath.Join(root, "ok")
	j = runJob(t, 2, "-n 4 -u -d "+ok+"@"+deep, false, nil)
	var bad *BadInputError
	if !errors.As(j.errs[1], &bad) || !strings.Contains(bad.Error(), "-d "+deep+": directory "+filepath.Dir(deep)+" does not exist") {
		t.Errorf("rank 1: %v, want a BadInputError naming -d %s", j.errs[1], deep)
	}
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Errorf("left in %s: %v; want nothing created", root, left)
	}
}
