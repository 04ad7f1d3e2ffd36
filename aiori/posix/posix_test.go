package posix

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"golang.org/x/sys/unix"
)

// newTestBackend returns a POSIX backend with opts.
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
	if e.Name != "POSIX" || !e.Metadata || len(e.Aliases) != 0 {
		t.Errorf("Entry() = %q, Metadata %v, aliases %v; want POSIX, true, none", e.Name, e.Metadata, e.Aliases)
	}
	opts := e.NewOptions()
	if _, ok := opts.(*Options); !ok {
		t.Fatalf("NewOptions() = %T; want *posix.Options", opts)
	}
	b, err := e.New(opts, aiori.Env{Rank: 3, Size: 4})
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "POSIX" || b.Version() != "" {
		t.Errorf("Name, Version = %q, %q; want POSIX, empty", b.Name(), b.Version())
	}
	if _, err := aiori.NewRegistry(e); err != nil {
		t.Errorf("NewRegistry(Entry()): %v", err)
	}
}

// otherOptions is an aiori.Options of another backend.
type otherOptions struct{ Options }

func TestNewOptions(t *testing.T) {
	if _, err := New(nil, aiori.Env{}); err != nil {
		t.Errorf("New(nil): %v; want the defaults", err)
	}
	_, err := New(&otherOptions{}, aiori.Env{})
	if err == nil || !strings.Contains(err.Error(), "want *posix.Options") {
		t.Errorf("New(other backend's options) = %v; want an error naming *posix.Options", err)
	}
	var nilOpts *Options
	if _, err := New(nilOpts, aiori.Env{}); err == nil {
		t.Error("New((*Options)(nil)) succeeded; want an error")
	}
	b := newTestBackend(t, Options{ODirect: true})
	if got := b.Options(); !got.ODirect {
		t.Errorf("Options() = %+v; want ODirect", got)
	}
}

func TestOpenFlags(t *testing.T) {
	const cloexec = unix.O_CLOEXEC
	tests := []struct {
		flags  aiori.OpenFlags
		direct bool
		want   int
	}{
		{0, false, unix.O_RDWR | cloexec}, // no access mode: read-write
		{aiori.ReadOnly, false, unix.O_RDONLY | cloexec},
		{aiori.WriteOnly, false, unix.O_WRONLY | cloexec},
		{aiori.ReadWrite, false, unix.O_RDWR | cloexec},
		{aiori.WriteOnly | aiori.Create, false, unix.O_WRONLY | unix.O_CREAT | cloexec},
		{aiori.ReadWrite | aiori.Create | aiori.Excl, false, unix.O_RDWR | unix.O_CREAT | unix.O_EXCL | cloexec},
		{aiori.ReadWrite | aiori.Trunc, false, unix.O_RDWR | unix.O_TRUNC | cloexec},
		{aiori.ReadOnly | aiori.Direct, true, unix.O_RDONLY | unix.O_DIRECT | cloexec},
		{aiori.ReadOnly, true, unix.O_RDONLY | unix.O_DIRECT | cloexec}, // --posix.odirect
	}
	for _, tt := range tests {
		got, err := openFlags(tt.flags, tt.direct)
		if err != nil || got != tt.want {
			t.Errorf("openFlags(%#x, %v) = %#x, %v; want %#x, nil", uint32(tt.flags), tt.direct, got, err, tt.want)
		}
	}
	for _, bad := range []aiori.OpenFlags{
		aiori.ReadOnly | aiori.WriteOnly,
		aiori.ReadOnly | aiori.ReadWrite,
		aiori.ReadOnly | aiori.WriteOnly | aiori.ReadWrite | aiori.Create,
	} {
		if _, err := openFlags(bad, false); err == nil || !strings.Contains(err.Error(), "more than one of ReadOnly, WriteOnly and ReadWrite") {
			t.Errorf("openFlags(%#x) = %v; want an error about the access mode", uint32(bad), err)
		}
	}
}

