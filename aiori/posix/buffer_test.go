package posix

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/hpcbench/hpcbench/aiori"
)

// TestAllocBuffer: which transfer buffers go in huge pages, that the run
// record says so when they do, and that a huge-page buffer does O_DIRECT
// I/O that reads back.
func TestAllocBuffer(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		n    int
		huge bool
	}{
		{"buffered 1 MiB", Options{}, 1 << 20, false},
		{"direct 1 MiB", Options{ODirect: true}, 1 << 20, true},
		{"direct at the threshold", Options{ODirect: true}, aiori.HugeBufferMin, true},
		{"direct 4 KiB", Options{ODirect: true}, 4096, false},
		{"direct 1 MiB, --posix.basepages", Options{ODirect: true, BasePages: true}, 1 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newTestBackend(t, tc.opts)
			buf := b.AllocBuffer(tc.n)
			defer b.FreeBuffer(buf)
			if len(buf) != tc.n {
				t.Fatalf("len %d, want %d", len(buf), tc.n)
			}
			addr := uintptr(unsafe.Pointer(&buf[0]))
			if addr%aiori.Align != 0 {
				t.Errorf("buffer at %#x is not %d-byte aligned", addr, aiori.Align)
			}
			if got := addr%aiori.HugePage == 0 && b.Describe() != nil; got != tc.huge {
				t.Errorf("in huge pages (2 MiB-aligned, described) = %v, want %v; Describe() = %v", got, tc.huge, b.Describe())
			}
			if !tc.opts.ODirect {
				return
			}
			// The buffer does O_DIRECT I/O.
			dir := t.TempDir()
			path := filepath.Join(dir, "f")
			f, err := b.Create(path, aiori.WriteOnly)
			if err != nil {
				t.Skipf("O_DIRECT here: %v", err) // tmpfs refuses it
			}
			for i := range buf {
				buf[i] = byte(i * 7)
			}
			if _, err := f.WriteAt(buf, 0); err != nil {
				t.Fatal(err)
			}
			f.Close()
			got, err := os.ReadFile(path)
			if err != nil || len(got) != tc.n || got[tc.n-1] != buf[tc.n-1] || got[tc.n/2] != buf[tc.n/2] {
				t.Errorf("read back %d bytes, %v; want what was written", len(got), err)
			}
		})
	}
}
