// Package dummy is the DUMMY backend of aiori, after IOR's aiori-DUMMY.c:
// it does no I/O at all. Every call succeeds at once, or after the delay
// its option sets (--dummy.delay-xfer and friends, optionally on rank 0
// only), which makes it the way to measure the harness itself (barriers,
// timing, reductions, output) and to test the engines fast.
//
// Transfers never touch the buffer: a read leaves it as it was. The one
// thing the backend remembers is how far each path was written through a
// File, so that FileSize answers what an IOR engine expects after a write
// phase and its size check stays quiet; see Backend.FileSize. mdtest's
// one-call item operations (CreateItem, ReadItem, StatItem) remember
// nothing, so that the backend's memory does not grow with mdtest's -n.
package dummy

import (
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/aiori"
)

// Name is the backend's registry name, IOR's "-a DUMMY".
const Name = "DUMMY"

// Entry returns the registry entry of the DUMMY backend.
func Entry() aiori.Entry {
	return aiori.Entry{
		Name:       Name,
		Metadata:   true,
		NewOptions: func() aiori.Options { return DefaultOptions() },
		New:        New,
	}
}

// Backend is the DUMMY backend. Its methods may be called from several
// goroutines at once; each File it returns belongs to one goroutine at a
// time.
type Backend struct {
	opts Options
	// The delays this rank sleeps: the options' values, or zero on ranks
	// other than 0 with DelayOnlyRank0.
	delayCreate, delayClose, delaySync, delayXfer time.Duration

	mu sync.Mutex
	// sizes is the end of the furthest write per path written, guarded
	// by mu; a path never written (size 0) has no entry. Its keys are
	// copies: a caller may reuse the bytes of the paths it passes.
	sizes map[string]int64
	hints aiori.Hints // guarded by mu
}

// What the backend implements.
var (
	_ aiori.Backend  = (*Backend)(nil)
	_ aiori.Hinter   = (*Backend)(nil)
	_ aiori.Syncer   = (*Backend)(nil)
	_ aiori.Statfser = (*Backend)(nil)
	_ aiori.Metadata = (*Backend)(nil)
	_ aiori.File     = (*File)(nil)
	_ aiori.Options  = (*Options)(nil)
)

// New makes a DUMMY backend from opts, which must be a *Options (nil means
// DefaultOptions), for the rank env.Rank.
func New(opts aiori.Options, env aiori.Env) (aiori.Backend, error) {
	o := DefaultOptions()
	if opts != nil {
		var ok bool
		if o, ok = opts.(*Options); !ok || o == nil {
			return nil, fmt.Errorf("dummy: options are %T; want *dummy.Options", opts)
		}
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	b := &Backend{opts: *o, sizes: make(map[string]int64)}
	if !o.DelayOnlyRank0 || env.Rank == 0 {
		b.delayCreate = usec(o.DelayCreate)
		b.delayClose = usec(o.DelayClose)
		b.delaySync = usec(o.DelaySync)
		b.delayXfer = usec(o.DelayXfer)
	}
	return b, nil
}

// usec converts microseconds to a Duration.
func usec(n int64) time.Duration { return time.Duration(n) * time.Microsecond }

// sleep waits d, if d is not zero, as IOR's usleep does: in the kernel
// (clock_nanosleep), to the microsecond. Go's time.Sleep rounds short
// waits up to the runtime's timer tick here (50 us slept 1.09 ms), so a
// delay below a millisecond made no difference.
func sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for {
		var left unix.Timespec
		err := unix.Nanosleep(&ts, &left)
		if err != unix.EINTR {
			return
		}
		ts = left
	}
}

// Name returns "DUMMY".
func (b *Backend) Name() string { return Name }

// Version returns "": there is no library behind the backend.
func (b *Backend) Version() string { return "" }

// Options returns a copy of the options the backend was made with.
func (b *Backend) Options() Options { return b.opts }

// SetHints records h, which FileSize consults for shared files.
func (b *Backend) SetHints(h aiori.Hints) {
	b.mu.Lock()
	b.hints = h
	b.mu.Unlock()
}

// Create sleeps --dummy.delay-create and returns a File. With Trunc it
// forgets how far path was written.
func (b *Backend) Create(path string, flags aiori.OpenFlags) (aiori.File, error) {
	sleep(b.delayCreate)
	b.touch(path, flags&aiori.Trunc != 0)
	return &File{b: b, path: path}, nil
}

// Open returns a File at once (IOR's DUMMY does not delay opens), for any
// path, existing or not. With Trunc it forgets how far path was written.
func (b *Backend) Open(path string, flags aiori.OpenFlags) (aiori.File, error) {
	b.touch(path, flags&aiori.Trunc != 0)
	return &File{b: b, path: path}, nil
}

// touch forgets how far path was written if trunc.
func (b *Backend) touch(path string, trunc bool) {
	if !trunc {
		return
	}
	b.mu.Lock()
	delete(b.sizes, path)
	b.mu.Unlock()
}

