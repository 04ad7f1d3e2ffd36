package config

import (
	"fmt"
	"math"
)

// Layout is how many directories and items one rank works on in one
// iteration, derived from -n, -I, -z, -b, -L and -u as mdtest_run derives
// num_dirs_in_tree, items_per_dir, items and directory_loops.
type Layout struct {
	// TreeDirs is the number of directories of one tree: (b^(z+1)-1)/(b-1),
	// or z+1 when b is 1.
	TreeDirs int64
	// Leaves is the number of directories of the deepest level: b^z.
	Leaves int64
	// ItemDirs is the number of directories that hold items: Leaves with
	// -L, else TreeDirs.
	ItemDirs int64
	// ItemsPerDir is the number of items of each kind in each item
	// directory: -I, or -n / ItemDirs (rounded down) without -I.
	ItemsPerDir int64
	// DirLoops is the number of test directories per iteration
	// (<dir>/test-dir.<iter>-<loop>), each holding its own tree: -n / -I
	// when both are given (never with -u), else 1.
	DirLoops int64
	// ItemsPerRank is the number of items of each kind (files, and
	// directories) one rank creates per iteration:
	// DirLoops × ItemDirs × ItemsPerDir.
	ItemsPerRank int64
}

// Layout derives the tree and item counts from the options. The rules are
// mdtest_run's:
//
//   - -I only: ItemsPerDir = I; items = I × ItemDirs.
//   - -n only: ItemsPerDir = n / ItemDirs, rounded down; items =
//     ItemsPerDir × ItemDirs, so mdtest silently drops the remainder
//     (Warnings reports it; Validate rejects n < ItemDirs, which would
//     leave no item at all).
//   - -n and -I (not with -u): DirLoops = n / I test directories, each a
//     tree with I items per item directory; items = n × ItemDirs.
//
// Counts that overflow int64 saturate at math.MaxInt64 (Validate rejects
// them).
func (o *Options) Layout() Layout {
	dirs, ok := treeDirs(o.Depth, o.Branch)
	if !ok {
		dirs = math.MaxInt64
	}
	leaves, ok := power(int64(max(o.Branch, 1)), max(o.Depth, 0))
	if !ok {
		leaves = math.MaxInt64
	}
	l := Layout{TreeDirs: dirs, Leaves: leaves, ItemDirs: dirs, DirLoops: 1}
	if o.LeafOnly {
		l.ItemDirs = leaves
	}
	n, per := max(o.Items, 0), max(o.ItemsPerDir, 0)
	switch {
	case per > 0 && n > 0 && !o.UniqueDir:
		l.ItemsPerDir, l.DirLoops = per, n/per
		l.ItemsPerRank = mulSat(n-n%per, l.ItemDirs)
	case per > 0:
		l.ItemsPerDir = per
		l.ItemsPerRank = mulSat(per, l.ItemDirs)
	default:
		l.ItemsPerDir = n / l.ItemDirs
		l.ItemsPerRank = l.ItemsPerDir * l.ItemDirs
	}
	return l
}

// TotalItems returns the items of each kind all ranks create per
// iteration: ItemsPerRank × ranks, saturating at math.MaxInt64. mdtest's
// header ("N tasks, X files") prints ranks × -n × TreeDirs when -n and -I
// are both given, which overcounts with -L, and "1 file" with -S.
func (o *Options) TotalItems(ranks int) int64 {
	return mulSat(o.Layout().ItemsPerRank, int64(ranks))
}

// treeDirs returns the number of directories of a tree of depth z and
// branching factor b, (b^(z+1)-1)/(b-1) or z+1 for b = 1, summed level by
// level; ok is false when it does not fit in an int64.
func treeDirs(z, b int) (n int64, ok bool) {
	if z < 0 {
		z = 0
	}
	if b <= 1 {
		return int64(z) + 1, true
	}
	level := int64(1)
	for i := 0; i <= z; i++ {
		if n > math.MaxInt64-level {
			return 0, false
		}
		n += level
		if i < z {
			if level > math.MaxInt64/int64(b) {
				return 0, false
			}
			level *= int64(b)
		}
	}
	return n, true
}

// power returns b^z for b >= 1; ok is false when it overflows.
func power(b int64, z int) (int64, bool) {
	p := int64(1)
	for range z {
		if b == 1 {
			break
		}
		if p > math.MaxInt64/b {
			return 0, false
		}
		p *= b
	}
	return p, true
}

// mulSat returns a×b for non-negative values, saturating at MaxInt64;
// negative inputs give 0.
func mulSat(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// Phase is one timed step of an iteration. The values are mdtest's
// mdtest_test_num_t, in its order: the rows of the SUMMARY table and the
// column pairs of the --saveRankPerformanceDetails CSV.
type Phase int

// The phases, in mdtest's table order.
const (
	DirCreate Phase = iota
	DirStat
	// DirRead is timed between barriers but does no operation; mdtest
	// never prints it in the SUMMARY table, only in the per-rank CSV.
	DirRead
	DirRename
	DirRemove
	FileCreate
	FileStat
	FileRead
	FileRemove
	// TreeCreate and TreeRemove are rank 0's: the tree's directories over
	// the elapsed time.
	TreeCreate
	TreeRemove
	// NumPhases counts the phases.
	NumPhases int = iota
)

var phaseNames = [...]string{
	"Directory creation", "Directory stat", "Directory read", "Directory rename", "Directory removal",
	"File creation", "File stat", "File read", "File removal", "Tree creation", "Tree removal",
}

// String returns mdtest's name of the phase, as in the SUMMARY table:
// "Directory creation", "File stat", "Tree removal" …
func (p Phase) String() string {
	if p < 0 || int(p) >= len(phaseNames) {
		return fmt.Sprintf("Phase(%d)", int(p))
	}
	return phaseNames[p]
}

// RunsDirectoryPhases reports whether the directory phases run: not with
// -S, and with -D or without -F.
func (o *Options) RunsDirectoryPhases() bool {
	return !o.SharedFile && (o.DirsOnly || !o.FilesOnly)
}

// RunsFilePhases reports whether the file phases run: with -F or without
// -D.
func (o *Options) RunsFilePhases() bool {
	return o.FilesOnly || !o.DirsOnly
}

// Phases returns the phases an iteration runs, in the order it runs them:
// tree creation (with -C), the directory phases (create, stat, read,
// rename, remove), the file phases (create, stat, read, remove), tree
// removal (with -r). The directory rename runs only when a rank has more
// than one item (mdtest's o.items > 1).
func (o *Options) Phases() []Phase {
	var ps []Phase
	add := func(on bool, p Phase) {
		if on {
			ps = append(ps, p)
		}
	}
	add(o.Create, TreeCreate)
	if o.RunsDirectoryPhases() {
		add(o.Create, DirCreate)
		add(o.Stat, DirStat)
		add(o.Read, DirRead)
		add(o.Rename && o.mdtestItems() > 1, DirRename)
		add(o.Remove, DirRemove)
	}
	if o.RunsFilePhases() {
		add(o.Create, FileCreate)
		add(o.Stat, FileStat)
		add(o.Read, FileRead)
		add(o.Remove, FileRemove)
	}
	add(o.Remove, TreeRemove)
	return ps
}

// mdtestItems is mdtest's o.items after mdtest_run's derivation: -n itself
// when -n and -I are both given without -u, else ItemsPerRank.
func (o *Options) mdtestItems() int64 {
	if o.Items > 0 && o.ItemsPerDir > 0 && !o.UniqueDir {
		return o.Items
	}
	return o.Layout().ItemsPerRank
}
