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

// place returns where the item at place i of s is: its test directory,
// its directory there, and its number.
func (s *itemSet) place(i int64) (j, dir, num int64) {
	if s.order != nil {
		i = s.order.at(i)
	}
	j = min(i/s.perTree, s.t.loops-1)
	num, dir = s.t.itemOf(i % s.perTree)
	return j, dir, num
}

// pathBuf is where a rank formats the path of its next operation. A
// backend that keeps no path past a call (itemIO's promise) is given a
// view of the buffer (borrow), which the next path overwrites, so the
// timed loops allocate nothing; any other backend gets a copy. While
// successive items share a directory, its path is formatted once: the
// buffer remembers which tree's (tree.id), which test directory's and
// which directory's path its first dirLen bytes hold.
type pathBuf struct {
	b      []byte
	borrow bool
	tree   int64 // the tree.id of the directory held, 0 for none
	j, dir int64
	dirLen int
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
	j, dir, num := s.place(i)
	pb := &r.pb
	if pb.tree == 0 || pb.tree != s.t.id || pb.j != j || pb.dir != dir {
		pb.b = s.t.appendDir(pb.b[:0], j, dir)
		pb.tree, pb.j, pb.dir, pb.dirLen = s.t.id, j, dir, len(pb.b)
	}
	pb.b = appendName(pb.b[:pb.dirLen], s.kind, s.who, num)
	pb.b = append(pb.b, s.suffix...)
	return pb.str()
}

// dirPath returns the path of directory k of t's tree in test directory j,
// in r's path buffer.
func (r *runner) dirPath(t *tree, j, k int64) string {
	r.pb.b, r.pb.tree = t.appendDir(r.pb.b[:0], j, k), 0
	return r.pb.str()
}

// testDirPath returns the path of t's test directory j, in r's path
// buffer.
func (r *runner) testDirPath(t *tree, j int64) string {
	r.pb.b, r.pb.tree = t.appendTestDir(r.pb.b[:0], j), 0
	return r.pb.str()
}
