package mdtest

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/mdtest/config"
)

// cStatPath is the path mdtest's mdtest_stat derives for the item at
// place i (i of items_per_dir × num_dirs_in_tree, in creation order) of
// rank owner, written after its C: the test directory of directory loop
// i / (perDir × dirs), the tree's root (mdtest_tree.0, or
// mdtest_tree.<owner>.0 with -u), then the item's name
// <kind>.mdtest.<owner>.<item_num>, with item_num shifted by the
// directories above the leaves with -L, prefixed by its parent directory
// and that one's parents up the tree (the parent_dir walk), each named
// base_tree_name.<n>, base_tree_name being mdtest_tree.<owner> with -u.
// It is the oracle for the runner's own derivation; C's -u names the
// subdirectories after the rank doing the stat, which is the owner but
// with -N, where the owner's are meant.
func cStatPath(dir string, iter int, unique bool, owner string, kind string, branch, depth int, leafOnly bool, perDir, i int64) string {
	dirs := int64(depth + 1)
	if branch > 1 {
		dirs = (int64(math.Pow(float64(branch), float64(depth+1))) - 1) / int64(branch-1)
	}
	perTree := perDir * dirs
	if leafOnly {
		perTree = perDir * int64(math.Pow(float64(branch), float64(depth)))
	}
	testdir := fmt.Sprintf("%s/test-dir.%d-%d", dir, iter, i/perTree)
	baseTree := "mdtest_tree"
	if unique {
		baseTree = "mdtest_tree." + owner
	}
	path := testdir + "/" + baseTree + ".0"
	itemNum := i % perTree
	if leafOnly {
		itemNum += perDir * (dirs - int64(math.Pow(float64(branch), float64(depth))))
	}
	item := fmt.Sprintf("%s.mdtest.%s.%d", kind, owner, itemNum)
	parent := itemNum / perDir
	if parent > 0 {
		item = fmt.Sprintf("%s.%d/%s", baseTree, parent, item)
		for parent > int64(branch) {
			parent = (parent - 1) / int64(branch)
			item = fmt.Sprintf("%s.%d/%s", baseTree, parent, item)
		}
	}
	return path + "/" + item
}

