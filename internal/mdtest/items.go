package mdtest

import (
	"strings"
	"unsafe"
)

// itemSet is the items of one kind of one rank that a phase works on, in
// the phase's order: place i's path is derived from i when the loop
// reaches it (path), never kept.
type itemSet struct {
	t       *tree
	perTree int64  // items per test directory
	kind    string // "file" or "dir"
	who     string // the owner's part of the names (ownerName)
	suffix  string // renameSuffix once the directories are renamed
	n       int64  // items
	order   *permutation
}

// itemsOf returns the first n items of the kind phase name works on, of
// rank owner, in creation order.
func (r *runner) itemsOf(name string, owner int, n int64) itemSet {
	s := itemSet{t: r.tree(owner), kind: "file", who: ownerName(owner), n: n}
	s.perTree = max(r.layout.ItemsPerRank/s.t.loops, 1)
	if strings.HasPrefix(name, "Directory") {
		s.kind = "dir"
		if r.renamed {
			s.suffix = renameSuffix
		}
	}
	if r.o.SharedFile {
		s.who = ownerName(sharedOwner)
		if name == phFileRemove && r.rank != 0 {
			s.n = 0 // one rank removes what all shared
		}
	}
	return s
}

// phaseItems returns the items phase name works on, of rank owner, in the
// phase's order: -R's for the stat and read phases (the same on every
// rank for a given owner), else creation order.
func (r *runner) phaseItems(name string, owner int) itemSet {
	s := r.itemsOf(name, owner, r.items)
	if (name == phFileStat || name == phDirStat || name == phFileRead) && r.o.RandomOrder() && s.n > 1 {
		s.order = newPermutation(s.n, r.seed, uint64(owner))
	}
	return s
}

// appendPath appends the path of the item at place i of s to b.
func (s *itemSet) appendPath(b []byte, i int64) []byte {
	if s.order != nil {
		i = s.order.at(i)
	}
	j := min(i/s.perTree, s.t.loops-1)
	b = s.t.appendItem(b, j, s.kind, s.who, i%s.perTree)
	return append(b, s.suffix...)
}

// pathBuf is where a rank formats the path of its next operation. A
// backend that keeps no path past a call (itemIO's promise) is given a
// view of the buffer (borrow), which the next path overwrites, so the
// timed loops allocate nothing; any other backend gets a copy.
type pathBuf struct {
	b      []byte
	borrow bool
}

// newPathBuf returns a pathBuf with room for the paths of most trees, so
// that the first item of a timed loop does not grow it.
func newPathBuf(borrow bool) pathBuf {
	return pathBuf{b: make([]byte, 0, 512), borrow: borrow}
}

// str returns the buffer's path: a view of it when borrowing, else a
// copy.
func (p *pathBuf) str() string {
	if p.borrow && len(p.b) > 0 {
		return unsafe.String(unsafe.SliceData(p.b), len(p.b))
	}
	return string(p.b)
}

// path returns the path of the item at place i of s, in r's path buffer.
func (r *runner) path(s *itemSet, i int64) string {
	r.pb.b = s.appendPath(r.pb.b[:0], i)
	return r.pb.str()
}

// dirPath returns the path of directory k of t's tree in test directory j,
// in r's path buffer.
func (r *runner) dirPath(t *tree, j, k int64) string {
	r.pb.b = t.appendDir(r.pb.b[:0], j, k)
	return r.pb.str()
}

// testDirPath returns the path of t's test directory j, in r's path
// buffer.
func (r *runner) testDirPath(t *tree, j int64) string {
	r.pb.b = t.appendTestDir(r.pb.b[:0], j)
	return r.pb.str()
}
