package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// TestHardFailurePrintedOnce: a hard failure is printed once per job,
// whether every rank has it (rank 0 says it) or one rank only (that rank
// says it), and the job exits 1.
func TestHardFailurePrintedOnce(t *testing.T) {
	dir := t.TempDir()
	// Rank 2's file of -F cannot be created: a directory is in its way.
	if err := os.Mkdir(filepath.Join(dir, "f.00000002"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, want string
	}{
		{"every-rank", "no/f", "no such file or directory"},
		{"rank-2", "f", "f.00000002"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench,
				"launch", "-n", "3", "--", "hpcbench", "ior", "-a", "POSIX", "-F", "-w", "-b", "4k", "-t", "4k", "-o", tc.file)
			if r.Code != 1 {
				t.Fatalf("exit %d, want 1\nstderr:\n%s", r.Code, r.Stderr)
			}
			var errs int
			for _, line := range strings.Split(r.Stderr, "\n") {
				if strings.HasPrefix(line, "hpcbench: ior: ") {
					errs++
					if !strings.Contains(line, tc.want) {
						t.Errorf("error %q does not name %q", line, tc.want)
					}
				}
			}
			if errs != 1 {
				t.Errorf("%d error lines, want 1:\n%s", errs, r.Stderr)
			}
		})
	}
}
