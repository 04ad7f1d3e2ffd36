package router

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// TestPieces checks how a transfer is cut: pieces follow one another over
// the buffer, each on the member holding every chunk it covers, at those
// chunks' local offsets there, two in a row never on one member; and the
// span holds the home member.
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
			st := pl.stripe(oid)
			ps := st.pieces(object.Array{OID: oid, ChunkSize: cs}, tc.off, tc.n)
			lo := 0
			for i, pc := range ps {
				if pc.lo != lo || pc.hi <= pc.lo {
					t.Fatalf("piece %d = %+v; want one from %d", i, pc, lo)
				}
				for b := pc.lo; b < pc.hi; b++ { // every byte: its chunk's member and local offset
					at := tc.off + int64(b)
					k := at / cs
					m, kl := localChunk(pl, oid, k)
					if m != pc.m || pc.off+int64(b-pc.lo) != kl*cs+at%cs {
						t.Fatalf("piece %d (%+v): byte %d of chunk %d belongs at %d of member %d", i, pc, b, k, kl*cs+at%cs, m)
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
			span := st.members()
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

// localChunk is the package doc's rule by its definition: chunk k is on
// the member owning Placement(oid, k, N), which numbers the chunks it holds
// in their global order.
func localChunk(pl placement, oid object.OID, k int64) (m int, kl int64) {
	m = pl.chunk(oid, k)
	for k2 := range k {
		if pl.chunk(oid, k2) == m {
			kl++
		}
	}
	return m, kl
}

// TestStripe checks the stripe against the definitions: its members are
// the owners of the object's chunks, alone says when one holds them all;
// local agrees with localChunk and global is its inverse; a member's size maps back to the end of its last
// byte; and the members' local sizes for any global size keep exactly the
// bytes below it, their largest mapped back being that size.
func TestStripe(t *testing.T) {
	const cs = 10
	for _, tc := range []struct {
		targets []int
		class   object.Class
	}{
		{[]int{1, 1, 1}, object.SX}, {[]int{3, 2}, object.SX}, {[]int{3, 2}, object.S2},
		{[]int{2, 1, 4}, object.S4}, {[]int{2, 1, 4}, object.S1}, {[]int{1}, object.SX},
	} {
		pl := newPlacement(tc.targets)
		for seq := uint64(1000); seq < 1020; seq++ {
			oid := object.NewOID(tc.class, seq)
			st := pl.stripe(oid)
			var owners []int // the span by its definition: the members of chunks 0..59
			for k := range int64(60) {
				if m := pl.chunk(oid, k); !slices.Contains(owners, m) {
					owners = append(owners, m)
				}
			}
			slices.Sort(owners)
			if got := st.members(); !slices.Equal(got, owners) {
				t.Fatalf("%v %v: members %v; want %v", tc.targets, oid, got, owners)
			}
			for m := range pl.members {
				if want := len(owners) == 1 && owners[0] == m; st.alone(m) != want {
					t.Fatalf("%v %v: alone(%d) = %v; want %v", tc.targets, oid, m, st.alone(m), want)
				}
			}
			for k := range int64(60) {
				m, kl := st.local(k)
				if wm, wkl := localChunk(pl, oid, k); m != wm || kl != wkl {
					t.Fatalf("%v %v: chunk %d is local chunk %d of member %d; want %d of %d", tc.targets, oid, k, kl, m, wkl, wm)
				}
				if g := st.global(m, kl); g != k {
					t.Fatalf("%v %v: global(%d, %d) = %d; want %d", tc.targets, oid, m, kl, g, k)
				}
			}
			for size := range int64(40 * cs) {
				var top int64
				for m := range pl.members {
					ls := st.localSize(m, size, cs)
					end := st.globalEnd(m, ls, cs)
					if end > size {
						t.Fatalf("%v %v size %d: member %d keeps %d local bytes, ending at %d", tc.targets, oid, size, m, ls, end)
					}
					// Every byte of m below size is below its local size.
					for k := range (size + cs - 1) / cs {
						if mk, kl := st.local(k); mk == m && kl*cs+min(cs, size-k*cs) > ls {
							t.Fatalf("%v %v size %d: member %d's local size %d drops chunk %d", tc.targets, oid, size, m, ls, k)
						}
					}
					top = max(top, end)
				}
				if top != size {
					t.Fatalf("%v %v size %d: the members' sizes map back to at most %d", tc.targets, oid, size, top)
				}
			}
		}
	}
}
