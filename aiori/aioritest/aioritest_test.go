package aioritest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
)

// memRoot is the directory every case of the in-memory backend works in.
const memRoot = "/mem"

// memBackend is a small in-memory backend that keeps the contracts, so
// that the suite can be run against something it must pass, and, with a
// bug switched on, against something it must fail.
type memBackend struct {
	bug string // "" or one of the bugs in TestSuiteCatchesBugs

	mu    sync.Mutex
	nodes map[string]*memNode
}

type memNode struct {
	dir  bool
	data []byte
}

func newMem(bug string) *memBackend {
	return &memBackend{bug: bug, nodes: map[string]*memNode{memRoot: {dir: true}}}
}

func (b *memBackend) Name() string         { return "MEM" }
func (b *memBackend) Version() string      { return "" }
func (b *memBackend) Close() error         { return nil }
func (b *memBackend) SetHints(aiori.Hints) {}
func (b *memBackend) Sync() error          { return nil }

func pathErr(op, p string, err error) error { return &fs.PathError{Op: "mem " + op, Path: p, Err: err} }

// parentOK reports whether p's parent is a directory; b.mu is held.
func (b *memBackend) parentOK(p string) bool {
	n := b.nodes[path.Dir(p)]
	return n != nil && n.dir
}

func (b *memBackend) Create(p string, flags aiori.OpenFlags) (aiori.File, error) {
	return b.open("create", p, flags|aiori.Create)
}

func (b *memBackend) Open(p string, flags aiori.OpenFlags) (aiori.File, error) {
	return b.open("open", p, flags)
}

func (b *memBackend) open(op, p string, flags aiori.OpenFlags) (aiori.File, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.nodes[p]
	switch {
	case n == nil && flags&aiori.Create == 0:
		if b.bug == "notexist" {
			return nil, errors.New("gone")
		}
		return nil, pathErr(op, p, fs.ErrNotExist)
	case n == nil && !b.parentOK(p):
		return nil, pathErr(op, p, fs.ErrNotExist)
	case n == nil:
		n = &memNode{}
		b.nodes[p] = n
	case flags&aiori.Excl != 0 && flags&aiori.Create != 0 && b.bug != "excl":
		return nil, pathErr(op, p, fs.ErrExist)
	case n.dir:
		return nil, pathErr(op, p, errors.New("is a directory"))
	}
	if flags&aiori.Trunc != 0 && b.bug != "trunc" {
		n.data = nil
	}
	return &memFile{b: b, n: n, path: p, readOnly: flags&aiori.ReadOnly != 0}, nil
}

func (b *memBackend) Remove(p string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := b.nodes[p]; n == nil || n.dir {
		return pathErr("remove", p, fs.ErrNotExist)
	}
	delete(b.nodes, p)
	return nil
}

func (b *memBackend) Access(p string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.nodes[p] == nil {
		return pathErr("access", p, fs.ErrNotExist)
	}
	return nil
}

func (b *memBackend) FileSize(p string) (int64, error) {
	fi, err := b.Stat(p)
	return fi.Size, err
}

func (b *memBackend) Stat(p string) (aiori.FileInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.nodes[p]
	if n == nil {
		return aiori.FileInfo{}, pathErr("stat", p, fs.ErrNotExist)
	}
	if n.dir {
		return aiori.FileInfo{Mode: fs.ModeDir | 0o755}, nil
	}
	return aiori.FileInfo{Size: int64(len(n.data)), Mode: 0o644}, nil
}

func (b *memBackend) Statfs(p string) (aiori.FSInfo, error) {
	if err := b.Access(p); err != nil {
		return aiori.FSInfo{}, err
	}
	return aiori.FSInfo{TotalBytes: 1 << 30, FreeBytes: 1 << 29}, nil
}

func (b *memBackend) Mkdir(p string, _ fs.FileMode) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.nodes[p] != nil:
		return pathErr("mkdir", p, fs.ErrExist)
	case !b.parentOK(p):
		return pathErr("mkdir", p, fs.ErrNotExist)
	}
	b.nodes[p] = &memNode{dir: true}
	return nil
}

func (b *memBackend) Mknod(p string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.nodes[p] != nil:
		return pathErr("mknod", p, fs.ErrExist)
	case !b.parentOK(p):
		return pathErr("mknod", p, fs.ErrNotExist)
	}
	b.nodes[p] = &memNode{}
	return nil
}

