// Package posix is the POSIX backend of aiori, after IOR's aiori-POSIX.c:
// files opened with open(2), transfers with pwrite(2) and pread(2) in
// loops that finish short transfers, fsync(2), unlink(2), stat(2),
// statfs(2), sync(2), and the namespace operations mdtest needs (mkdir,
// rmdir, rename, stat, mknod).
//
// Everything goes through golang.org/x/sys/unix, not os.File, so that a
// transfer is one system call and no allocation (a raw one, which the Go
// scheduler does not hand off: see internal/rawio); the range lock of
// --posix.rangelocks adds two fcntl calls and still allocates nothing.
//
// Errors name the call, the path and, for transfers, the offset
// ("posix: write /mnt/f at offset 4096: no space left on device") and wrap
// the unix.Errno, so errors.Is(err, unix.ENOSPC) and
// errors.Is(err, fs.ErrNotExist) work.
package posix

import (
	"fmt"
	"io/fs"
	"sync/atomic"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"golang.org/x/sys/unix"
)

// Name is the backend's registry name, IOR's "-a POSIX".
const Name = "POSIX"

// createPerm is the permission Create and Mknod give new files, as IOR's.
const createPerm = 0o664

// Entry returns the registry entry of the POSIX backend.
func Entry() aiori.Entry {
	return aiori.Entry{
		Name:       Name,
		Metadata:   true,
		NewOptions: func() aiori.Options { return DefaultOptions() },
		New:        New,
	}
}

// Backend is the POSIX backend. Its methods may be called from several
// goroutines at once; each File it returns belongs to one goroutine at a
// time.
type Backend struct {
	opts Options

	// SetHints records the hints copied into each File when opened. Only
	// SingleXferAttempt changes what the backend does: short transfers
	// are then reported instead of retried.
	aiori.HintStore

	// PathOps are Remove, Access and FileSize; its cpath also converts
	// the paths of the metadata calls without allocating.
	PathOps

	// single is the SingleXferAttempt of the hints last set, which
	// CreateItem and ReadItem read without HintStore's lock (its lock and
	// deferred unlock were 1% of an item's create or read).
	single atomic.Bool

	freeBuf func() error // unmaps AllocBuffer's huge-page buffer
	huge    bool         // AllocBuffer made one: Describe says so
}

// SetHints records h for the files opened from now on.
func (b *Backend) SetHints(h aiori.Hints) {
	b.HintStore.SetHints(h)
	b.single.Store(h.SingleXferAttempt)
}

// What the backend implements.
var (
	_ aiori.Backend         = (*Backend)(nil)
	_ aiori.Hinter          = (*Backend)(nil)
	_ aiori.BufferAllocator = (*Backend)(nil)
	_ aiori.Describer       = (*Backend)(nil)
	_ aiori.Syncer          = (*Backend)(nil)
	_ aiori.Statfser        = (*Backend)(nil)
	_ aiori.Metadata        = (*Backend)(nil)
	_ aiori.Lister          = (*Backend)(nil)
	_ aiori.File            = (*File)(nil)
	_ aiori.Options         = (*Options)(nil)
)

// New makes a POSIX backend from opts, which must be a *Options (nil means
// DefaultOptions). It validates opts and acquires nothing.
func New(opts aiori.Options, _ aiori.Env) (aiori.Backend, error) {
	o, err := options(opts)
	if err != nil {
		return nil, err
	}
	return &Backend{opts: *o, PathOps: NewPathOps("posix")}, nil
}

