// Package aioritest checks that an aiori backend keeps the contracts of
// aiori.Backend, aiori.File and the optional capabilities (Hinter, Syncer,
// Statfser, Metadata), in the manner of testing/fstest and
// golang.org/x/net/nettest: one suite of cases that every backend runs.
//
// A backend's test file needs little more than:
//
//	func TestConformance(t *testing.T) {
//		aioritest.Run(t, func(t *testing.T) aiori.Backend {
//			b, err := posix.New(posix.DefaultOptions(), aiori.Env{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return b
//		}, nil, aioritest.Caps{StoresData: true, Metadata: true})
//	}
//
// Each case is a subtest with a backend of its own (Run closes it) and a
// directory of its own, so cases do not see each other's files. Cases run
// one after another; the Concurrent case drives several Files at once, so
// run the suite under the race detector.
//
// What a case cannot check on a backend, because Caps says the backend
// does not have it, it skips with t.Skip naming the reason.
package aioritest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
)

// Caps say what the backend under test can do, and so which checks apply.
type Caps struct {
	// StoresData is set when the backend keeps what is written and has a
	// real namespace: data read back is compared with what was written,
	// reads end with io.EOF at the end of the file, Open of a missing
	// path fails with fs.ErrNotExist, Excl fails on an existing file,
	// Remove makes Access fail, and Metadata calls fail where POSIX's do.
	// It is false for a sink such as DUMMY, whose calls succeed without
	// keeping anything; the suite then checks counts, that calls succeed,
	// that closed Files refuse work, and FileSize after Close.
	StoresData bool
	// Metadata is set when the backend implements aiori.Metadata (what
	// its registry Entry.Metadata says). The suite fails when the claim
	// and the type disagree.
	Metadata bool
	// Direct is set when Create and Open honour aiori.Direct (O_DIRECT)
	// in the directories dir returns. Use ProbeDirect to decide: tmpfs
	// before Linux 6.6, for one, refuses O_DIRECT.
	Direct bool
	// AlignedOnly is set when every transfer must be aligned, as with a
	// backend that opens every file with O_DIRECT (--posix.odirect). The
	// suite then transfers only aiori.AlignedBuffer buffers whose
	// lengths and offsets are multiples of aiori.Align.
	AlignedOnly bool
}

// Run runs the conformance cases as subtests of t.
//
// mk makes a new backend for each case, ready to use; Run closes it when
// the case ends and fails the case if Close fails. dir returns a new empty
// directory for each case, in which the case creates its files; nil means
// t.TempDir. A backend without a real namespace may ignore the directory.
func Run(t *testing.T, mk func(t *testing.T) aiori.Backend, dir func(t *testing.T) string, caps Caps) {
	if dir == nil {
		dir = func(t *testing.T) string { return t.TempDir() }
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := mk(t)
			if b == nil {
				t.Fatal("mk returned a nil Backend")
			}
			t.Cleanup(func() {
				if err := b.Close(); err != nil {
					t.Errorf("Backend.Close: %v", err)
				}
			})
			c.fn(&env{t: t, b: b, dir: dir(t), caps: caps})
		})
	}
}

// A case is one subtest of Run.
type testCase struct {
	name string
	fn   func(e *env)
}

var cases = []testCase{
	{"Name", testName},
	{"WriteReadBack", testWriteReadBack},
	{"ReadAtEOF", testReadAtEOF},
	{"Missing", testMissing},
	{"CreateExcl", testCreateExcl},
	{"CreateTrunc", testCreateTrunc},
	{"RemoveAccess", testRemoveAccess},
	{"ReadOnly", testReadOnly},
	{"Fsync", testFsync},
	{"CloseTwice", testCloseTwice},
	{"Concurrent", testConcurrent},
	{"Hints", testHints},
	{"Sync", testSync},
	{"Statfs", testStatfs},
	{"Metadata", testMetadata},
	{"ReadDir", testReadDir},
	{"Direct", testDirect},
}

// env is what a case gets: the backend, its own directory and the caps.
type env struct {
	t    *testing.T
	b    aiori.Backend
	dir  string
	caps Caps
}

// path returns name inside the case's directory.
func (e *env) path(name string) string { return filepath.Join(e.dir, name) }

