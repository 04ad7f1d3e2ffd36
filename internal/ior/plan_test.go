package ior

import (
	"testing"

	"github.com/hpcbench/hpcbench/internal/ior/layout"
)

// TestCursorMatchesOffset checks that a cursor started at any transfer
// yields the offsets offset(i) does, wrapping round past the end, for
// sequential, shuffled and random-block plans of one and several
// segments.
func TestCursorMatchesOffset(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    layout.Geometry
	}{
		{"sequential-fpp", layout.Geometry{BlockSize: 64, TransferSize: 16, Segments: 1, NumTasks: 2, FilePerProc: true}},
		{"sequential-shared-segments", layout.Geometry{BlockSize: 64, TransferSize: 16, Segments: 3, NumTasks: 2}},
		{"one-transfer", layout.Geometry{BlockSize: 16, TransferSize: 16, Segments: 2, NumTasks: 1}},
		{"shuffled", layout.Geometry{BlockSize: 128, TransferSize: 16, Segments: 2, NumTasks: 3, RandomOffset: layout.Shuffled, Seed: 5}},
		{"random-blocks", layout.Geometry{BlockSize: 64, TransferSize: 16, Segments: 4, NumTasks: 2, FilePerProc: true, RandomOffset: layout.RandomBlocks, Seed: 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lp, err := tc.g.Plan(1 % tc.g.NumTasks)
			if err != nil {
				t.Fatal(err)
			}
			pl := &plan{lp: lp, count: int64(lp.Len())}
			n := int64(lp.Len())
			for from := int64(0); from < 2*n; from++ {
				c := pl.cursor(from)
				for i := from; i < from+2*n+1; i++ {
					if got, want := c.next(), pl.offset(i); got != want {
						t.Fatalf("cursor(%d): transfer %d at %d; want %d", from, i, got, want)
					}
				}
			}
		})
	}
}