// options returns opts as *Options, validated.
func options(opts aiori.Options) (*Options, error) {
	if opts == nil {
		return DefaultOptions(), nil
	}
	o, ok := opts.(*Options)
	if !ok || o == nil {
		return nil, fmt.Errorf("posix: options are %T; want *posix.Options", opts)
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return o, nil
}

// Name returns "POSIX".
func (b *Backend) Name() string { return Name }

// Version returns "": the backend is the kernel's system calls, which IOR's
// POSIX backend does not describe either.
func (b *Backend) Version() string { return "" }

// Options returns a copy of the options the backend was made with.
func (b *Backend) Options() Options { return b.opts }

// Create opens path with O_CREAT and mode 0664, plus O_EXCL, O_TRUNC and
// O_DIRECT as flags ask (O_DIRECT also with --posix.odirect). The access
// mode follows flags (ReadOnly, WriteOnly, ReadWrite) and is O_RDWR when
// flags name none, as IOR's create.
func (b *Backend) Create(path string, flags aiori.OpenFlags) (aiori.File, error) {
	return b.open("create", path, flags|aiori.Create)
}

// Open opens path, which must exist unless flags include Create. Flags
// map to open(2) flags as for Create.
func (b *Backend) Open(path string, flags aiori.OpenFlags) (aiori.File, error) {
	return b.open("open", path, flags)
}

func (b *Backend) open(op, path string, flags aiori.OpenFlags) (*File, error) {
	f, err := b.openItem(op, path, flags)
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// openError words a failed open(2) of path; op is "create" or "open".
func openError(op, path string, direct bool, err error) error {
	if direct && err == unix.EINVAL {
		return fmt.Errorf("posix: %s %s with O_DIRECT: %w (the file system may not support direct I/O)", op, path, err)
	}
	return fmt.Errorf("posix: %s %s: %w", op, path, err)
}

// openFlags translates flags to open(2) flags.
func openFlags(flags aiori.OpenFlags, direct bool) (int, error) {
	o, err := flags.UnixFlags()
	if direct {
		o |= unix.O_DIRECT
	}
	return o, err
}

// Close does nothing: the backend holds nothing but open Files, which
// their owners close.
func (b *Backend) Close() error { return nil }

// Sync calls sync(2), which flushes every file system and cannot fail.
func (b *Backend) Sync() error {
	unix.Sync()
	return nil
}

// Statfs reports the capacity of the file system holding path from
// statfs(2). Sizes are in fragments (f_frsize, or f_bsize when that is
// zero), as statvfs(3) and df count them. FreeBytes counts f_bfree, the
// free blocks including those reserved for root, so TotalBytes−FreeBytes
// is df's "Used" column and IOR's "Used FS" percentage, which IOR also
// computes from f_bfree. (df's "Avail" is f_bavail, usually smaller.)
func (b *Backend) Statfs(path string) (aiori.FSInfo, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return aiori.FSInfo{}, fmt.Errorf("posix: statfs %s: %w", path, err)
	}
	unit := uint64(st.Frsize)
	if unit == 0 {
		unit = uint64(st.Bsize)
	}
	return aiori.FSInfo{
		TotalBytes:  st.Blocks * unit,
		FreeBytes:   st.Bfree * unit,
		TotalInodes: st.Files,
		FreeInodes:  st.Ffree,
	}, nil
}

// Mkdir creates the directory path with the permission bits of perm
// (less the umask).
func (b *Backend) Mkdir(path string, perm fs.FileMode) error {
	if err := b.cp.mkdir(path, uint32(perm.Perm())); err != nil {
		return fmt.Errorf("posix: mkdir %s: %w", path, err)
	}
	return nil
}

// Rmdir removes the empty directory path.
func (b *Backend) Rmdir(path string) error {
	if err := b.cp.unlinkat(path, unix.AT_REMOVEDIR); err != nil {
		return fmt.Errorf("posix: rmdir %s: %w", path, err)
	}
	return nil
}

// Rename moves from to to with rename(2), replacing to if it exists.
func (b *Backend) Rename(from, to string) error {
	if err := b.cp.rename(from, to); err != nil {
		return fmt.Errorf("posix: rename %s to %s: %w", from, to, err)
	}
	return nil
}

// Stat describes path with stat(2), following symbolic links.
func (b *Backend) Stat(path string) (aiori.FileInfo, error) {
	var st unix.Stat_t
	if err := b.stat(path, &st); err != nil {
		return aiori.FileInfo{}, err
	}
	return fileInfo(&st), nil
}

// stat is stat(2) of path into st, with the error worded.
func (b *Backend) stat(path string, st *unix.Stat_t) error {
	if err := b.cp.stat(path, st); err != nil {
		return fmt.Errorf("posix: stat %s: %w", path, err)
	}
	return nil
}

// Mknod creates the empty regular file path with mknod(2) (S_IFREG, mode
// 0664), without opening it, as mdtest -k does. It fails with an error
// matching fs.ErrExist when path exists.
func (b *Backend) Mknod(path string) error {
	if err := b.cp.mknod(path, unix.S_IFREG|createPerm); err != nil {
		return fmt.Errorf("posix: mknod %s: %w", path, err)
	}
	return nil
}

// fileInfo converts a stat(2) result, as os.Stat does.
func fileInfo(st *unix.Stat_t) aiori.FileInfo {
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	}
	if st.Mode&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return aiori.FileInfo{
		Size:    st.Size,
		Mode:    mode,
		ModTime: time.Unix(st.Mtim.Unix()),
	}
}
