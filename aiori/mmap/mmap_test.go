package mmap

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
	"golang.org/x/sys/unix"
)

// newTestBackend returns an MMAP backend with opts.
func newTestBackend(t testing.TB, opts Options) *Backend {
	t.Helper()
	b, err := New(&opts, aiori.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return b.(*Backend)
}

func TestEntry(t *testing.T) {
	e := Entry()
	if e.Name != "MMAP" || e.Metadata {
		t.Errorf("Entry() = %q, Metadata %v; want MMAP, false", e.Name, e.Metadata)
	}
	b, err := e.New(e.NewOptions(), aiori.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.(aiori.Metadata); ok {
		t.Error("the MMAP backend implements aiori.Metadata; Entry says it does not")
	}
	if _, err := New(struct{ aiori.Options }{}, aiori.Env{}); err == nil || !strings.Contains(err.Error(), "want *mmap.Options") {
		t.Errorf("New(other options) = %v; want an error naming *mmap.Options", err)
	}
	if _, err := New(nil, aiori.Env{}); err != nil {
		t.Errorf("New(nil) = %v; want the defaults", err)
	}
}

func TestCreateSizesToHint(t *testing.T) {
	b := newTestBackend(t, Options{MadvPattern: true})
	b.SetHints(aiori.Hints{ExpectedFileSize: 1 << 20, RandomOffset: true})
	path := filepath.Join(t.TempDir(), "hinted")
	f, err := b.Create(path, aiori.WriteOnly)
	if err != nil {
		t.Fatal(err)
	}
	mf := f.(*File)
	if len(mf.m) != 1<<20 || mf.advice != unix.MADV_RANDOM {
		t.Errorf("after Create: mapping of %d bytes, advice %d; want %d, MADV_RANDOM", len(mf.m), mf.advice, 1<<20)
	}
	if _, err := f.WriteAt([]byte("hello"), 4096); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := b.FileSize(path); err != nil || got != 1<<20 {
		t.Errorf("FileSize = %d, %v; want %d (Hints.ExpectedFileSize), as IOR's ftruncate", got, err, 1<<20)
	}

	// A hint smaller than the file never shrinks it.
	b.SetHints(aiori.Hints{ExpectedFileSize: 100})
	if f, err = b.Create(path, aiori.ReadWrite); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got, _ := b.FileSize(path); got != 1<<20 {
		t.Errorf("FileSize after Create with a smaller hint = %d; want %d", got, 1<<20)
	}
}

func TestGrowthWithoutHints(t *testing.T) {
	b := newTestBackend(t, Options{})
	path := filepath.Join(t.TempDir(), "grow")
	f, err := b.Create(path, aiori.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mf := f.(*File)
	if mf.m != nil {
		t.Fatalf("an empty file is mapped (%d bytes); want no mapping", len(mf.m))
	}
	chunk := bytes.Repeat([]byte{0xA5}, 3000)
	var end int64
	for i := range 100 {
		off := int64(i * len(chunk))
		if n, err := f.WriteAt(chunk, off); n != len(chunk) || err != nil {
			t.Fatalf("WriteAt #%d = %d, %v", i, n, err)
		}
		end = off + int64(len(chunk))
		if st, err := os.Stat(path); err != nil || st.Size() != end {
			t.Fatalf("after WriteAt #%d the file has %d bytes (%v); want %d", i, st.Size(), err, end)
		}
	}
	if int64(len(mf.m)) < end || len(mf.m)%os.Getpagesize() != 0 {
		t.Errorf("mapping of %d bytes for a %d-byte file; want whole pages covering it", len(mf.m), end)
	}
	got := make([]byte, end)
	if n, err := f.ReadAt(got, 0); n != int(end) || err != nil {
		t.Fatalf("ReadAt(all) = %d, %v", n, err)
	}
	if !bytes.Equal(got, bytes.Repeat(chunk, 100)) {
		t.Error("data read back differs from data written")
	}
}

func TestReadSeesOtherWriters(t *testing.T) {
	b := newTestBackend(t, Options{})
	path := filepath.Join(t.TempDir(), "shared")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := b.Open(path, aiori.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 20)
	if n, err := f.ReadAt(buf, 0); n != 10 || err != io.EOF {
		t.Fatalf("ReadAt = %d, %v; want 10, io.EOF", n, err)
	}
	// Another writer extends the file past the mapping.
	more := bytes.Repeat([]byte("x"), 3*os.Getpagesize())
	if err := os.WriteFile(path, append([]byte("0123456789"), more...), 0o644); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 10+len(more))
	if n, err := f.ReadAt(big, 0); n != len(big) || err != nil {
		t.Fatalf("ReadAt after another writer extended the file = %d, %v; want %d, nil", n, err, len(big))
	}
	if n, err := f.WriteAt([]byte("no"), 0); n != 0 || !errors.Is(err, unix.EBADF) {
		t.Errorf("WriteAt on a ReadOnly file = %d, %v; want 0 and EBADF", n, err)
	}
}

// TestTruncatedBehindMapping checks that a file shortened behind the
// mapping, whose pages past the new end fault, causes neither a crash nor
// an error: the File learns the new size and carries on, as pwrite and
// pread would.
func TestTruncatedBehindMapping(t *testing.T) {
	b := newTestBackend(t, Options{})
	path := filepath.Join(t.TempDir(), "shrunk")
	f, err := b.Create(path, aiori.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page := os.Getpagesize()
	if _, err := f.WriteAt(make([]byte, 4*page), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	// The File still believes the file has 4 pages: the read faults,
	// then finds the file empty.
	if n, err := f.ReadAt(make([]byte, 100), int64(2*page)); n != 0 || err != io.EOF {
		t.Errorf("ReadAt past the new end = %d, %v; want 0, io.EOF", n, err)
	}
	if err := os.Truncate(path, int64(page)); err != nil {
		t.Fatal(err)
	}
	// The write faults too, then extends the file again.
	f.(*File).size = int64(4 * page)
	if n, err := f.WriteAt([]byte("back"), int64(2*page)); n != 4 || err != nil {
		t.Fatalf("WriteAt into a truncated mapping = %d, %v; want 4, nil", n, err)
	}
	if got, err := b.FileSize(path); err != nil || got != int64(2*page+4) {
		t.Errorf("FileSize after the write = %d, %v; want %d", got, err, 2*page+4)
	}
	buf := make([]byte, 4)
	if n, err := f.ReadAt(buf, int64(2*page)); n != 4 || (err != nil && err != io.EOF) || string(buf) != "back" {
		t.Errorf("ReadAt = %d, %v, %q; want 4, \"back\"", n, err, buf)
	}
}

func TestErrors(t *testing.T) {
	b := newTestBackend(t, Options{})
	missing := filepath.Join(t.TempDir(), "missing")
	_, err := b.Open(missing, aiori.ReadWrite)
	if want := "mmap: open " + missing + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("Open(missing) = %v; want %q", err, want)
	}
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, unix.ENOENT) {
		t.Errorf("Open(missing) error does not wrap ENOENT / fs.ErrNotExist")
	}
	if _, err := b.Open(missing, aiori.ReadOnly|aiori.ReadWrite); err == nil || !strings.Contains(err.Error(), "more than one of") {
		t.Errorf("Open with two access modes = %v; want an error about them", err)
	}
	f, err := b.Create(filepath.Join(t.TempDir(), "f"), aiori.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte("x"), -1); !errors.Is(err, unix.EINVAL) {
		t.Errorf("WriteAt at -1 = %v; want EINVAL", err)
	}
	if _, err := f.ReadAt([]byte("x"), -1); !errors.Is(err, unix.EINVAL) {
		t.Errorf("ReadAt at -1 = %v; want EINVAL", err)
	}
}

// TestTransfersDoNotAllocate checks that WriteAt and ReadAt within the
// mapping allocate nothing.
func TestTransfersDoNotAllocate(t *testing.T) {
	for _, opts := range []Options{{}, {MadvDontNeed: true, MadvPattern: true}} {
		b := newTestBackend(t, opts)
		b.SetHints(aiori.Hints{ExpectedFileSize: 1 << 20})
		f, err := b.Create(filepath.Join(t.TempDir(), "f"), aiori.ReadWrite)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4<<10)
		if got := testing.AllocsPerRun(100, func() {
			if _, err := f.WriteAt(buf, 8192); err != nil {
				t.Fatal(err)
			}
		}); got != 0 {
			t.Errorf("%+v: WriteAt allocates %.1f times per call; want 0", opts, got)
		}
		if got := testing.AllocsPerRun(100, func() {
			if _, err := f.ReadAt(buf, 8192); err != nil {
				t.Fatal(err)
			}
		}); got != 0 {
			t.Errorf("%+v: ReadAt allocates %.1f times per call; want 0", opts, got)
		}
		if err := f.Fsync(); err != nil {
			t.Errorf("%+v: Fsync: %v", opts, err)
		}
		f.Close()
	}
}