// unit is the transfer granule of the simple cases: an odd number of
// bytes, or aiori.Align when transfers must be aligned.
func (e *env) unit() int {
	if e.caps.AlignedOnly {
		return aiori.Align
	}
	return 1000
}

// buf returns a zeroed buffer of n bytes, aligned when the caps need it.
func (e *env) buf(n int) []byte {
	if e.caps.AlignedOnly {
		return aiori.AlignedBuffer(n)
	}
	return make([]byte, n)
}

// patterned returns a buffer of n bytes holding pattern(seed) at off.
func (e *env) patterned(n int, seed byte, off int64) []byte {
	p := e.buf(n)
	fill(p, seed, off)
	return p
}

// needData skips the case unless the backend stores data.
func (e *env) needData() {
	e.t.Helper()
	if !e.caps.StoresData {
		e.t.Skip("caps.StoresData is false: the backend keeps neither data nor names, so there is nothing to check")
	}
}

// create creates path with flags or fails the test.
func (e *env) create(path string, flags aiori.OpenFlags) aiori.File {
	e.t.Helper()
	f, err := e.b.Create(path, flags)
	if err != nil {
		e.t.Fatalf("Create(%s, %#x): %v", path, uint32(flags), err)
	}
	if f == nil {
		e.t.Fatalf("Create(%s, %#x) = nil, nil; want a File", path, uint32(flags))
	}
	return f
}

// open opens path with flags or fails the test.
func (e *env) open(path string, flags aiori.OpenFlags) aiori.File {
	e.t.Helper()
	f, err := e.b.Open(path, flags)
	if err != nil {
		e.t.Fatalf("Open(%s, %#x): %v", path, uint32(flags), err)
	}
	if f == nil {
		e.t.Fatalf("Open(%s, %#x) = nil, nil; want a File", path, uint32(flags))
	}
	return f
}

// close closes f or fails the test.
func (e *env) close(f aiori.File) {
	e.t.Helper()
	if err := f.Close(); err != nil {
		e.t.Fatalf("File.Close: %v", err)
	}
}

// write writes all of p at off or fails the test.
func (e *env) write(f aiori.File, p []byte, off int64) {
	e.t.Helper()
	if err := writeAll(f, p, off); err != nil {
		e.t.Fatal(err)
	}
}

// readBack reads len(want) bytes at off and, when the backend stores
// data, compares them with want; it fails the test on a difference.
func (e *env) readBack(f aiori.File, want []byte, off int64) {
	e.t.Helper()
	if err := readCheck(f, e.buf(len(want)), want, off, e.caps.StoresData); err != nil {
		e.t.Fatal(err)
	}
}

// fileSize checks that FileSize(path) is want.
func (e *env) fileSize(path string, want int64) {
	e.t.Helper()
	got, err := e.b.FileSize(path)
	if err != nil {
		e.t.Fatalf("FileSize(%s): %v", path, err)
	}
	if got != want {
		e.t.Fatalf("FileSize(%s) = %d; want %d", path, got, want)
	}
}

// wantNotExist checks that err is an error about path wrapping
// fs.ErrNotExist, from the call named what.
func (e *env) wantNotExist(what, path string, err error) {
	e.t.Helper()
	wantErr(e.t, what, path, err, fs.ErrNotExist)
}

// wantErr checks that err wraps target and names path.
func wantErr(t *testing.T, what, path string, err, target error) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s = nil; want an error wrapping %v", what, target)
	case !errors.Is(err, target):
		t.Errorf("%s = %q; want an error wrapping %v (errors.Is)", what, err, target)
	case !strings.Contains(err.Error(), path):
		t.Errorf("%s = %q; want the message to name %s", what, err, path)
	}
}

// writeAll writes p at off and reports anything but len(p), nil.
func writeAll(f aiori.File, p []byte, off int64) error {
	n, err := f.WriteAt(p, off)
	if err != nil || n != len(p) {
		return fmt.Errorf("WriteAt(%d bytes at %d) = %d, %v; want %d, nil", len(p), off, n, err, len(p))
	}
	return nil
}

