package ior

import (
	"slices"
	"testing"
)

// TestPhaseHook: rank 0's Phase hook hears every phase of every
// repetition, in order, at 0 bytes and at the bytes it moved.
func TestPhaseHook(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		{"write-read", "-a DUMMY -b 64k -t 16k -i 2 -w -r", []string{
			"write 0 0/65536", "write 0 65536/65536", "read 0 0/65536", "read 0 65536/65536",
			"write 1 0/65536", "write 1 65536/65536", "read 1 0/65536", "read 1 65536/65536",
		}},
		{"segments-write-only", "-a DUMMY -b 8k -t 4k -s 3 -w", []string{
			"write 0 0/24576", "write 0 24576/24576",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := runJob(t, 2, tc.args, true)
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
