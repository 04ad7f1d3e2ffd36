package router

import (
	"github.com/hpcbench/hpcbench/aiori/dfs/object"
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

// span returns the members that may hold bytes of oid, in engine order:
// the owners of its width targets.
func (pl placement) span(oid object.OID) []int {
	w := max(oid.Class().Width(pl.n), 1)
	if w == 1 {
		return []int{pl.home(oid)}
	}
	in := make([]bool, pl.members)
	for k := range w {
		in[pl.chunk(oid, int64(k))] = true
	}
	var ms []int
	for m, ok := range in {
		if ok {
			ms = append(ms, m)
		}
	}
	return ms
}

// alone reports whether oid's bytes and records all live on member m.
func (pl placement) alone(oid object.OID, m int) bool {
	s := pl.span(oid)
	return len(s) == 1 && s[0] == m
}

// A piece is what one member call of a transfer moves: bytes [lo, hi) of
// the caller's buffer, at offset off of the array, on member m.
type piece struct {
	m      int
	off    int64
	lo, hi int
}

// pieces cuts the transfer of n bytes at off of a at its chunks'
// boundaries, and joins consecutive chunks of one member: one piece per
// run. a.ChunkSize must be > 0 and off+n must not overflow.
func (pl placement) pieces(a object.Array, off int64, n int) []piece {
	var ps []piece
	for lo := 0; lo < n; {
		at := off + int64(lo)
		k := at / a.ChunkSize
		hi := int(min((k+1)*a.ChunkSize-off, int64(n)))
		m := pl.chunk(a.OID, k)
		if last := len(ps) - 1; last >= 0 && ps[last].m == m {
			ps[last].hi = hi
		} else {
			ps = append(ps, piece{m: m, off: at, lo: lo, hi: hi})
		}
		lo = hi
	}
	return ps
}