func TestErrorsKeepErrno(t *testing.T) {
	b := newTestBackend(t, Options{})
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")

	_, err := b.Open(missing, aiori.ReadOnly)
	if want := "posix: open " + missing + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("Open(missing) = %v; want %q", err, want)
	}
	for _, target := range []error{unix.ENOENT, fs.ErrNotExist} {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(Open(missing) error, %v) = false", target)
		}
	}

	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, make([]byte, 10), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := b.Open(path, aiori.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := f.WriteAt([]byte("x"), 7)
	if want := "posix: write " + path + " at offset 7: bad file descriptor"; n != 0 || err == nil || err.Error() != want {
		t.Errorf("WriteAt on a read-only file = %d, %v; want 0, %q", n, err, want)
	}
	if !errors.Is(err, unix.EBADF) {
		t.Errorf("errors.Is(WriteAt error, unix.EBADF) = false")
	}

	_, err = b.Create(path, aiori.ReadWrite|aiori.Excl)
	if !errors.Is(err, fs.ErrExist) || !errors.Is(err, unix.EEXIST) {
		t.Errorf("Create(existing, Excl) = %v; want an error wrapping EEXIST", err)
	}
	if err := b.Mkdir(path, 0o755); !errors.Is(err, fs.ErrExist) || !strings.HasPrefix(err.Error(), "posix: mkdir "+path+": ") {
		t.Errorf("Mkdir(existing) = %v; want \"posix: mkdir PATH: …\" wrapping fs.ErrExist", err)
	}
	if err := b.Rmdir(path); !errors.Is(err, unix.ENOTDIR) {
		t.Errorf("Rmdir(file) = %v; want an error wrapping ENOTDIR", err)
	}
	err = b.Rename(missing, path)
	if want := "posix: rename " + missing + " to " + path + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("Rename(missing, f) = %v; want %q", err, want)
	}
}

// fakeRW is an rwFunc that plays back results: each call takes the next
// step; a step with n > 0 transfers min(n, len(p)) bytes.
type fakeRW struct {
	steps []step
	calls []int64 // offsets asked for
}

type step struct {
	n   int
	err error
}

func (f *fakeRW) rw(_ int, p []byte, off int64) (int, error) {
	f.calls = append(f.calls, off)
	if len(f.calls) > len(f.steps) {
		return 0, errors.New("fakeRW: more calls than steps")
	}
	s := f.steps[len(f.calls)-1]
	if s.err != nil {
		return -1, s.err
	}
	return min(s.n, len(p)), nil
}

func TestTransferLoop(t *testing.T) {
	tests := []struct {
		name      string
		op        string
		single    bool
		steps     []step
		wantN     int
		wantErr   error   // matched with errors.Is; nil for success
		wantCalls []int64 // offsets of the calls
		wantMsg   string  // the error's text, when wantErr is set
	}{
		// HAPPY PATH
		{name: "one call", op: opWrite, steps: []step{{n: 100}},
			wantN: 100, wantCalls: []int64{1000}},
		{name: "short writes are finished", op: opWrite, steps: []step{{n: 30}, {n: 30}, {n: 40}},
			wantN: 100, wantCalls: []int64{1000, 1030, 1060}},
		{name: "EINTR is retried", op: opRead, steps: []step{{err: unix.EINTR}, {n: 60}, {err: unix.EINTR}, {n: 40}},
			wantN: 100, wantCalls: []int64{1000, 1000, 1060, 1060}},
		{name: "EINTR is retried even with a single attempt", op: opWrite, single: true, steps: []step{{err: unix.EINTR}, {n: 100}},
			wantN: 100, wantCalls: []int64{1000, 1000}},
		// SAD PATH
		{name: "read ends at EOF", op: opRead, steps: []step{{n: 70}, {n: 0}},
			wantN: 70, wantErr: io.EOF, wantCalls: []int64{1000, 1070}},
		{name: "errno after progress", op: opWrite, steps: []step{{n: 10}, {err: unix.ENOSPC}},
			wantN: 10, wantErr: unix.ENOSPC, wantCalls: []int64{1000, 1010},
			wantMsg: "posix: write /f at offset 1000: after 10 of 100 bytes: no space left on device"},
		{name: "errno at once", op: opRead, steps: []step{{err: unix.EIO}},
			wantN: 0, wantErr: unix.EIO, wantCalls: []int64{1000},
			wantMsg: "posix: read /f at offset 1000: input/output error"},
		{name: "write of nothing", op: opWrite, steps: []step{{n: 0}},
			wantN: 0, wantErr: io.ErrShortWrite, wantCalls: []int64{1000}},
		{name: "short write with a single attempt", op: opWrite, single: true, steps: []step{{n: 30}},
			wantN: 30, wantErr: io.ErrShortWrite, wantCalls: []int64{1000},
			wantMsg: "posix: write /f at offset 1000: 30 of 100 bytes in a single attempt (SingleXferAttempt): short write"},
		{name: "short read with a single attempt", op: opRead, single: true, steps: []step{{n: 30}},
			wantN: 30, wantErr: io.ErrUnexpectedEOF, wantCalls: []int64{1000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeRW{steps: tt.steps}
			f := &File{fd: 3, path: "/f", single: tt.single}
			n, err := f.transfer(tt.op, fake.rw, make([]byte, 100), 1000)
			if n != tt.wantN {
				t.Errorf("n = %d; want %d", n, tt.wantN)
			}
			switch {
			case tt.wantErr == nil && err != nil:
				t.Errorf("err = %v; want nil", err)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("err = %v; want one wrapping %v", err, tt.wantErr)
			case tt.wantMsg != "" && err.Error() != tt.wantMsg:
				t.Errorf("err = %q; want %q", err, tt.wantMsg)
			}
			if tt.wantErr == io.EOF && err != io.EOF {
				t.Errorf("err = %#v; want io.EOF itself, as io.ReaderAt callers compare with ==", err)
			}
			if !equalInt64s(fake.calls, tt.wantCalls) {
				t.Errorf("calls at offsets %v; want %v", fake.calls, tt.wantCalls)
			}
		})
	}
}

