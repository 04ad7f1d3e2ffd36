package mdtest

import (
	"strconv"

	"github.com/hpcbench/hpcbench/internal/mdtest/config"
)

// treeBase is mdtest's base_tree_name.
const treeBase = "mdtest_tree"

// tree is where one rank's items live during one iteration: loops test
// directories <base>/test-dir.<iter>-<j>, each holding a tree of count
// directories numbered 0.. in breadth-first order, node k's children being
// k*branch+1 .. k*branch+branch, depth levels below the root. Directory k
// is mdtest_tree.<k>, or mdtest_tree.<rank>.<k> in rank's own tree (-u),
// inside its parent. Items live in every directory, or only in the leaves
// (-L), perDir to a directory; an item's number counts the items of the
// directories before its own, leaves or not, as mdtest numbers them
// (create_remove_items' currDir*items_per_dir), so that with -L the first
// leaf's first item is number firstLeaf*perDir.
//
// Nothing is kept per directory or item: every path is derived from its
// numbers when it is asked for, appended to the caller's buffer, as
// mdtest derives them (mdtest_stat's parent_dir walk), so that a rank's
// memory does not grow with -n, -I, -z or -b.
type tree struct {
	base    string // the -d directory the test directories are in
	testDir string // their names' start: "test-dir.<iter>-"
	loops   int64  // test directories (Layout.DirLoops)
	prefix  string // a directory's name less its number: "mdtest_tree.", or "mdtest_tree.<rank>." with -u
	branch  int64
	count   int64 // directories in one tree
	perDir  int64 // items per item directory (-I)
	first   int64 // the number of a tree's first item: with -L, the directories above the leaves times perDir
	// id tells the trees of a runner apart (runner.tree numbers them
	// from 1) for the directory its path buffer holds; 0 for none.
	id int64
}

// newTree lays out the trees of iteration iter in the test directories
// under base, of the shape l says (-z, -b, -L, -I, and -n with -I for
// the test directories). owner is the rank whose private tree it is with
// -u, or -1 for the tree all ranks share.
func newTree(base string, iter, owner int, o *config.Options, l config.Layout) *tree {
	t := &tree{
		base: base, testDir: "test-dir." + strconv.Itoa(iter) + "-", loops: max(l.DirLoops, 1),
		branch: int64(max(o.Branch, 1)), count: l.TreeDirs, perDir: l.ItemsPerDir,
	}
	t.prefix = treeBase + "."
	if owner >= 0 {
		t.prefix += strconv.Itoa(owner) + "."
	}
	if o.LeafOnly && o.Depth > 0 {
		t.first = (l.TreeDirs - l.Leaves) * l.ItemsPerDir // the directories above the leaves'
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
// directory j to b: the root's name, then those of k's ancestors below
// the root, top down, and k's own.
func (t *tree) appendDir(b []byte, j, k int64) []byte {
	b = t.appendTestDir(b, j)
	b = append(b, '/')
	b = append(b, t.prefix...)
	b = append(b, '0')
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
		b = append(b, '/')
		b = append(b, t.prefix...)
		b = strconv.AppendInt(b, first+pos/div, 10)
		if m < l {
			first += w
			w *= t.branch
			div /= t.branch
		}
	}
	return b
}

// itemDirOf returns the number of the directory holding the item
// numbered num.
func (t *tree) itemDirOf(num int64) int64 {
	return min(num/max(t.perDir, 1), t.count-1)
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

// itemOf returns the number of the i-th item of a tree, as mdtest
// numbers it, and the directory holding it.
func (t *tree) itemOf(i int64) (num, dir int64) {
	num = t.first + i
	return num, t.itemDirOf(num)
}

// appendName appends to b the name of the item numbered num, of kind
// "file" or "dir" and owner who (ownerName), as mdtest names it:
// /file.mdtest.<rank>.<num>, or /file.mdtest.shared.<num> for the items
// all ranks share; its directory's path goes before it (appendDir).
func appendName(b []byte, kind, who string, num int64) []byte {
	b = append(b, '/')
	b = append(b, kind...)
	b = append(b, ".mdtest."...)
	b = append(b, who...)
	b = append(b, '.')
	return strconv.AppendInt(b, num, 10)
}