// TestItemPathsAsMdtest derives item paths for several layouts, ranks and
// phases and checks each against mdtest's (cStatPath), and a few against
// the literal path: the tree (-z, -b), leaves only (-L), unique trees
// (-u), the stride (-N), the test directories of -n with -I, the shared
// file (-S), directories and their rename.
func TestItemPathsAsMdtest(t *testing.T) {
	for _, c := range []struct {
		args        string
		rank, size  int
		phase       string
		owner       string // whose items the phase works on, as named
		places      []int64
		literal     map[int64]string // place: the whole path
		renamedDirs bool
	}{
		{args: "-n 26 -z 2 -b 3", rank: 0, size: 1, phase: phFileStat, owner: "0", places: []int64{0, 1, 2, 5, 7, 25},
			literal: map[int64]string{
				0:  "/d/test-dir.0-0/mdtest_tree.0/file.mdtest.0.0",
				7:  "/d/test-dir.0-0/mdtest_tree.0/mdtest_tree.3/file.mdtest.0.7",
				25: "/d/test-dir.0-0/mdtest_tree.0/mdtest_tree.3/mdtest_tree.12/file.mdtest.0.25",
			}},
		{args: "-n 18 -z 2 -b 3 -L", rank: 1, size: 2, phase: phFileCreate, owner: "1", places: []int64{0, 1, 2, 17},
			literal: map[int64]string{
				0:  "/d/test-dir.0-0/mdtest_tree.0/mdtest_tree.1/mdtest_tree.4/file.mdtest.1.8",
				17: "/d/test-dir.0-0/mdtest_tree.0/mdtest_tree.3/mdtest_tree.12/file.mdtest.1.25",
			}},
		{args: "-n 40 -z 3 -b 1", rank: 0, size: 1, phase: phDirStat, owner: "0", places: []int64{0, 9, 10, 39},
			literal: map[int64]string{
				39: "/d/test-dir.0-0/mdtest_tree.0/mdtest_tree.1/mdtest_tree.2/mdtest_tree.3/dir.mdtest.0.39",
			}},
		{args: "-n 15 -z 1 -b 2 -u", rank: 2, size: 3, phase: phFileStat, owner: "2", places: []int64{0, 4, 5, 14},
			literal: map[int64]string{
				14: "/d/test-dir.0-0/mdtest_tree.2.0/mdtest_tree.2.2/file.mdtest.2.14",
			}},
		{args: "-n 15 -z 1 -b 2 -u -N 1", rank: 2, size: 3, phase: phFileStat, owner: "0", places: []int64{0, 4, 5, 14},
			literal: map[int64]string{
				5: "/d/test-dir.0-0/mdtest_tree.0.0/mdtest_tree.0.1/file.mdtest.0.5",
			}},
		{args: "-n 30 -N 2", rank: 0, size: 4, phase: phFileRead, owner: "2", places: []int64{0, 29}},
		{args: "-n 30 -N 2", rank: 3, size: 4, phase: phFileCreate, owner: "3", places: []int64{0, 29}},
		{args: "-n 6 -I 2 -z 1 -b 2", rank: 1, size: 2, phase: phFileRemove, owner: "1", places: []int64{0, 5, 6, 11, 17},
			literal: map[int64]string{
				11: "/d/test-dir.0-1/mdtest_tree.0/mdtest_tree.2/file.mdtest.1.5",
				17: "/d/test-dir.0-2/mdtest_tree.0/mdtest_tree.2/file.mdtest.1.5",
			}},
		{args: "-n 20 -S -F", rank: 1, size: 2, phase: phFileStat, owner: "shared", places: []int64{0, 19}},
		{args: "-n 8 -z 1 -b 3 -D", rank: 0, size: 1, phase: phDirRemove, owner: "0", places: []int64{0, 7}, renamedDirs: true},
	} {
		t.Run(c.args+"/"+c.phase, func(t *testing.T) {
			o, err := config.Parse(append(strings.Fields(c.args), "-d", "/d"), testRegistry(t))
			if err != nil {
				t.Fatal(err)
			}
			l := o.Layout()
			r := &runner{o: o, rank: c.rank, size: c.size, layout: l, items: l.ItemsPerRank, renamed: c.renamedDirs, pb: newPathBuf(false)}
			owner := r.rank
			if c.phase != phFileCreate && c.phase != phDirCreate {
				owner = r.target()
			}
			s := r.phaseItems(c.phase, owner)
			kind, suffix := "file", ""
			if strings.HasPrefix(c.phase, "Directory") {
				kind = "dir"
				if c.renamedDirs {
					suffix = renameSuffix
				}
			}
			for _, i := range c.places {
				got := r.path(&s, i)
				want := cStatPath("/d", 0, o.UniqueDir, c.owner, kind, o.Branch, o.Depth, o.LeafOnly, l.ItemsPerDir, i) + suffix
				if got != want {
					t.Errorf("place %d: %s; mdtest's is %s", i, got, want)
				}
				if lit, ok := c.literal[i]; ok && got != lit {
					t.Errorf("place %d: %s; want %s", i, got, lit)
				}
			}
		})
	}
}

// TestTreeDirs checks the directories of a tree, numbered breadth first,
// against the paths its parents give them (directory k's parent is
// (k-1)/b), for several shapes, with and without -u.
func TestTreeDirs(t *testing.T) {
	for _, c := range []struct {
		depth, branch int
		owner         int
		dirs          int
	}{{0, 1, -1, 1}, {3, 1, -1, 4}, {2, 2, -1, 7}, {3, 3, 4, 40}, {1, 10, -1, 11}, {4, 2, 1, 31}} {
		o := &config.Options{Depth: c.depth, Branch: c.branch, ItemsPerDir: 1}
		tr := newTree("/d", 2, c.owner, o, o.Layout())
		prefix := "mdtest_tree."
		if c.owner >= 0 {
			prefix = fmt.Sprintf("mdtest_tree.%d.", c.owner)
		}
		paths := []string{"/d/test-dir.2-1/" + prefix + "0"}
		for k := int64(1); k < tr.count; k++ {
			paths = append(paths, fmt.Sprintf("%s/%s%d", paths[(k-1)/int64(c.branch)], prefix, k))
		}
		if len(paths) != c.dirs {
			t.Fatalf("-z %d -b %d: %d directories, want %d", c.depth, c.branch, len(paths), c.dirs)
		}
		for k, want := range paths {
			if got := string(tr.appendDir(nil, 1, int64(k))); got != want {
				t.Errorf("-z %d -b %d: directory %d is %s, want %s", c.depth, c.branch, k, got, want)
			}
		}
	}
}
