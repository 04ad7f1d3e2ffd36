package config

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestTreeDirs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		z, b int
		want int64
		ok   bool
	}{
		{0, 1, 1, true},
		{0, 5, 1, true},
		{1, 1, 2, true}, // b = 1: z+1
		{10, 1, 11, true},
		{1, 2, 3, true}, // (2^2-1)/(2-1)
		{2, 2, 7, true}, // (2^3-1)/1
		{3, 2, 15, true},
		{2, 3, 13, true}, // (3^3-1)/2
		{3, 10, 1111, true},
		{-1, 3, 1, true}, // negative depth counts as 0 (Validate rejects it)
		{62, 2, math.MaxInt64, true},
		{63, 2, 0, false},
		{40, 10, 0, false},
	}
	for _, tt := range tests {
		got, ok := treeDirs(tt.z, tt.b)
		if got != tt.want || ok != tt.ok {
			t.Errorf("treeDirs(%d, %d) = %d, %v; want %d, %v", tt.z, tt.b, got, ok, tt.want, tt.ok)
		}
	}
}

// parseLayout parses "-n … -z …" and returns its Layout.
func parseLayout(t *testing.T, args string) (*Options, Layout) {
	t.Helper()
	o, err := Parse(strings.Fields(args), testRegistry(t))
	if err != nil {
		t.Fatalf("Parse(%q): %v", args, err)
	}
	return o, o.Layout()
}

func TestLayout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args string
		want Layout
	}{
		// -n alone: a flat tree, all items in mdtest_tree.0
		{"-n 100", Layout{TreeDirs: 1, Leaves: 1, ItemDirs: 1, ItemsPerDir: 100, DirLoops: 1, ItemsPerRank: 100}},
		// -n over a tree: n / dirs per directory, the remainder dropped
		{"-n 100 -z 1 -b 3", Layout{TreeDirs: 4, Leaves: 3, ItemDirs: 4, ItemsPerDir: 25, DirLoops: 1, ItemsPerRank: 100}},
		{"-n 10 -z 1 -b 2", Layout{TreeDirs: 3, Leaves: 2, ItemDirs: 3, ItemsPerDir: 3, DirLoops: 1, ItemsPerRank: 9}},
		{"-n 10 -z 3", Layout{TreeDirs: 4, Leaves: 1, ItemDirs: 4, ItemsPerDir: 2, DirLoops: 1, ItemsPerRank: 8}},
		// -n with -L: n / b^z per leaf (b = 1: all of n in the one leaf)
		{"-n 10 -z 2 -b 2 -L", Layout{TreeDirs: 7, Leaves: 4, ItemDirs: 4, ItemsPerDir: 2, DirLoops: 1, ItemsPerRank: 8}},
		{"-n 10 -z 3 -b 1 -L", Layout{TreeDirs: 4, Leaves: 1, ItemDirs: 1, ItemsPerDir: 10, DirLoops: 1, ItemsPerRank: 10}},
		{"-n 10 -L", Layout{TreeDirs: 1, Leaves: 1, ItemDirs: 1, ItemsPerDir: 10, DirLoops: 1, ItemsPerRank: 10}},
		// -I alone: I × dirs (or I × leaves with -L)
		{"-I 10", Layout{TreeDirs: 1, Leaves: 1, ItemDirs: 1, ItemsPerDir: 10, DirLoops: 1, ItemsPerRank: 10}},
		{"-I 10 -z 2 -b 2", Layout{TreeDirs: 7, Leaves: 4, ItemDirs: 7, ItemsPerDir: 10, DirLoops: 1, ItemsPerRank: 70}},
		{"-I 10 -z 2 -b 2 -L", Layout{TreeDirs: 7, Leaves: 4, ItemDirs: 4, ItemsPerDir: 10, DirLoops: 1, ItemsPerRank: 40}},
		{"-I 5 -z 2 -b 3 -u", Layout{TreeDirs: 13, Leaves: 9, ItemDirs: 13, ItemsPerDir: 5, DirLoops: 1, ItemsPerRank: 65}},
		// -n with -I: n/I test directories, each a tree of I per directory
		{"-n 30 -I 10", Layout{TreeDirs: 1, Leaves: 1, ItemDirs: 1, ItemsPerDir: 10, DirLoops: 3, ItemsPerRank: 30}},
		{"-n 30 -I 10 -z 1 -b 2", Layout{TreeDirs: 3, Leaves: 2, ItemDirs: 3, ItemsPerDir: 10, DirLoops: 3, ItemsPerRank: 90}},
		{"-n 30 -I 10 -z 1 -b 2 -L", Layout{TreeDirs: 3, Leaves: 2, ItemDirs: 2, ItemsPerDir: 10, DirLoops: 3, ItemsPerRank: 60}},
		{"-n 10 -I 10", Layout{TreeDirs: 1, Leaves: 1, ItemDirs: 1, ItemsPerDir: 10, DirLoops: 1, ItemsPerRank: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			_, got := parseLayout(t, tt.args)
			if got != tt.want {
				t.Errorf("Layout(%s) = %+v, want %+v", tt.args, got, tt.want)
			}
			if got.ItemsPerRank != got.DirLoops*got.ItemDirs*got.ItemsPerDir {
				t.Errorf("Layout(%s): ItemsPerRank %d != DirLoops × ItemDirs × ItemsPerDir", tt.args, got.ItemsPerRank)
			}
		})
	}
}

