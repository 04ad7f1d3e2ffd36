package ior

import "testing"

func TestDualMountBase(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file string
		node int
		want string
	}{
		{"/mnt/fs", 0, "/mnt/fs0/data"},
		{"/mnt/fs", 1, "/mnt/fs1/data"},
		{"/a/f@/b/f", 1, "/a/f@/b/f1/data"}, // as IOR: before the @ names are split
	} {
		if got := dualMountBase(tt.file, tt.node); got != tt.want {
			t.Errorf("dualMountBase(%q, %d) = %q, want %q", tt.file, tt.node, got, tt.want)
		}
	}
	if n := numaNode(); n < 0 {
		t.Errorf("numaNode() = %d", n)
	}
}