// Remove forgets path and succeeds, whether or not path was used.
func (b *Backend) Remove(path string) error {
	b.mu.Lock()
	delete(b.sizes, path)
	b.mu.Unlock()
	return nil
}

// Access returns nil for every path: to the backend, everything exists.
func (b *Backend) Access(string) error { return nil }

// FileSize returns how far Files of this backend wrote path: the largest
// offset+len of a write, recorded when each File is closed; 0 for a path
// never written. Each rank has its own backend and knows only its own
// writes, which is the whole file when every rank has a file of its own.
// For a shared file (hints with FilePerProc unset and NumTasks > 1) it
// returns the larger of that and Hints.ExpectedFileSize once the path has
// been written, so that every rank reports the same size and IOR's check
// ("inconsistent file size by different tasks") stays quiet.
func (b *Backend) FileSize(path string) (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	size := b.sizes[path]
	if h := b.hints; size > 0 && !h.FilePerProc && h.NumTasks > 1 {
		size = max(size, h.ExpectedFileSize)
	}
	return size, nil
}

// Close forgets every path; the delays stay. It never fails.
func (b *Backend) Close() error {
	b.mu.Lock()
	clear(b.sizes)
	b.mu.Unlock()
	return nil
}

// Sync sleeps --dummy.delay-sync.
func (b *Backend) Sync() error {
	sleep(b.delaySync)
	return nil
}

// Statfs reports a file system of one byte and one inode, both free, as
// IOR's DUMMY does, for any path.
func (b *Backend) Statfs(string) (aiori.FSInfo, error) {
	return aiori.FSInfo{TotalBytes: 1, FreeBytes: 1, TotalInodes: 1, FreeInodes: 1}, nil
}

// Mkdir succeeds without doing anything.
func (b *Backend) Mkdir(string, fs.FileMode) error { return nil }

// Rmdir succeeds without doing anything.
func (b *Backend) Rmdir(string) error { return nil }

// Rename moves what the backend knows of from (its size) to to, and
// succeeds whether or not from was used.
func (b *Backend) Rename(from, to string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if size, ok := b.sizes[from]; ok {
		delete(b.sizes, from)
		b.sizes[strings.Clone(to)] = size
	}
	return nil
}

// Stat succeeds for every path with a regular file of the size FileSize
// would report without hints: 0 unless Files of this backend wrote path.
func (b *Backend) Stat(path string) (aiori.FileInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return aiori.FileInfo{Size: b.sizes[path]}, nil
}

// Mknod sleeps --dummy.delay-create, as a create, and succeeds.
func (b *Backend) Mknod(string) error {
	sleep(b.delayCreate)
	return nil
}

// record raises path's size to end.
func (b *Backend) record(path string, end int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if end > b.sizes[path] {
		b.sizes[strings.Clone(path)] = end
	}
}

// File is a file of the DUMMY backend: a path and how far it was written.
type File struct {
	b      *Backend
	path   string
	end    int64 // largest off+len(p) written
	closed bool
}

// WriteAt sleeps --dummy.delay-xfer and returns len(p), nil without
// reading p.
func (f *File) WriteAt(p []byte, off int64) (int, error) {
	if err := f.check("write", off); err != nil {
		return 0, err
	}
	if end := off + int64(len(p)); len(p) > 0 && end > f.end {
		f.end = end
	}
	sleep(f.b.delayXfer)
	return len(p), nil
}

// ReadAt sleeps --dummy.delay-xfer and returns len(p), nil without
// writing p: the buffer keeps what it held, and no read reaches an end.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if err := f.check("read", off); err != nil {
		return 0, err
	}
	sleep(f.b.delayXfer)
	return len(p), nil
}

// check refuses transfers on a closed File and at negative offsets.
func (f *File) check(op string, off int64) error {
	switch {
	case f.closed:
		return fmt.Errorf("dummy: %s %s at offset %d: %w", op, f.path, off, fs.ErrClosed)
	case off < 0:
		return fmt.Errorf("dummy: %s %s at offset %d: %w", op, f.path, off, fs.ErrInvalid)
	}
	return nil
}

// Fsync succeeds at once, as IOR's DUMMY fsync.
func (f *File) Fsync() error {
	if f.closed {
		return fmt.Errorf("dummy: fsync %s: %w", f.path, fs.ErrClosed)
	}
	return nil
}

// Close records how far the File wrote, for FileSize, and sleeps
// --dummy.delay-close. Closing again returns an error wrapping
// fs.ErrClosed.
func (f *File) Close() error {
	if f.closed {
		return fmt.Errorf("dummy: close %s: %w", f.path, fs.ErrClosed)
	}
	f.closed = true
	f.b.record(f.path, f.end)
	sleep(f.b.delayClose)
	return nil
}