func equalInt64s(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSetHintsReachesNewFiles(t *testing.T) {
	b := newTestBackend(t, Options{})
	path := filepath.Join(t.TempDir(), "f")
	b.SetHints(aiori.Hints{SingleXferAttempt: true})
	f, err := b.Create(path, aiori.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !f.(*File).single {
		t.Error("a File created after SetHints(SingleXferAttempt) retries short transfers")
	}
	if got := f.(*File).Path(); got != path {
		t.Errorf("Path() = %q; want %q", got, path)
	}
}

func TestDirectEINVALIsExplained(t *testing.T) {
	// Whether a misaligned transfer fails depends on the file system
	// (tmpfs since Linux 6.6 accepts it), so the kernel's answer is
	// played back.
	fake := &fakeRW{steps: []step{{err: unix.EINVAL}}}
	f := &File{fd: 3, path: "/f", direct: true}
	_, err := f.transfer(opWrite, fake.rw, make([]byte, 100), 1)
	want := "posix: write /f at offset 1: invalid argument (O_DIRECT needs buffer address, offset and length aligned to 4096 bytes)"
	if !errors.Is(err, unix.EINVAL) || err.Error() != want {
		t.Errorf("misaligned O_DIRECT write = %v; want %q wrapping EINVAL", err, want)
	}
}

// TestTransfersDoNotAllocate checks the promise the IOR timed loop relies
// on: WriteAt and ReadAt allocate nothing, with or without range locks.
func TestTransfersDoNotAllocate(t *testing.T) {
	for _, opts := range []Options{{}, {RangeLocks: true}} {
		b := newTestBackend(t, opts)
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
		f.Close()
	}
}

// TestRangeLocks checks that a transfer waits for a conflicting lock held
// through another open file description, that reads share read locks, and
// that the lock is gone after the transfer.
func TestRangeLocks(t *testing.T) {
	b := newTestBackend(t, Options{RangeLocks: true})
	path := filepath.Join(t.TempDir(), "locked")
	f, err := b.Create(path, aiori.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(make([]byte, 8192), 0); err != nil {
		t.Fatal(err)
	}

	other, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(other)
	setLock := func(typ int16, start, n int64) error {
		lk := unix.Flock_t{Type: typ, Whence: io.SeekStart, Start: start, Len: n}
		return unix.FcntlFlock(uintptr(other), unix.F_OFD_SETLK, &lk)
	}

	// A read lock elsewhere does not stop a read (a guard, not a timing
	// check: a wrong lock type would block for ever).
	if err := setLock(unix.F_RDLCK, 0, 4096); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.ReadAt(make([]byte, 4096), 0)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		setLock(unix.F_UNLCK, 0, 0)
		t.Fatal("ReadAt blocked behind another reader's read lock; want read locks to be shared")
	}

	// A write waits until the other lock is released. If it did not
	// wait, it would finish while the lock is held; the check below can
	// only miss that, never fail a correct implementation.
	go func() {
		_, err := f.WriteAt(make([]byte, 100), 1000)
		done <- err
	}()
	select {
	case err := <-done:
		t.Errorf("WriteAt under a conflicting read lock returned (%v) before the lock was released", err)
	case <-time.After(50 * time.Millisecond):
	}
	if err := setLock(unix.F_UNLCK, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil && !t.Failed() {
		t.Fatal(err)
	}

	// After the transfers no lock of f's remains: the other description
	// can take a write lock on the whole file without waiting.
	if err := setLock(unix.F_WRLCK, 0, 0); err != nil {
		t.Errorf("write lock after the transfers: %v; want f's range locks released", err)
	}
}

func TestStatMatchesOS(t *testing.T) {
	b := newTestBackend(t, Options{})
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, make([]byte, 1234), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir, file, link, "/dev/null"} {
		got, err := b.Stat(path)
		if err != nil {
			t.Errorf("Stat(%s): %v", path, err)
			continue
		}
		want, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Mode != want.Mode() || got.IsDir() != want.IsDir() || !got.ModTime.Equal(want.ModTime()) ||
			(want.Mode().IsRegular() && got.Size != want.Size()) {
			t.Errorf("Stat(%s) = %v %d %v; os.Stat says %v %d %v",
				path, got.Mode, got.Size, got.ModTime, want.Mode(), want.Size(), want.ModTime())
		}
	}
}

func TestMknodMakesRegularFile(t *testing.T) {
	b := newTestBackend(t, Options{})
	path := filepath.Join(t.TempDir(), "node")
	if err := b.Mknod(path); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() || fi.Size() != 0 {
		t.Errorf("after Mknod: mode %v, size %d; want an empty regular file", fi.Mode(), fi.Size())
	}
}

func TestStatfsAgreesWithStatfs(t *testing.T) {
	b := newTestBackend(t, Options{})
	dir := t.TempDir()
	info, err := b.Statfs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	unit := uint64(st.Frsize)
	if unit == 0 {
		unit = uint64(st.Bsize)
	}
	// Capacity and inode totals do not move; free space may, between the
	// two calls, so it is only checked for sanity.
	if info.TotalBytes != st.Blocks*unit || info.TotalInodes != st.Files {
		t.Errorf("Statfs = %d bytes, %d inodes; statfs(2) says %d bytes, %d inodes",
			info.TotalBytes, info.TotalInodes, st.Blocks*unit, st.Files)
	}
	if info.FreeBytes > info.TotalBytes {
		t.Errorf("FreeBytes %d > TotalBytes %d", info.FreeBytes, info.TotalBytes)
	}
}

// TestMetadataNoAllocs pins mdtest's hot paths: stat, mkdir, rename,
// rmdir, mknod and unlink allocate nothing on success.
func TestMetadataNoAllocs(t *testing.T) {
	dir := t.TempDir()
	be, err := New(nil, aiori.Env{})
	if err != nil {
		t.Fatal(err)
	}
	b := be.(*Backend)
	file, sub, moved := dir+"/f", dir+"/d", dir+"/d.r"
	f, err := b.Create(file, aiori.WriteOnly)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := b.Stat(file); err != nil {
			t.Fatal(err)
		}
		if err := b.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := b.Rename(sub, moved); err != nil {
			t.Fatal(err)
		}
		if err := b.Rmdir(moved); err != nil {
			t.Fatal(err)
		}
		if err := b.Mknod(sub); err != nil {
			t.Fatal(err)
		}
		if err := b.Remove(sub); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("stat, mkdir, rename, rmdir, mknod, unlink allocate %v times; want 0", allocs)
	}
}
