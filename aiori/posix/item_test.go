package posix

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	err = b.StatItem(missing)
	if want := "posix: stat " + missing + ": no such file or directory"; err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("StatItem(missing) = %v; want %q wrapping fs.ErrNotExist", err, want)
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
		if err := b.StatItem(path); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("CreateItem, ReadItem and StatItem allocate %v times; want 0", allocs)
	}
}

// TestItemHints checks that the items' copy of SingleXferAttempt follows
// SetHints, as the Files' does.
func TestItemHints(t *testing.T) {
	b := newTestBackend(t, Options{})
	for _, single := range []bool{true, false, true} {
		b.SetHints(aiori.Hints{SingleXferAttempt: single, Rank: 2})
		f, err := b.openItem("create", filepath.Join(t.TempDir(), "f"), aiori.WriteOnly|aiori.Create)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.closeItem(); err != nil {
			t.Fatal(err)
		}
		if f.single != single || b.Hints().Rank != 2 || b.Hints().SingleXferAttempt != single {
			t.Errorf("after SetHints(SingleXferAttempt %v): item single %v, Hints %+v", single, f.single, b.Hints())
		}
	}
}

// TestPathLengths runs the metadata calls on paths on either side of the
// lengths where cpath changes buffers (its stack array, its locked
// buffers), in every combination for rename, and checks that nothing is
// allocated; a path of maxPath bytes or more goes through x/sys/unix, and
// the kernel refuses it.
func TestPathLengths(t *testing.T) {
	b := newTestBackend(t, Options{})
	root := t.TempDir()
	// pathOf returns a path of exactly n bytes under root, making its
	// parent directories.
	pathOf := func(t *testing.T, n int, tag string) string {
		t.Helper()
		dir := root
		for len(dir)+1+200 < n-len(tag)-1 {
			dir += "/" + strings.Repeat("d", 200)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		name := tag + strings.Repeat("f", n-len(dir)-1-len(tag))
		return dir + "/" + name
	}
	lengths := []int{shortPath - 2, shortPath - 1, shortPath, 300, maxPath - 1}
	for _, n := range lengths {
		for _, m := range lengths {
			t.Run(fmt.Sprintf("%d-to-%d", n, m), func(t *testing.T) {
				from, to := pathOf(t, n, "a"), pathOf(t, m, "b")
				if len(from) != n || len(to) != m {
					t.Fatalf("made paths of %d and %d bytes; want %d and %d", len(from), len(to), n, m)
				}
				if err := b.CreateItem(from, []byte("x")); err != nil {
					t.Fatal(err)
				}
				if _, err := b.Stat(from); err != nil {
					t.Fatal(err)
				}
				if err := b.Rename(from, to); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(to); err != nil {
					t.Fatalf("after Rename: %v", err)
				}
				if err := b.Remove(to); err != nil {
					t.Fatal(err)
				}
				if err := b.Mkdir(from, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := b.Rmdir(from); err != nil {
					t.Fatal(err)
				}
				allocs := testing.AllocsPerRun(20, func() {
					if err := b.Mknod(from); err != nil {
						t.Fatal(err)
					}
					if _, err := b.Stat(from); err != nil {
						t.Fatal(err)
					}
					if err := b.Rename(from, to); err != nil {
						t.Fatal(err)
					}
					if err := b.Remove(to); err != nil {
						t.Fatal(err)
					}
				})
				if allocs != 0 {
					t.Errorf("mknod, stat, rename, unlink allocate %v times; want 0", allocs)
				}
			})
		}
	}
	long := root + "/" + strings.Repeat("d/", maxPath/2)
	if err := b.Mkdir(long, 0o755); !errors.Is(err, unix.ENAMETOOLONG) {
		t.Errorf("Mkdir(%d-byte path) = %v; want ENAMETOOLONG", len(long), err)
	}
	if err := b.Rename(root+"/x", long); !errors.Is(err, unix.ENAMETOOLONG) {
		t.Errorf("Rename(short, %d-byte path) = %v; want ENAMETOOLONG", len(long), err)
	}
}
