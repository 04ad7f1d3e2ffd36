package mdtest

import (
	"strconv"
)

// treeBase is mdtest's base_tree_name.
const treeBase = "mdtest_tree"

// tree is where one rank's items live during one iteration: loops test
// directories <base>/test-dir.<iter>-<j>, each holding a tree of count
// directories numbered 0.. in breadth-first order, node k's children being
// k*branch+1 .. k*branch+branch, depth levels below the root. Items live
// in every directory, or only in the leaves (-L), perDir to a directory.
//
// Nothing is kept per directory or item: every path is derived from its
// numbers when it is asked for, appended to the caller's buffer, as
// mdtest derives them (mdtest_stat's parent_dir walk), so that a rank's
// memory does not grow with -n, -I, -z or -b.
type tree struct {
	base     string // the -d directory the test directories are in
	testDir  string // their names' start: "test-dir.<iter>-"
	loops    int64  // test directories (Layout.DirLoops)
	name     string // the root directory's name: mdtest_tree.0, or mdtest_tree.<rank>.0 with -u
	depth    int
	branch   int64
	count    int64 // directories in one tree
	leafOnly bool
	perDir   int64 // items per item directory (-I)
}

// treeSize is the number of directories of a tree of the given depth and
// branching factor: (b^(z+1)-1)/(b-1), or z+1 for b = 1. Validate has
// refused the trees whose size overflows.
func treeSize(depth int, branch int64) int64 {
	var n int64
	level := int64(1)
	for i := range depth + 1 {
		n += level
		if i < depth {
			level *= branch
		}
	}
	return n
}

// newTree lays out the trees of iteration iter in the test directories
// under base. owner is the rank whose private tree it is with -u, or -1
// for the tree all ranks share.
func newTree(base string, iter int, loops int64, owner, depth, branch int, leafOnly bool, perDir int64) *tree {
	t := &tree{
		base: base, testDir: "test-dir." + strconv.Itoa(iter) + "-", loops: max(loops, 1),
		depth: depth, branch: int64(max(branch, 1)), leafOnly: leafOnly, perDir: perDir,
	}
	t.count = treeSize(depth, t.branch)
	t.name = treeBase + ".0"
	if owner >= 0 {
		t.name = treeBase + "." + strconv.Itoa(owner) + ".0"
	}
	return t
}

// appendTestDir appends the path of test directory j to b.
func (t *tree) appendTestDir(b []byte, j int64) []byte {
	b = append(b, t.base...)
	b = append(b, '/')
	b = append(b, t.testDir...)
	return strconv.AppendInt(b, j, 10)
}

// appendDir appends the path of directory k of the tree in test
// directory j to b: the root, then mdtest_tree.<a> for each ancestor a of
// k below the root, top down, and k's own.
func (t *tree) appendDir(b []byte, j, k int64) []byte {
	b = t.appendTestDir(b, j)
	b = append(b, '/')
	b = append(b, t.name...)
	if k == 0 {
		return b
	}
	// k's level l, the first node of that level (start) and the level's
	// width b^l.
	start, width, l := int64(1), t.branch, 1
	for k >= start+width {
		start += width
		width *= t.branch
		l++
	}
	// The ancestor at level m is the first node of level m plus k's
	// place in its level divided by b^(l-m).
	pos, div := k-start, width/t.branch
	first, w := int64(1), t.branch
	for m := 1; m <= l; m++ {
		b = append(b, "/"+treeBase+"."...)
		b = strconv.AppendInt(b, first+pos/div, 10)
		if m < l {
			first += w
			w *= t.branch
			div /= t.branch
		}
	}
	return b
}

// firstLeaf is the number of the first directory of the deepest level.
func (t *tree) firstLeaf() int64 {
	return treeSize(t.depth-1, t.branch)
}

// itemDirOf returns the number of the directory holding item i of a
// tree.
func (t *tree) itemDirOf(i int64) int64 {
	d := i / max(t.perDir, 1)
	if t.leafOnly && t.depth > 0 {
		d += t.firstLeaf()
	}
	return min(d, t.count-1)
}

// sharedOwner is the owner of the items every rank shares with -S.
const sharedOwner = -1

// ownerName is how an item's name says whose it is: the rank, or
// "shared" for the items all ranks share (-S).
func ownerName(owner int) string {
	if owner == sharedOwner {
		return "shared"
	}
	return strconv.Itoa(owner)
}

// appendItem appends to b the path of item i of the tree in test
// directory j, of kind "file" or "dir" and owner who (ownerName), as
// mdtest names it: <dir>/file.mdtest.<rank>.<i>, or
// <dir>/file.mdtest.shared.<i> for the items all ranks share.
func (t *tree) appendItem(b []byte, j int64, kind, who string, i int64) []byte {
	b = t.appendDir(b, j, t.itemDirOf(i))
	b = append(b, '/')
	b = append(b, kind...)
	b = append(b, ".mdtest."...)
	b = append(b, who...)
	b = append(b, '.')
	return strconv.AppendInt(b, i, 10)
}
