package router

import (
	"sort"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// placement maps the pool's global targets to the members that own them
// (see the package doc).
type placement struct {
	n       int   // N: the pool's targets, all members' together
	own     []int // own[g] is the member owning global target g
	members int
}

// newPlacement counts targets[m] targets for member m, engine-major.
func newPlacement(targets []int) placement {
	pl := placement{members: len(targets)}
	for m, t := range targets {
		for range t {
			pl.own = append(pl.own, m)
		}
	}
	pl.n = len(pl.own)
	return pl
}

// chunk returns the member holding chunk k of oid.
func (pl placement) chunk(oid object.OID, k int64) int {
	return pl.own[object.Placement(oid, k, pl.n)]
}

// home returns oid's home member: chunk 0's.
func (pl placement) home(oid object.OID) int { return pl.chunk(oid, 0) }

// record returns the member holding oid's records under dkey: the home
// member for an object of width 1, and for a wider one the owner of the
// dkey's place in the object's stripe, as DAOS spreads a KV object's dkeys
// over its shards by their hash.
func (pl placement) record(oid object.OID, dkey string) int {
	w := oid.Class().Width(pl.n)
	if w <= 1 {
		return pl.home(oid)
	}
	return pl.chunk(oid, int64(dkeyHash(dkey)%uint64(w)))
}

// dkeyHash is FNV-1a over the dkey's bytes: fixed, because it places
// records on disk.
func dkeyHash(dkey string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(dkey); i++ {
		h ^= uint64(dkey[i])
		h *= 1099511628211
	}
	return h
}

// stripe is how an object's chunks fall on the members: chunk k is at
// position k mod w of its round k div w, position j belongs to member
// mem[j], and each member numbers the chunks it holds in their global
// order (its local chunks), so that its extent files stay dense: local
// chunk (k div w)*len(pos[m]) + idx[j] of member m = mem[j].
type stripe struct {
	w   int64
	mem []int   // mem[j]: the member of position j
	idx []int   // idx[j]: j's rank among its member's positions
	pos [][]int // pos[m]: member m's positions, ascending
}

// stripe returns oid's stripe over pl's members.
func (pl placement) stripe(oid object.OID) stripe {
	w := max(oid.Class().Width(pl.n), 1)
	s := stripe{w: int64(w), mem: make([]int, w), idx: make([]int, w), pos: make([][]int, pl.members)}
	for j := range w {
		m := pl.chunk(oid, int64(j))
		s.mem[j], s.idx[j] = m, len(s.pos[m])
		s.pos[m] = append(s.pos[m], j)
	}
	return s
}

// members returns the members that hold any of the object's positions (its
// span: those that may hold its bytes and records), in engine order.
func (s stripe) members() []int {
	var ms []int
	for m, p := range s.pos {
		if len(p) > 0 {
			ms = append(ms, m)
		}
	}
	return ms
}

// alone reports whether member m holds every position of the object: all
// its bytes and records.
func (s stripe) alone(m int) bool { return int64(len(s.pos[m])) == s.w }

// local returns the member holding global chunk k and its local chunk.
func (s stripe) local(k int64) (m int, kl int64) {
	q, j := k/s.w, k%s.w
	m = s.mem[j]
	return m, q*int64(len(s.pos[m])) + int64(s.idx[j])
}

// global returns the global chunk of member m's local chunk kl.
func (s stripe) global(m int, kl int64) int64 {
	c := int64(len(s.pos[m]))
	return kl/c*s.w + int64(s.pos[m][kl%c])
}

// globalEnd maps member m's array size (in its local chunks of cs bytes)
// to the global offset its last byte ends at.
func (s stripe) globalEnd(m int, size, cs int64) int64 {
	if size <= 0 || len(s.pos[m]) == 0 {
		return 0
	}
	last := size - 1
	return s.global(m, last/cs)*cs + last%cs + 1
}

// localSize maps a global size to member m's: the end of the last of its
// bytes below size, so that a truncation keeps what lies below size and
// the members' sizes mapped back have size as their largest.
func (s stripe) localSize(m int, size, cs int64) int64 {
	p := s.pos[m]
	if size <= 0 || len(p) == 0 {
		return 0
	}
	kb := (size - 1) / cs // the chunk of the last byte
	q, jb := kb/s.w, int(kb%s.w)
	var k int64 // m's last chunk at or before kb
	switch i := sort.SearchInts(p, jb+1) - 1; {
	case i >= 0:
		k = q*s.w + int64(p[i])
	case q > 0:
		k = (q-1)*s.w + int64(p[len(p)-1])
	default:
		return 0
	}
	_, kl := s.local(k)
	if k == kb {
		return kl*cs + (size-1)%cs + 1
	}
	return (kl + 1) * cs
}

// A piece is what one member call of a transfer moves: bytes [lo, hi) of
// the caller's buffer, at offset off of member m's local array.
type piece struct {
	m      int
	off    int64
	lo, hi int
}

// pieces cuts the transfer of n bytes at off of a (whose stripe st is) at
// its chunks' boundaries, and joins neighbours that are contiguous on one member: one
// piece per run. a.ChunkSize must be > 0 and off+n must not overflow.
func (st stripe) pieces(a object.Array, off int64, n int) []piece {
	var ps []piece
	for lo := 0; lo < n; {
		at := off + int64(lo)
		k := at / a.ChunkSize
		hi := int(min((k+1)*a.ChunkSize-off, int64(n)))
		m, kl := st.local(k)
		loff := kl*a.ChunkSize + at%a.ChunkSize
		if last := len(ps) - 1; last >= 0 && ps[last].m == m && ps[last].off+int64(ps[last].hi-ps[last].lo) == loff {
			ps[last].hi = hi
		} else {
			ps = append(ps, piece{m: m, off: loff, lo: lo, hi: hi})
		}
		lo = hi
	}
	return ps
}
