package posix

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
	"golang.org/x/sys/unix"
)

// TestItemMatchesFileCalls checks CreateItem and ReadItem against what
// Create, WriteAt, Open, ReadAt and Close do, with and without range
// locks.
func TestItemMatchesFileCalls(t *testing.T) {
	data := []byte("mdtest item data")
	tests := []struct {
		name    string
		opts    Options
		write   []byte
		readLen int
		wantN   int
		wantEOF bool
	}{
		{name: "write and read all", write: data, readLen: len(data), wantN: len(data)},
		{name: "read past the end", write: data, readLen: len(data) + 8, wantN: len(data), wantEOF: true},
		{name: "empty item", write: nil, readLen: 0, wantN: 0},
		{name: "empty item read", write: nil, readLen: 4, wantN: 0, wantEOF: true},
		{name: "range locks", opts: Options{RangeLocks: true}, write: data, readLen: len(data), wantN: len(data)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTestBackend(t, tt.opts)
			path := filepath.Join(t.TempDir(), "file.mdtest.0.0")
			if err := b.CreateItem(path, tt.write); err != nil {
				t.Fatalf("CreateItem: %v", err)
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, tt.write) {
				t.Fatalf("file holds %q, %v; want %q", got, err, tt.write)
			}
			fi, err := os.Stat(path)
			if err != nil || fi.Mode().Perm()&^0o664 != 0 {
				t.Errorf("mode %v, %v; want at most 0664, as Create's", fi.Mode(), err)
			}
			buf := make([]byte, tt.readLen)
			n, err := b.ReadItem(path, buf)
			if n != tt.wantN || (err == io.EOF) != tt.wantEOF || (err != nil && err != io.EOF) {
				t.Errorf("ReadItem = %d, %v; want %d, EOF %v", n, err, tt.wantN, tt.wantEOF)
			}
			if !bytes.Equal(buf[:n], tt.write[:n]) {
				t.Errorf("ReadItem read %q; want %q", buf[:n], tt.write[:n])
			}
			// CreateItem of an existing item rewrites it, as Create's open
			// without O_EXCL does.
			if err := b.CreateItem(path, tt.write); err != nil {
				t.Errorf("CreateItem of an existing item: %v", err)
			}
		})
	}
}

func TestItemErrors(t *testing.T) {
	b := newTestBackend(t, Options{})
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "file")
	err := b.CreateItem(missing, []byte("x"))
	if want := "posix: create " + missing + ": no such file or directory"; err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CreateItem(missing dir) = %v; want %q wrapping fs.ErrNotExist", err, want)
	}
	_, err = b.ReadItem(missing, make([]byte, 1))
	if want := "posix: open " + missing + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("ReadItem(missing) = %v; want %q", err, want)
	}
	// A directory opens read-only but does not read: the error is the
	// read's, and the descriptor is closed all the same.
	before := openFDs(t)
	_, err = b.ReadItem(dir, make([]byte, 1))
	if want := "posix: read " + dir + " at offset 0: is a directory"; err == nil || err.Error() != want || !errors.Is(err, unix.EISDIR) {
		t.Errorf("ReadItem(dir) = %v; want %q wrapping EISDIR", err, want)
	}
	err = b.CreateItem(dir, []byte("x"))
	if !errors.Is(err, unix.EISDIR) {
		t.Errorf("CreateItem(dir) = %v; want an error wrapping EISDIR", err)
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open after the failed calls; %d before", after, before)
	}
	if err := b.CreateItem("a\x00b", nil); !errors.Is(err, unix.EINVAL) {
		t.Errorf("CreateItem(path with NUL) = %v; want EINVAL", err)
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("counting descriptors: %v", err)
	}
	return len(ents)
}

// TestItemNoAllocs pins mdtest's create and read of an item: nothing
// allocated on success.
func TestItemNoAllocs(t *testing.T) {
	b := newTestBackend(t, Options{})
	path := filepath.Join(t.TempDir(), "f")
	data := aiori.AlignedBuffer(4096)
	allocs := testing.AllocsPerRun(100, func() {
		if err := b.CreateItem(path, data); err != nil {
			t.Fatal(err)
		}
		if _, err := b.ReadItem(path, data); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("CreateItem and ReadItem allocate %v times; want 0", allocs)
	}
}