// readCheck reads len(buf) bytes at off into buf and, if check, compares
// them with want. A full read may end with io.EOF, as io.ReaderAt allows.
func readCheck(f aiori.File, buf, want []byte, off int64, check bool) error {
	n, err := f.ReadAt(buf, off)
	if n != len(buf) || (err != nil && err != io.EOF) {
		return fmt.Errorf("ReadAt(%d bytes at %d) = %d, %v; want %d, nil", len(buf), off, n, err, len(buf))
	}
	if !check {
		return nil
	}
	if i := diff(buf, want); i >= 0 {
		return fmt.Errorf("ReadAt(%d bytes at %d): byte %d (file offset %d) is %#02x; want %#02x",
			len(buf), off, i, off+int64(i), buf[i], want[i])
	}
	return nil
}

// diff returns the index of the first byte where a and b differ, -1 when
// they are equal.
func diff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// fill writes into p the bytes that pattern seed has at file offsets
// off, off+1, …: they depend on the offset, so data landing in the wrong
// place is caught, and on the seed, so stale data is.
func fill(p []byte, seed byte, off int64) {
	for i := range p {
		x := uint64(off+int64(i)) + uint64(seed)<<40
		p[i] = byte((x * 0x9E3779B97F4A7C15) >> 56)
	}
}

// xfer is one transfer of a case's plan.
type xfer struct {
	off int64
	n   int
}

func testName(e *env) {
	if e.b.Name() == "" {
		e.t.Error("Name() is empty; want the registry name")
	}
	_ = e.b.Version() // any string, including ""
}

// testWriteReadBack writes a plan of transfers of several sizes at
// several offsets, with holes and an overwrite, keeps a model of the file,
// and reads every transfer back, then the whole file through a second
// File, then checks FileSize.
func testWriteReadBack(e *env) {
	plan := []xfer{
		{0, 0}, {0, 1}, {1, 4 << 10}, {4<<10 + 1, 1<<20 + 13}, {8<<20 + 5, 4 << 10}, {3, 100},
	}
	if e.caps.AlignedOnly {
		plan = []xfer{
			{0, 0}, {0, 4 << 10}, {4 << 10, 1 << 20}, {1<<20 + 4<<10, 4 << 10}, {8 << 20, 4 << 10}, {4 << 10, 8 << 10},
		}
	}
	path := e.path("data")
	f := e.create(path, aiori.ReadWrite)
	var model []byte
	for i, x := range plan {
		p := e.patterned(x.n, byte(i+1), x.off)
		e.write(f, p, x.off)
		if end := int(x.off) + x.n; end > len(model) && x.n > 0 {
			model = append(model, make([]byte, end-len(model))...)
		}
		copy(model[x.off:], p)
	}
	for _, x := range plan {
		e.readBack(f, model[x.off:x.off+int64(x.n)], x.off)
	}
	e.close(f)
	e.fileSize(path, int64(len(model)))

	g := e.open(path, aiori.ReadOnly)
	defer g.Close()
	e.readBack(g, model, 0)
	if e.caps.StoresData {
		if n, err := g.ReadAt(e.buf(e.unit()), int64(len(model))); n != 0 || err != io.EOF {
			e.t.Errorf("ReadAt at the end (%d) = %d, %v; want 0, io.EOF", len(model), n, err)
		}
	}
}

// testReadAtEOF checks reads that reach or start past the end.
func testReadAtEOF(e *env) {
	e.needData()
	u := e.unit()
	path := e.path("eof")
	f := e.create(path, aiori.ReadWrite)
	defer f.Close()
	want := e.patterned(u, 1, 0)
	e.write(f, want, 0)

	buf := e.buf(2 * u)
	n, err := f.ReadAt(buf, 0)
	if n != u || err != io.EOF {
		e.t.Errorf("ReadAt(%d bytes at 0) of a %d-byte file = %d, %v; want %d, io.EOF", len(buf), u, n, err, u)
	} else if i := diff(buf[:n], want); i >= 0 {
		e.t.Errorf("ReadAt up to the end: byte %d is %#02x; want %#02x", i, buf[i], want[i])
	}
	for _, off := range []int64{int64(u), 10 * int64(u)} {
		if n, err := f.ReadAt(e.buf(u), off); n != 0 || err != io.EOF {
			e.t.Errorf("ReadAt(%d bytes at %d) of a %d-byte file = %d, %v; want 0, io.EOF", u, off, u, n, err)
		}
	}
	if n, err := f.ReadAt(e.buf(0), 10*int64(u)); n != 0 || (err != nil && err != io.EOF) {
		e.t.Errorf("ReadAt(0 bytes past the end) = %d, %v; want 0, nil or io.EOF", n, err)
	}
}

