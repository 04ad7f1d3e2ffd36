package mdtest

import (
	"strconv"
)

// treeBase is mdtest's base_tree_name.
const treeBase = "mdtest_tree"

// tree is the directory tree one rank works in during one iteration:
// Count directories numbered 0.. in breadth-first order, node k's
// children being k*Branch+1 .. k*Branch+Branch, Depth levels below the
// root. Items live in every directory, or only in the leaves (-L).
type tree struct {
	root     string // the test directory holding the tree
	name     string // the root directory's name: mdtest_tree.0, or mdtest_tree.<rank>.0 with -u
	depth    int
	branch   int
	count    int // directories in the tree
	leafOnly bool
	perDir   int64 // items per item directory (-I)
	paths    []string
}

// treeSize is the number of directories of a tree of the given depth and
// branching factor: (b^(z+1)-1)/(b-1), or z+1 for b = 1.
func treeSize(depth, branch int) int {
	n, level := 0, 1
	for range depth + 1 {
		n += level
		level *= branch
	}
	return n
}

// newTree lays out the tree rooted in dir. owner is the rank whose
// private tree it is with -u, or -1 for the tree all ranks share.
func newTree(dir string, owner, depth, branch int, leafOnly bool, perDir int64) *tree {
	t := &tree{root: dir, depth: depth, branch: max(branch, 1), leafOnly: leafOnly, perDir: perDir}
	t.count = treeSize(depth, t.branch)
	t.name = treeBase + ".0"
	if owner >= 0 {
		t.name = treeBase + "." + strconv.Itoa(owner) + ".0"
	}
	t.paths = make([]string, t.count)
	t.paths[0] = dir + "/" + t.name
	for k := 1; k < t.count; k++ {
		parent := (k - 1) / t.branch
		t.paths[k] = t.paths[parent] + "/" + treeBase + "." + strconv.Itoa(k)
	}
	return t
}

// firstLeaf is the number of the first directory of the deepest level.
func (t *tree) firstLeaf() int {
	return treeSize(t.depth-1, t.branch)
}

// itemDirs is the number of directories that hold items.
func (t *tree) itemDirs() int {
	if t.leafOnly && t.depth > 0 {
		return t.count - t.firstLeaf()
	}
	return t.count
}

// itemDir returns the directory holding item i.
func (t *tree) itemDir(i int64) string {
	d := int(i / max(t.perDir, 1))
	if t.leafOnly && t.depth > 0 {
		d += t.firstLeaf()
	}
	if d >= t.count {
		d = t.count - 1
	}
	return t.paths[d]
}

// sharedOwner is the owner of the items every rank shares with -S.
const sharedOwner = -1

// itemPath returns the path of item i of rank owner: kind is "file" or
// "dir", as mdtest names them: <dir>/file.mdtest.<rank>.<i>, or
// <dir>/file.mdtest.shared.<i> for the items all ranks share (-S).
func (t *tree) itemPath(kind string, owner int, i int64) string {
	who := "shared"
	if owner != sharedOwner {
		who = strconv.Itoa(owner)
	}
	return t.itemDir(i) + "/" + kind + ".mdtest." + who + "." + strconv.FormatInt(i, 10)
}
