// Package mmap is the MMAP backend of aiori, after IOR's aiori-MMAP.c: a
// file is opened with open(2), sized with ftruncate(2) to
// Hints.ExpectedFileSize when that is known, and mapped whole with
// mmap(2) MAP_SHARED; a transfer is a copy into or out of the mapping,
// Fsync is msync(2) MS_SYNC, and Close unmaps and closes.
//
// Unlike IOR's, the backend also works without hints: a write past the end
// of the file extends the file (by writing its own last byte with
// pwrite(2), which never shrinks a file another writer has extended) and
// grows the mapping with mremap(2), doubling it so that sequential writes
// remap rarely; a read past the end returns the bytes there are and
// io.EOF. Transfers that need no growth allocate nothing.
//
// A memory fault during a copy (SIGBUS: the file was truncated behind the
// mapping, or the file system had no room for a page) is returned as an
// error instead of crashing the program.
//
// The backend has no metadata operations (mdtest cannot use it), and it
// ignores aiori.Direct: page-cache bypass means nothing for a mapping.
package mmap

import (
	"fmt"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/posix"
	"golang.org/x/sys/unix"
)

// Name is the backend's registry name, IOR's "-a MMAP".
const Name = "MMAP"

// createPerm is the permission Create gives new files, as IOR's.
const createPerm = 0o664

// Entry returns the registry entry of the MMAP backend.
func Entry() aiori.Entry {
	return aiori.Entry{
		Name:       Name,
		Metadata:   false,
		NewOptions: func() aiori.Options { return DefaultOptions() },
		New:        New,
	}
}

// Backend is the MMAP backend. Its methods may be called from several
// goroutines at once; each File it returns belongs to one goroutine at a
// time.
type Backend struct {
	opts     Options
	pageSize int

	// PathOps are Remove, Access and FileSize, made as the POSIX backend
	// makes them.
	posix.PathOps

	// SetHints records the hints read when a file is opened: Create
	// sizes a file to ExpectedFileSize, and --mmap.madv_pattern follows
	// RandomOffset.
	aiori.HintStore
}

// What the backend implements.
var (
	_ aiori.Backend = (*Backend)(nil)
	_ aiori.Hinter  = (*Backend)(nil)
	_ aiori.File    = (*File)(nil)
	_ aiori.Options = (*Options)(nil)
)

// New makes an MMAP backend from opts, which must be a *Options (nil means
// DefaultOptions). It acquires nothing.
func New(opts aiori.Options, _ aiori.Env) (aiori.Backend, error) {
	o := DefaultOptions()
	if opts != nil {
		var ok bool
		if o, ok = opts.(*Options); !ok || o == nil {
			return nil, fmt.Errorf("mmap: options are %T; want *mmap.Options", opts)
		}
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return &Backend{opts: *o, pageSize: unix.Getpagesize(), PathOps: posix.NewPathOps("mmap")}, nil
}

// Name returns "MMAP".
func (b *Backend) Name() string { return Name }

// Version returns "": the backend is the kernel's system calls.
func (b *Backend) Version() string { return "" }

// Options returns a copy of the options the backend was made with.
func (b *Backend) Options() Options { return b.opts }

// Create opens path with O_CREAT and mode 0664 (plus O_EXCL and O_TRUNC
// as flags ask), extends it with ftruncate(2) to Hints.ExpectedFileSize
// when that is larger than the file, and maps it. A file opened for
// writing is opened O_RDWR, as a shared writable mapping needs, even with
// WriteOnly.
func (b *Backend) Create(path string, flags aiori.OpenFlags) (aiori.File, error) {
	return b.open("create", path, flags|aiori.Create)
}

// Open opens and maps path, which must exist unless flags include Create.
func (b *Backend) Open(path string, flags aiori.OpenFlags) (aiori.File, error) {
	return b.open("open", path, flags)
}

func (b *Backend) open(op, path string, flags aiori.OpenFlags) (*File, error) {
	oflags, writable, err := openFlags(flags)
	if err != nil {
		return nil, fmt.Errorf("mmap: %s %s: %w", op, path, err)
	}
	var fd int
	for {
		fd, err = unix.Open(path, oflags, createPerm)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("mmap: %s %s: %w", op, path, err)
	}
	h := b.Hints()
	f := &File{
		fd:       fd,
		path:     path,
		writable: writable,
		pageSize: b.pageSize,
		prot:     unix.PROT_READ,
		advice:   -1,
		dontNeed: b.opts.MadvDontNeed,
	}
	if writable {
		f.prot |= unix.PROT_WRITE
	}
	if b.opts.MadvPattern {
		f.advice = unix.MADV_SEQUENTIAL
		if h.RandomOffset {
			f.advice = unix.MADV_RANDOM
		}
	}
	var expected int64
	if op == "create" && writable {
		expected = h.ExpectedFileSize
	}
	if err := f.setup(op, expected); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return f, nil
}

// openFlags translates flags to open(2) flags and says whether the file
// is mapped writable.
func openFlags(flags aiori.OpenFlags) (oflags int, writable bool, err error) {
	// A shared writable mapping needs O_RDWR, also for WriteOnly.
	if flags&aiori.WriteOnly != 0 && flags&(aiori.ReadOnly|aiori.ReadWrite) == 0 {
		flags = flags&^aiori.WriteOnly | aiori.ReadWrite
	}
	oflags, err = flags.UnixFlags()
	return oflags, flags&aiori.ReadOnly == 0, err
}

// Close does nothing: the backend holds nothing but open Files, which
// their owners close.
func (b *Backend) Close() error { return nil }