func TestLayoutSaturates(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.Depth, o.Branch, o.ItemsPerDir = 70, 2, 1
	l := o.Layout()
	if l.TreeDirs != math.MaxInt64 || l.Leaves != math.MaxInt64 || l.ItemsPerRank != math.MaxInt64 {
		t.Errorf("overflowing tree: %+v, want saturated counts", l)
	}
	o = DefaultOptions() // nothing set: zero items, no division by zero
	if l := o.Layout(); l.ItemsPerRank != 0 || l.ItemsPerDir != 0 || l.TreeDirs != 1 {
		t.Errorf("empty options: %+v", l)
	}
	o.Items, o.Depth, o.Branch = -5, -2, -3 // invalid values do not panic
	_ = o.Layout()
}

func TestTotalItems(t *testing.T) {
	t.Parallel()
	o, _ := parseLayout(t, "-n 30 -I 10 -z 1 -b 2")
	if got := o.TotalItems(4); got != 360 {
		t.Errorf("TotalItems(4) = %d, want 360", got)
	}
	if got := o.TotalItems(0); got != 0 {
		t.Errorf("TotalItems(0) = %d, want 0", got)
	}
	o.ItemsPerDir, o.Items = math.MaxInt64/2, 0
	if got := o.TotalItems(4); got != math.MaxInt64 {
		t.Errorf("TotalItems saturates: %d", got)
	}
}

func TestPhases(t *testing.T) {
	t.Parallel()
	all := []Phase{TreeCreate, DirCreate, DirStat, DirRead, DirRename, DirRemove,
		FileCreate, FileStat, FileRead, FileRemove, TreeRemove}
	tests := []struct {
		args string
		want []Phase
	}{
		{"-n 10", all},
		{"-n 10 -F", []Phase{TreeCreate, FileCreate, FileStat, FileRead, FileRemove, TreeRemove}},
		{"-n 10 -D", []Phase{TreeCreate, DirCreate, DirStat, DirRead, DirRename, DirRemove, TreeRemove}},
		{"-n 10 -F -D", all},
		{"-n 10 -S", []Phase{TreeCreate, FileCreate, FileStat, FileRead, FileRemove, TreeRemove}},
		{"-n 10 -C", []Phase{TreeCreate, DirCreate, FileCreate}},
		{"-n 10 -C -T -r", []Phase{TreeCreate, DirCreate, DirStat, DirRemove, FileCreate, FileStat, FileRemove, TreeRemove}},
		{"-n 10 -T", []Phase{DirStat, FileStat}},
		{"-n 10 -E", []Phase{DirRead, FileRead}},
		{"-n 10 -r", []Phase{DirRemove, FileRemove, TreeRemove}},
		{"-n 10 -U", []Phase{DirRename}},
		{"-n 10 -C -U", []Phase{TreeCreate, DirCreate, DirRename, FileCreate}},
		{"-n 1", []Phase{TreeCreate, DirCreate, DirStat, DirRead, DirRemove, // one item: no rename
			FileCreate, FileStat, FileRead, FileRemove, TreeRemove}},
		{"-n 1 -I 1 -z 1 -b 2", []Phase{TreeCreate, DirCreate, DirStat, DirRead, DirRemove, // mdtest's o.items is -n
			FileCreate, FileStat, FileRead, FileRemove, TreeRemove}},
		{"-I 1 -z 1 -b 2", all}, // 3 items: rename
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			o, _ := parseLayout(t, tt.args)
			if got := o.Phases(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Phases(%s) = %v, want %v", tt.args, got, tt.want)
			}
		})
	}
}

func TestPhaseString(t *testing.T) {
	t.Parallel()
	want := []string{"Directory creation", "Directory stat", "Directory read", "Directory rename", "Directory removal",
		"File creation", "File stat", "File read", "File removal", "Tree creation", "Tree removal"}
	if NumPhases != len(want) {
		t.Fatalf("NumPhases = %d, want %d", NumPhases, len(want))
	}
	for p := range Phase(NumPhases) {
		if got := p.String(); got != want[p] {
			t.Errorf("Phase(%d) = %q, want %q", int(p), got, want[p])
		}
	}
	if got := Phase(-1).String(); got != "Phase(-1)" {
		t.Errorf("Phase(-1) = %q", got)
	}
	if got := Phase(NumPhases).String(); got != "Phase(11)" {
		t.Errorf("Phase(11) = %q", got)
	}
}
