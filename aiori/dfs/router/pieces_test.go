package router

import (
	"fmt"
	"testing"

	"github.com/hpcbench/hpcbench/aiori/dfs/object"
)

// TestPieces checks how a transfer is cut: pieces follow one another over
// the buffer, each on the member holding every chunk it covers, two in a
// row never on one member; and the span holds the home member.
func TestPieces(t *testing.T) {
	const cs = 4096
	for _, tc := range []struct {
		targets []int
		class   object.Class
		off     int64
		n       int
	}{
		{[]int{1, 1, 1}, object.SX, 0, 10 * cs},
		{[]int{1, 1, 1}, object.SX, cs/2 + 3, 7*cs + 11},
		{[]int{3, 2}, object.SX, 100, 12 * cs},
		{[]int{3, 2}, object.S2, 5 * cs, 3},
		{[]int{2, 1, 4}, object.S4, cs - 1, 9 * cs},
		{[]int{2, 1, 4}, object.S1, 0, 40 * cs},
		{[]int{1}, object.SX, 7, 3 * cs},
		{[]int{1, 1}, object.SX, 0, 0},
	} {
		t.Run(fmt.Sprintf("%v %v %d+%d", tc.targets, tc.class, tc.off, tc.n), func(t *testing.T) {
			pl := newPlacement(tc.targets)
			oid := object.NewOID(tc.class, 4242)
			ps := pl.pieces(object.Array{OID: oid, ChunkSize: cs}, tc.off, tc.n)
			lo := 0
			for i, pc := range ps {
				if pc.lo != lo || pc.hi <= pc.lo || pc.off != tc.off+int64(pc.lo) {
					t.Fatalf("piece %d = %+v; want one from %d", i, pc, lo)
				}
				for k := pc.off / cs; k <= (pc.off+int64(pc.hi-pc.lo)-1)/cs; k++ {
					if m := pl.chunk(oid, k); m != pc.m {
						t.Errorf("piece %d on member %d covers chunk %d of member %d", i, pc.m, k, m)
					}
				}
				if i > 0 && ps[i-1].m == pc.m {
					t.Errorf("pieces %d and %d both on member %d: want one", i-1, i, pc.m)
				}
				lo = pc.hi
			}
			if lo != tc.n {
				t.Errorf("pieces cover %d bytes; want %d", lo, tc.n)
			}
			if tc.class == object.S1 && len(ps) != 1 {
				t.Errorf("S1: %d pieces; want 1", len(ps))
			}
			span := pl.span(oid)
			home := false
			for _, m := range span {
				home = home || m == pl.home(oid)
			}
			if !home {
				t.Errorf("span %v lacks the home member %d", span, pl.home(oid))
			}
		})
	}
}