func (b *memBackend) Rmdir(p string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := b.nodes[p]; n == nil || !n.dir {
		return pathErr("rmdir", p, fs.ErrNotExist)
	}
	for q := range b.nodes {
		if strings.HasPrefix(q, p+"/") {
			return pathErr("rmdir", p, errors.New("directory not empty"))
		}
	}
	delete(b.nodes, p)
	return nil
}

func (b *memBackend) Rename(from, to string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.nodes[from]
	if n == nil {
		return pathErr("rename", from, fs.ErrNotExist)
	}
	delete(b.nodes, from)
	b.nodes[to] = n
	return nil
}

type memFile struct {
	b        *memBackend
	n        *memNode
	path     string
	readOnly bool
	closed   bool
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	if (f.closed && f.b.bug != "closed") || f.readOnly {
		return 0, pathErr("write", f.path, fs.ErrClosed)
	}
	if f.b.bug == "offset" && off > 0 {
		off++
	}
	f.b.mu.Lock()
	defer f.b.mu.Unlock()
	if end := int(off) + len(p); end > len(f.n.data) && len(p) > 0 {
		f.n.data = append(f.n.data, make([]byte, end-len(f.n.data))...)
	}
	copy(f.n.data[off:], p)
	return len(p), nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if f.closed {
		return 0, pathErr("read", f.path, fs.ErrClosed)
	}
	f.b.mu.Lock()
	defer f.b.mu.Unlock()
	if off >= int64(len(f.n.data)) {
		if f.b.bug == "eof" {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(p, f.n.data[off:])
	if n < len(p) && f.b.bug != "eof" {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Fsync() error {
	if f.closed {
		return pathErr("fsync", f.path, fs.ErrClosed)
	}
	return fmt.Errorf("mem fsync: %w", aiori.ErrNotSupported)
}

func (f *memFile) Close() error {
	if f.closed {
		return pathErr("close", f.path, fs.ErrClosed)
	}
	f.closed = true
	return nil
}

// runMem runs the suite against the in-memory backend with bug.
func runMem(t *testing.T, bug string) {
	Run(t,
		func(*testing.T) aiori.Backend { return newMem(bug) },
		func(*testing.T) string { return memRoot },
		Caps{StoresData: true, Metadata: true})
}

// TestSuitePassesCorrectBackend runs the suite against the in-memory
// backend, which keeps every contract.
func TestSuitePassesCorrectBackend(t *testing.T) {
	runMem(t, "")
}

// TestBuggyHelper is run by TestSuiteCatchesBugs in a child process, with
// the bug to switch on in $AIORITEST_BUG.
func TestBuggyHelper(t *testing.T) {
	bug := os.Getenv("AIORITEST_BUG")
	if bug == "" {
		t.Skip("run by TestSuiteCatchesBugs")
	}
	runMem(t, bug)
}

// TestSuiteCatchesBugs runs the suite against backends with one bug each,
// in a child process since the suite must fail there, and checks that the
// case meant to notice the bug fails.
func TestSuiteCatchesBugs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	tests := []struct {
		bug      string
		wantFail []string // cases that must fail
	}{
		{"offset", []string{"WriteReadBack", "Concurrent", "Hints"}}, // data lands one byte off
		{"eof", []string{"ReadAtEOF", "CreateTrunc"}},                // nil instead of io.EOF
		{"notexist", []string{"Missing"}},                            // error without fs.ErrNotExist
		{"excl", []string{"CreateExcl"}},                             // Excl ignored
		{"trunc", []string{"CreateTrunc"}},                           // Trunc ignored
		{"closed", []string{"CloseTwice"}},                           // closed File still writes
	}
	failed := regexp.MustCompile(`--- FAIL: TestBuggyHelper/(\w+)`)
	for _, tt := range tests {
		t.Run(tt.bug, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBuggyHelper$", "-test.v")
			cmd.Env = append(os.Environ(), "AIORITEST_BUG="+tt.bug)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("child with bug %q: %v; want it to fail\n%s", tt.bug, err, out)
			}
			var got []string
			for _, m := range failed.FindAllStringSubmatch(string(out), -1) {
				got = append(got, m[1])
			}
			for _, c := range tt.wantFail {
				if !slices.Contains(got, c) {
					t.Errorf("bug %q: case %s passed; want it to fail (failed: %v)\n%s", tt.bug, c, got, out)
				}
			}
		})
	}
}
