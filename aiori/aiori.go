package aiori

import (
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// ErrNotSupported reports an operation the backend does not implement, such
// as Fsync on a backend with nothing to flush. Check with errors.Is.
var ErrNotSupported = errors.New("operation not supported by this backend")

// OpenFlags say how Create and Open open a file, as IOR's IOR_* flags do.
type OpenFlags uint32

// The open flags. Exactly one of ReadOnly, WriteOnly and ReadWrite is set.
const (
	// ReadOnly opens for reading only.
	ReadOnly OpenFlags = 1 << iota
	// WriteOnly opens for writing only.
	WriteOnly
	// ReadWrite opens for reading and writing.
	ReadWrite
	// Create creates the file when it does not exist (Create always does).
	Create
	// Excl fails when the file exists already.
	Excl
	// Trunc truncates an existing file to zero length.
	Trunc
	// Direct bypasses the page cache (O_DIRECT); buffers, offsets and
	// lengths must then be aligned (see Align).
	Direct
)

// Align is the alignment of buffers, offsets and lengths that Direct I/O
// needs; AlignedBuffer returns buffers aligned to it.
const Align = 4096

// File is an open file of a backend. WriteAt and ReadAt transfer the whole
// of p at off or return an error, as io.WriterAt and io.ReaderAt do; a
// backend retries short transfers itself unless Hints.SingleXferAttempt is
// set. A File is used by one goroutine at a time.
type File interface {
	// WriteAt writes len(p) bytes at off and returns how many it wrote.
	WriteAt(p []byte, off int64) (int, error)
	// ReadAt reads len(p) bytes at off and returns how many it read; at
	// the end of the file it returns the count read and io.EOF.
	ReadAt(p []byte, off int64) (int, error)
	// Fsync flushes the file's data to stable storage, or returns an
	// error wrapping ErrNotSupported.
	Fsync() error
	// Close closes the file; the File is unusable afterwards.
	Close() error
}

// Backend is one I/O interface: POSIX, MMAP, DUMMY, an object store. Paths
// are the backend's own names (file paths for POSIX, object names for a
// store). Errors are wrapped with the operation and path and keep the
// underlying error reachable (errors.Is(err, fs.ErrNotExist) works).
type Backend interface {
	// Name is the registry name, as IOR prints it after "api".
	Name() string
	// Version describes the backend's underlying library for IOR's
	// "apiVersion" line; empty when there is nothing to say.
	Version() string
	// Create creates (or truncates, with Trunc) and opens path.
	Create(path string, flags OpenFlags) (File, error)
	// Open opens an existing path.
	Open(path string, flags OpenFlags) (File, error)
	// Remove deletes the file at path.
	Remove(path string) error
	// Access returns nil when path exists and an error wrapping
	// fs.ErrNotExist when it does not.
	Access(path string) error
	// FileSize returns the size of the file at path in bytes.
	FileSize(path string) (int64, error)
	// Close releases what New acquired (connections, mounts). The
	// Backend is unusable afterwards.
	Close() error
}

// Hints describe the coming access pattern, as IOR's xfer_hints do, so a
// backend can size mappings, stripe objects or pick a protocol.
type Hints struct {
	// Rank and NumTasks place this process in the job.
	Rank, NumTasks int
	// NumNodes is the number of hosts in the job.
	NumNodes int
	// FilePerProc is set when every rank has its own file.
	FilePerProc bool
	// RandomOffset is set when offsets are not sequential.
	RandomOffset bool
	// FsyncPerWrite is set when every write is followed by Fsync.
	FsyncPerWrite bool
	// SingleXferAttempt is set when short transfers must not be retried.
	SingleXferAttempt bool
	// SegmentCount, BlockSize and TransferSize are IOR's -s, -b and -t.
	SegmentCount, BlockSize, TransferSize int64
	// ExpectedFileSize is the size each file will have once written:
	// segments × block × tasks for a shared file, segments × block per
	// file with FilePerProc.
	ExpectedFileSize int64
}

// Hinter is implemented by backends that use Hints. The engine calls
// SetHints before it creates or opens files for a phase.
type Hinter interface {
	SetHints(h Hints)
}

// TransferChecker is implemented by backend options that constrain the
// sizes of a run's transfers (POSIX's --posix.odirect: O_DIRECT needs
// 4 KiB-aligned ones). IOR checks them with the other options, before
// any work, so that a run the backend would fail at its first write is
// refused instead.
type TransferChecker interface {
	CheckTransfer(block, transfer int64) error
}

// Syncer is implemented by backends that can flush everything they hold
// (mdtest -Y, IOR's sync).
type Syncer interface {
	Sync() error
}

// Describer is implemented by backends with facts about where a run's data
// went (DFS: the pool's targets, the object class, the chunk size, the
// engine), for the run record, so that a comparison across runs knows what
// it compares. Keys are the backend's lower-case name, a dot and the fact
// ("dfs.oclass"). Describe still answers after Close.
type Describer interface {
	Describe() map[string]string
}

// BufferAllocator is implemented by backends that move data faster from
// and into buffers they hand out (DFS: its transport's shared arena, which
// the engine's side copies from once). IOR takes its transfer buffer from
// AllocBuffer when the backend has it, and gives it back with FreeBuffer
// before Close.
type BufferAllocator interface {
	AllocBuffer(n int) []byte
	FreeBuffer(b []byte)
}

// FSInfo is a file system's capacity, for IOR's and mdtest's "FS" line.
type FSInfo struct {
	// TotalBytes and FreeBytes are the capacity and what is left of it.
	TotalBytes, FreeBytes uint64
	// TotalInodes and FreeInodes count file slots; zero when unknown.
	TotalInodes, FreeInodes uint64
}

// Figures returns the four figures of IOR's and mdtest's FS line, as
// their ShowFileSystemSize prints them: the capacity in GiB, the share
// used, the inodes in Mi and the share of them used ("0.0 Mi" and "0.0%"
// when the file system counts none). The used shares count free blocks
// (f_bfree), as IOR does and df's Used column does, for every backend.
func (fi FSInfo) Figures() (capacity, used, inodes, usedInodes string) {
	capacity = fmt.Sprintf("%.1f GiB", float64(fi.TotalBytes)/(1<<30))
	used = fmt.Sprintf("%.1f%%", share(fi.TotalBytes, fi.FreeBytes))
	inodes = fmt.Sprintf("%.1f Mi", float64(fi.TotalInodes)/(1<<20))
	usedInodes = fmt.Sprintf("%.1f%%", share(fi.TotalInodes, fi.FreeInodes))
	return capacity, used, inodes, usedInodes
}

// share is the percentage of total not free, 0 when total is.
func share(total, free uint64) float64 {
	if total == 0 || free > total {
		return 0
	}
	return 100 * float64(total-free) / float64(total)
}

// Statfser is implemented by backends that can report capacity.
type Statfser interface {
	Statfs(path string) (FSInfo, error)
}

// FileInfo is what Stat reports about a path.
type FileInfo struct {
	// Size is the length in bytes.
	Size int64
	// Mode has fs.ModeDir set for a directory.
	Mode fs.FileMode
	// ModTime is the last modification time, zero when unknown.
	ModTime time.Time
}

// IsDir reports whether the path is a directory.
func (fi FileInfo) IsDir() bool { return fi.Mode.IsDir() }

// Lister is implemented by backends whose namespace can be listed: IO500's
// find walks the data dir with it.
type Lister interface {
	// ReadDir calls fn with the name of every entry of directory path
	// ("." and ".." left out), in the backend's order, and whether it is a
	// directory. name is valid only during the call (copy it to keep it).
	ReadDir(path string, fn func(name []byte, dir bool)) error
}

// Metadata is implemented by backends that mdtest can drive: a namespace of
// directories and files. Errors wrap the operation, the path and the
// underlying error (a syscall.Errno for POSIX).
type Metadata interface {
	// Mkdir creates the directory path with permission perm.
	Mkdir(path string, perm fs.FileMode) error
	// Rmdir removes the empty directory path.
	Rmdir(path string) error
	// Rename moves from to to.
	Rename(from, to string) error
	// Stat describes path.
	Stat(path string) (FileInfo, error)
	// Mknod creates an empty regular file without opening it (mdtest -k).
	Mknod(path string) error
}
