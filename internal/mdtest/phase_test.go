package mdtest

import (
	"slices"
	"testing"
)

// TestPhaseHook: rank 0's Phase hook hears every phase of every
// iteration, in order, starting at 0 items, every 4096 items inside it,
// and ending at the items it did.
func TestPhaseHook(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		{"files", "-a DUMMY -n 5 -F -i 2 -d md", []string{
			"Tree creation 0 0/0", "Tree creation 0 0/0", "File creation 0 0/5", "File creation 0 5/5",
			"File stat 0 0/5", "File stat 0 5/5", "File read 0 0/5", "File read 0 5/5",
			"File removal 0 0/5", "File removal 0 5/5", "Tree removal 0 0/0", "Tree removal 0 0/0",
			"Tree creation 1 0/0", "Tree creation 1 0/0", "File creation 1 0/5", "File creation 1 5/5",
			"File stat 1 0/5", "File stat 1 5/5", "File read 1 0/5", "File read 1 5/5",
			"File removal 1 0/5", "File removal 1 5/5", "Tree removal 1 0/0", "Tree removal 1 0/0",
		}},
		// Inside a phase, every 4096 items a rank does.
		{"in-phase", "-a DUMMY -n 8192 -F -C -d md", []string{
			"Tree creation 0 0/0", "Tree creation 0 0/0", "File creation 0 0/8192",
			"File creation 0 4096/8192", "File creation 0 8192/8192", "File creation 0 8192/8192",
		}},
		{"dirs", "-a DUMMY -n 3 -D -d md", []string{
			"Tree creation 0 0/0", "Tree creation 0 0/0", "Directory creation 0 0/3", "Directory creation 0 3/3",
			"Directory stat 0 0/3", "Directory stat 0 3/3", "Directory read 0 0/3", "Directory read 0 3/3",
			"Directory rename 0 0/3", "Directory rename 0 3/3", "Directory removal 0 0/3", "Directory removal 0 3/3",
			"Tree removal 0 0/0", "Tree removal 0 0/0",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := runJob(t, 2, tc.args, true, nil)
			for r, err := range j.errs {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
			if !slices.Equal(j.phases, tc.want) {
				t.Errorf("phases:\n got %q\nwant %q", j.phases, tc.want)
			}
		})
	}
}
