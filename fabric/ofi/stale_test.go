package ofi

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRemoveStaleRegions: regions of dead processes and of this pid go,
// those of live processes and files of other names stay.
func TestRemoveStaleRegions(t *testing.T) {
	dir := t.TempDir()
	dead := 1 << 22           // above pid_max's largest value: never a live process
	files := map[string]bool{ // name → removed
		strconv.Itoa(dead) + ":0:0":         true,
		strconv.Itoa(os.Getpid()) + ":0:0":  true,
		strconv.Itoa(os.Getppid()) + ":1:0": false, // the test's parent lives
		"hpcbench-shm-123":                  false,
		"123:0":                             false,
	}
	for name := range files {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if n := removeStaleRegions(dir); n != 2 {
		t.Errorf("removeStaleRegions = %d; want 2", n)
	}
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := os.IsNotExist(err); gone != removed {
			t.Errorf("%s: removed %v; want %v", name, gone, removed)
		}
	}
}
