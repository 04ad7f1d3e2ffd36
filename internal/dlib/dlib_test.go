package dlib

import (
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	for _, tc := range []struct {
		names    []string
		wantPath string
		wantErr  []string
	}{
		{[]string{"libc.so.6"}, "libc.so.6", nil},
		{[]string{"libhpcbench-none.so.9", "libc.so.6"}, "libc.so.6", nil},
		{[]string{"libhpcbench-none.so.9", "libhpcbench-none.so"}, "", []string{"tried libhpcbench-none.so.9, libhpcbench-none.so: ", "libhpcbench-none.so.9", "; "}},
	} {
		h, path, err := Open(tc.names)
		if tc.wantErr == nil {
			if err != nil || h == 0 || path != tc.wantPath {
				t.Errorf("Open(%v) = %#x, %q, %v; want %s", tc.names, h, path, err, tc.wantPath)
			}
			continue
		}
		if err == nil {
			t.Errorf("Open(%v) = %#x, %q: want an error", tc.names, h, path)
			continue
		}
		for _, w := range tc.wantErr {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Open(%v): %v; want it to contain %q", tc.names, err, w)
			}
		}
	}
}