// testMissing checks that every call on a missing path fails with
// fs.ErrNotExist and names the path.
func testMissing(e *env) {
	e.needData()
	missing := e.path("missing")
	f, err := e.b.Open(missing, aiori.ReadOnly)
	if err == nil {
		f.Close()
	}
	e.wantNotExist("Open(missing)", missing, err)
	inMissingDir := e.path("nodir/file")
	f, err = e.b.Create(inMissingDir, aiori.ReadWrite)
	if err == nil {
		f.Close()
	}
	e.wantNotExist("Create(missing/file)", inMissingDir, err)
	_, err = e.b.FileSize(missing)
	e.wantNotExist("FileSize(missing)", missing, err)
	e.wantNotExist("Access(missing)", missing, e.b.Access(missing))
	e.wantNotExist("Remove(missing)", missing, e.b.Remove(missing))
}

// testCreateExcl checks that Excl creates a new file and refuses an
// existing one.
func testCreateExcl(e *env) {
	path := e.path("excl")
	f := e.create(path, aiori.ReadWrite|aiori.Excl)
	e.write(f, e.patterned(e.unit(), 1, 0), 0)
	e.close(f)
	if !e.caps.StoresData {
		return
	}
	f, err := e.b.Create(path, aiori.ReadWrite|aiori.Excl)
	if err == nil {
		f.Close()
	}
	wantErr(e.t, "Create(existing, Excl)", path, err, fs.ErrExist)
	e.fileSize(path, int64(e.unit()))
}

// testCreateTrunc checks that Create keeps an existing file's data
// without Trunc and empties it with Trunc.
func testCreateTrunc(e *env) {
	u := e.unit()
	path := e.path("trunc")
	f := e.create(path, aiori.ReadWrite)
	want := e.patterned(3*u, 1, 0)
	e.write(f, want, 0)
	e.close(f)
	e.fileSize(path, int64(3*u))

	f = e.create(path, aiori.ReadWrite)
	e.readBack(f, want[u:2*u], int64(u))
	e.close(f)
	e.fileSize(path, int64(3*u))

	f = e.create(path, aiori.ReadWrite|aiori.Trunc)
	if e.caps.StoresData {
		if n, err := f.ReadAt(e.buf(u), 0); n != 0 || err != io.EOF {
			e.t.Errorf("ReadAt after Create with Trunc = %d, %v; want 0, io.EOF", n, err)
		}
	}
	e.close(f)
	e.fileSize(path, 0)
}

// testRemoveAccess checks Access and Remove on an existing file, and
// what the path looks like afterwards.
func testRemoveAccess(e *env) {
	path := e.path("remove")
	f := e.create(path, aiori.ReadWrite)
	e.write(f, e.patterned(e.unit(), 1, 0), 0)
	e.close(f)
	if err := e.b.Access(path); err != nil {
		e.t.Fatalf("Access(existing): %v", err)
	}
	if err := e.b.Remove(path); err != nil {
		e.t.Fatalf("Remove(existing): %v", err)
	}
	if !e.caps.StoresData {
		return
	}
	e.wantNotExist("Access after Remove", path, e.b.Access(path))
	e.wantNotExist("Remove after Remove", path, e.b.Remove(path))
	_, err := e.b.FileSize(path)
	e.wantNotExist("FileSize after Remove", path, err)
}

// testReadOnly checks that a file opened ReadOnly reads and refuses
// writes.
func testReadOnly(e *env) {
	e.needData()
	u := e.unit()
	path := e.path("readonly")
	f := e.create(path, aiori.ReadWrite)
	want := e.patterned(u, 1, 0)
	e.write(f, want, 0)
	e.close(f)

	g := e.open(path, aiori.ReadOnly)
	defer g.Close()
	e.readBack(g, want, 0)
	if n, err := g.WriteAt(e.patterned(u, 2, 0), 0); err == nil || n != 0 {
		e.t.Errorf("WriteAt on a ReadOnly File = %d, %v; want 0 and an error", n, err)
	}
	e.readBack(g, want, 0)
}

