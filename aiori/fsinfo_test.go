package aiori

import "testing"

// TestFigures: the FS line's four figures, as IOR prints them, for a
// file system with inodes, one without (an object store counting none),
// and the edges.
func TestFigures(t *testing.T) {
	for _, tc := range []struct {
		in                          FSInfo
		capacity, used, inodes, iUs string
	}{
		{FSInfo{TotalBytes: 252 << 30, FreeBytes: 233 << 30, TotalInodes: 16 << 20, FreeInodes: 15 << 20},
			"252.0 GiB", "7.5%", "16.0 Mi", "6.2%"},
		{FSInfo{TotalBytes: 1 << 30, FreeBytes: 1 << 30}, "1.0 GiB", "0.0%", "0.0 Mi", "0.0%"},
		{FSInfo{TotalBytes: 4 << 30, FreeBytes: 0, TotalInodes: 10, FreeInodes: 0}, "4.0 GiB", "100.0%", "0.0 Mi", "100.0%"},
		{FSInfo{}, "0.0 GiB", "0.0%", "0.0 Mi", "0.0%"},
		{FSInfo{TotalBytes: 1, FreeBytes: 2}, "0.0 GiB", "0.0%", "0.0 Mi", "0.0%"}, // more free than total: no negative share
	} {
		c, u, i, iu := tc.in.Figures()
		if c != tc.capacity || u != tc.used || i != tc.inodes || iu != tc.iUs {
			t.Errorf("%+v: %q %q %q %q, want %q %q %q %q", tc.in, c, u, i, iu, tc.capacity, tc.used, tc.inodes, tc.iUs)
		}
	}
}
