package layout_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/ior/layout"
)

func TestNaming(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		n       layout.Naming
		rank    int
		rep     int
		want    string
		wantDir string
	}{
		{"shared", layout.Naming{Base: "testFile"}, 3, 0, "testFile", ""},
		{"shared -m", layout.Naming{Base: "testFile", MultiFile: true}, 3, 2, "testFile.2", ""},
		{"shared ignores -u", layout.Naming{Base: "d/f", UniqueDir: true}, 5, 0, "d/f", ""},
		{"shared @ uses the first name", layout.Naming{Base: "/a/f@/b/f"}, 1, 0, "/a/f", ""},
		{"-F", layout.Naming{Base: "ior_fpp", FilePerProc: true}, 1, 0, "ior_fpp.00000001", ""},
		{"-F path", layout.Naming{Base: "/tmp/x/ior_fpp", FilePerProc: true}, 0, 7, "/tmp/x/ior_fpp.00000000", ""},
		{"-F -m", layout.Naming{Base: "/tmp/f", FilePerProc: true, MultiFile: true}, 12, 3, "/tmp/f.00000012.3", ""},
		{"-F wide rank", layout.Naming{Base: "f", FilePerProc: true}, 123456789, 0, "f.123456789", ""},
		{"-F -u", layout.Naming{Base: "/scratch/d/f", FilePerProc: true, UniqueDir: true}, 5, 0, "/scratch/d/5/f.00000005", "/scratch/d/5"},
		// IOR turns "testFile" into "t5/estFile.00000005" here.
		{"-F -u bare name", layout.Naming{Base: "testFile", FilePerProc: true, UniqueDir: true}, 5, 0, "5/testFile.00000005", "5"},
		{"-F -u at the root", layout.Naming{Base: "/f", FilePerProc: true, UniqueDir: true}, 10, 0, "/10/f.00000010", "/10"},
		{"-F -u -m", layout.Naming{Base: "d/f", FilePerProc: true, UniqueDir: true, MultiFile: true}, 2, 1, "d/2/f.00000002.1", "d/2"},
		{"-F @ rank 0", layout.Naming{Base: "/a/f@/b/g", FilePerProc: true}, 0, 0, "/a/f.00000000", ""},
		{"-F @ rank 1", layout.Naming{Base: "/a/f@/b/g", FilePerProc: true}, 1, 0, "/b/g.00000001", ""},
		{"-F @ rank 2 wraps", layout.Naming{Base: "/a/f@/b/g", FilePerProc: true}, 2, 0, "/a/f.00000002", ""},
	} {
		if err := tc.n.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", tc.name, err)
		}
		if got := tc.n.Name(tc.rank, tc.rep); got != tc.want {
			t.Errorf("%s: Name(%d, %d) = %q, want %q", tc.name, tc.rank, tc.rep, got, tc.want)
		}
		if got := tc.n.Dir(tc.rank); got != tc.wantDir {
			t.Errorf("%s: Dir(%d) = %q, want %q", tc.name, tc.rank, got, tc.wantDir)
		}
	}
}

func TestNamingValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    layout.Naming
		want string
	}{
		{layout.Naming{}, "empty file name"},
		{layout.Naming{Base: "a@@b", FilePerProc: true}, "file name 2 of 3 is empty"},
		{layout.Naming{Base: "a@"}, "file name 2 of 2 is empty"},
		{layout.Naming{Base: "a@b", FilePerProc: true, UniqueDir: true}, "cannot use multiple file names with unique directories"},
	} {
		err := tc.n.Validate()
		if !errors.Is(err, layout.ErrInvalid) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "-o") {
			t.Errorf("Validate(%+v) = %v, want ErrInvalid naming -o and %q", tc.n, err, tc.want)
		}
	}
}

// TestNameFollowsPretendRank: with -C, a reader opens the file of the rank
// it pretends to be.
func TestNameFollowsPretendRank(t *testing.T) {
	t.Parallel()
	n := layout.Naming{Base: "/d/fc", FilePerProc: true, UniqueDir: true}
	r := layout.Reorder{Mode: layout.Constant, Q: 1}
	top := layout.Topology{NumTasks: 4, Nodes: 1, TasksOnNode0: 4, BySlot: true}
	for rank, want := range []string{"/d/1/fc.00000001", "/d/2/fc.00000002", "/d/3/fc.00000003", "/d/0/fc.00000000"} {
		p, err := r.PretendRank(rank, top, layout.Read, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Name(p, 0); got != want {
			t.Errorf("rank %d reads %q, want %q", rank, got, want)
		}
		if w, err := r.PretendRank(rank, top, layout.Write, 0); err != nil || n.Name(w, 0) == want {
			t.Errorf("rank %d writes %q, the file it reads", rank, n.Name(w, 0))
		}
	}
}