// testFsync checks that Fsync succeeds or says it is not supported.
func testFsync(e *env) {
	f := e.create(e.path("fsync"), aiori.ReadWrite)
	defer f.Close()
	e.write(f, e.patterned(e.unit(), 1, 0), 0)
	if err := f.Fsync(); err != nil && !errors.Is(err, aiori.ErrNotSupported) {
		e.t.Errorf("Fsync = %v; want nil or an error wrapping aiori.ErrNotSupported", err)
	}
	if err := f.Fsync(); err != nil && !errors.Is(err, aiori.ErrNotSupported) {
		e.t.Errorf("second Fsync = %v; want nil or an error wrapping aiori.ErrNotSupported", err)
	}
}

// testCloseTwice checks that a closed File refuses work without crashing
// and that closing it again does not crash.
func testCloseTwice(e *env) {
	f := e.create(e.path("close"), aiori.ReadWrite)
	e.write(f, e.patterned(e.unit(), 1, 0), 0)
	e.close(f)
	if err := f.Close(); err != nil {
		e.t.Logf("second Close = %v (allowed)", err)
	}
	if n, err := f.WriteAt(e.buf(e.unit()), 0); err == nil || n != 0 {
		e.t.Errorf("WriteAt after Close = %d, %v; want 0 and an error", n, err)
	}
	if n, err := f.ReadAt(e.buf(e.unit()), 0); err == nil || n != 0 {
		e.t.Errorf("ReadAt after Close = %d, %v; want 0 and an error", n, err)
	}
	if err := f.Fsync(); err == nil {
		e.t.Error("Fsync after Close = nil; want an error")
	}
}

// testConcurrent drives several Files of one backend at once, one
// goroutine and one path each.
func testConcurrent(e *env) {
	const (
		workers   = 8
		transfers = 16
	)
	size := 4 << 10
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		path := e.path(fmt.Sprintf("concurrent.%d", w))
		wg.Go(func() {
			if err := e.roundTrip(path, byte(w+1), size, transfers); err != nil {
				errs <- fmt.Errorf("worker %d: %w", w, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.t.Error(err)
	}
	for w := range workers {
		e.fileSize(e.path(fmt.Sprintf("concurrent.%d", w)), int64(size*transfers))
	}
}

// roundTrip creates path, writes count transfers of size bytes of pattern
// seed, closes it, reopens it read-only and reads them back. It reports
// instead of failing, for use from goroutines.
func (e *env) roundTrip(path string, seed byte, size, count int) error {
	f, err := e.b.Create(path, aiori.ReadWrite)
	if err != nil {
		return err
	}
	for i := range count {
		off := int64(i * size)
		if err := writeAll(f, e.patterned(size, seed, off), off); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if f, err = e.b.Open(path, aiori.ReadOnly); err != nil {
		return err
	}
	defer f.Close()
	buf := e.buf(size)
	for i := range count {
		off := int64(i * size)
		if err := readCheck(f, buf, e.patterned(size, seed, off), off, e.caps.StoresData); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// testHints sets IOR-like hints, sequential and then random, and checks
// that files written under them read back and have the expected size.
func testHints(e *env) {
	h, ok := e.b.(aiori.Hinter)
	if !ok {
		e.t.Skip("the backend does not implement aiori.Hinter")
	}
	const (
		xferSize  = 16 << 10
		blockSize = 64 << 10
		segments  = 2
		total     = segments * blockSize
	)
	hints := aiori.Hints{
		Rank: 0, NumTasks: 1, NumNodes: 1, FilePerProc: true,
		SegmentCount: segments, BlockSize: blockSize, TransferSize: xferSize,
		ExpectedFileSize: total,
	}
	sequential := make([]int64, total/xferSize)
	for i := range sequential {
		sequential[i] = int64(i * xferSize)
	}
	// A fixed shuffle of the same offsets, as IOR's -z would make.
	shuffled := []int64{5, 2, 7, 0, 3, 6, 1, 4}
	for i := range shuffled {
		shuffled[i] *= xferSize
	}
	for _, run := range []struct {
		name    string
		random  bool
		offsets []int64
	}{
		{"sequential", false, sequential},
		{"random", true, shuffled},
	} {
		hints.RandomOffset = run.random
		hints.SingleXferAttempt = run.random
		h.SetHints(hints)
		path := e.path("hints." + run.name)
		f := e.create(path, aiori.ReadWrite|aiori.Trunc)
		for i, off := range run.offsets {
			e.write(f, e.patterned(xferSize, byte(i+1), off), off)
		}
		e.close(f)
		e.fileSize(path, total)
		g := e.open(path, aiori.ReadOnly)
		for i := len(run.offsets) - 1; i >= 0; i-- {
			off := run.offsets[i]
			e.readBack(g, e.patterned(xferSize, byte(i+1), off), off)
		}
		e.close(g)
	}
}

// testSync checks that a Syncer's Sync succeeds.
func testSync(e *env) {
	s, ok := e.b.(aiori.Syncer)
	if !ok {
		e.t.Skip("the backend does not implement aiori.Syncer")
	}
	if err := s.Sync(); err != nil {
		e.t.Errorf("Sync = %v; want nil", err)
	}
}

// testStatfs checks that a Statfser reports sane numbers.
func testStatfs(e *env) {
	s, ok := e.b.(aiori.Statfser)
	if !ok {
		e.t.Skip("the backend does not implement aiori.Statfser")
	}
	info, err := s.Statfs(e.dir)
	if err != nil {
		e.t.Fatalf("Statfs(%s): %v", e.dir, err)
	}
	if info.FreeBytes == 0 || info.TotalBytes < info.FreeBytes {
		e.t.Errorf("Statfs(%s) = total %d, free %d bytes; want total >= free > 0", e.dir, info.TotalBytes, info.FreeBytes)
	}
	if info.TotalInodes < info.FreeInodes {
		e.t.Errorf("Statfs(%s) = total %d, free %d inodes; want total >= free", e.dir, info.TotalInodes, info.FreeInodes)
	}
	if e.caps.StoresData {
		missing := e.path("missing")
		_, err := s.Statfs(missing)
		e.wantNotExist("Statfs(missing)", missing, err)
	}
}

// testMetadata walks mdtest's operations: mkdir, mknod, stat, rename,
// remove, rmdir, and their failures.
func testMetadata(e *env) {
	m, ok := e.b.(aiori.Metadata)
	if ok != e.caps.Metadata {
		e.t.Fatalf("caps.Metadata is %v, but the backend implementing aiori.Metadata is %v", e.caps.Metadata, ok)
	}
	if !ok {
		e.t.Skip("the backend does not implement aiori.Metadata")
	}
	t := e.t
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	stat := func(path string) aiori.FileInfo {
		t.Helper()
		fi, err := m.Stat(path)
		if err != nil {
			t.Fatalf("Stat(%s): %v", path, err)
		}
		return fi
	}

	dir, file, moved := e.path("d"), e.path("d/f"), e.path("d/g")
	must("Mkdir", m.Mkdir(dir, 0o755))
	must("Mknod", m.Mknod(file))
	must("Access after Mknod", e.b.Access(file))
	if e.caps.StoresData {
		if fi := stat(dir); !fi.IsDir() {
			t.Errorf("Stat(dir).Mode = %v; want a directory", fi.Mode)
		}
		if fi := stat(file); !fi.Mode.IsRegular() || fi.Size != 0 {
			t.Errorf("Stat(file made by Mknod) = mode %v, size %d; want a regular file of 0 bytes", fi.Mode, fi.Size)
		}
		wantErr(t, "Mkdir(existing)", dir, m.Mkdir(dir, 0o755), fs.ErrExist)
		wantErr(t, "Mknod(existing)", file, m.Mknod(file), fs.ErrExist)
		if err := m.Rmdir(dir); err == nil {
			t.Errorf("Rmdir(non-empty directory) = nil; want an error")
		}
	} else {
		stat(dir)
		stat(file)
	}

	must("Rename", m.Rename(file, moved))
	stat(moved)
	if e.caps.StoresData {
		_, err := m.Stat(file)
		e.wantNotExist("Stat(renamed-away path)", file, err)
		e.wantNotExist("Rename(missing)", file, m.Rename(file, e.path("d/h")))
		f := e.create(moved, aiori.ReadWrite)
		e.write(f, e.patterned(e.unit(), 1, 0), 0)
		e.close(f)
		if fi := stat(moved); fi.Size != int64(e.unit()) {
			t.Errorf("Stat(file).Size = %d after writing %d bytes", fi.Size, e.unit())
		}
	}

	must("Remove", e.b.Remove(moved))
	must("Rmdir", m.Rmdir(dir))
	if e.caps.StoresData {
		_, err := m.Stat(dir)
		e.wantNotExist("Stat(removed directory)", dir, err)
		e.wantNotExist("Rmdir(missing)", dir, m.Rmdir(dir))
		deep := e.path("no/such/dir")
		e.wantNotExist("Mkdir(in missing parent)", deep, m.Mkdir(deep, 0o755))
		e.wantNotExist("Mknod(in missing parent)", deep, m.Mknod(deep))
	}

	// Directories rename too (mdtest's -r phase renames trees).
	from, to := e.path("from"), e.path("to")
	must("Mkdir", m.Mkdir(from, 0o700))
	must("Rename(directory)", m.Rename(from, to))
	if fi := stat(to); e.caps.StoresData && !fi.IsDir() {
		t.Errorf("Stat(renamed directory).Mode = %v; want a directory", fi.Mode)
	}
	must("Rmdir", m.Rmdir(to))
}

// testDirect writes and reads aligned buffers through Files opened with
// aiori.Direct.
func testDirect(e *env) {
	if !e.caps.Direct {
		e.t.Skip("caps.Direct is false: the backend ignores aiori.Direct, or the file system under test refuses O_DIRECT")
	}
	path := e.path("direct")
	f := e.create(path, aiori.ReadWrite|aiori.Direct)
	big := aiori.AlignedBuffer(1 << 20)
	fill(big, 1, 0)
	small := aiori.AlignedBuffer(aiori.Align)
	fill(small, 2, 1<<20)
	e.write(f, big, 0)
	e.write(f, small, 1<<20)
	e.close(f)
	e.fileSize(path, 1<<20+aiori.Align)

	g := e.open(path, aiori.ReadOnly|aiori.Direct)
	defer g.Close()
	if err := readCheck(g, aiori.AlignedBuffer(len(big)), big, 0, e.caps.StoresData); err != nil {
		e.t.Fatal(err)
	}
	if err := readCheck(g, aiori.AlignedBuffer(len(small)), small, 1<<20, e.caps.StoresData); err != nil {
		e.t.Fatal(err)
	}
	if e.caps.StoresData {
		if n, err := g.ReadAt(aiori.AlignedBuffer(aiori.Align), 1<<20+aiori.Align); n != 0 || err != io.EOF {
			e.t.Errorf("Direct ReadAt at the end = %d, %v; want 0, io.EOF", n, err)
		}
	}
}

// testReadDir: a backend that implements aiori.Lister lists a directory's
// files and subdirectories, each once with its kind, and refuses a
// missing directory with fs.ErrNotExist.
func testReadDir(e *env) {
	l, ok := e.b.(aiori.Lister)
	m, meta := e.b.(aiori.Metadata)
	if !ok || !meta {
		e.t.Skip("the backend does not implement aiori.Lister and aiori.Metadata")
	}
	t := e.t
	d := e.path("list")
	if err := m.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"sub": true, "file.01": false, "file.02": false}
	for name, dir := range want {
		var err error
		if dir {
			err = m.Mkdir(d+"/"+name, 0o755)
		} else {
			err = m.Mknod(d + "/" + name)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]bool{}
	err := l.ReadDir(d, func(b []byte, dir bool) {
		name := string(b)
		if _, dup := got[name]; dup {
			t.Errorf("ReadDir: %q listed twice", name)
		}
		got[name] = dir
	})
	if err != nil {
		t.Fatalf("ReadDir(%s): %v", d, err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("ReadDir(%s) = %v, want %v", d, got, want)
	}
	if e.caps.StoresData {
		err := l.ReadDir(e.path("none"), func([]byte, bool) {})
		wantErr(t, "ReadDir", e.path("none"), err, fs.ErrNotExist)
	}
}
