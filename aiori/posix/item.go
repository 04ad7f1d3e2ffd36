package posix

import (
	"fmt"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/rawio"
	"golang.org/x/sys/unix"
)

// CreateItem creates path as Create(path, WriteOnly|Create) does, writes
// data at offset 0 as WriteAt does, and closes the file: mdtest's file
// create (open, write, close) in one call. Unlike Create it makes no File,
// so it allocates nothing, and its system calls are raw ones (cpath.go
// says what that saves and what it risks). With
// --posix.rangelocks the write is locked as WriteAt's is; errors are those
// Create, WriteAt and Close return.
func (b *Backend) CreateItem(path string, data []byte) error {
	f, err := b.openItem("create", path, aiori.WriteOnly|aiori.Create)
	if err != nil {
		return err
	}
	if len(data) > 0 {
		if _, err := f.xfer(opWrite, unix.F_WRLCK, rawio.Pwrite, data, 0); err != nil {
			_ = rawClose(f.fd)
			return err
		}
	}
	return f.closeItem()
}

// ReadItem opens path as Open(path, ReadOnly) does, reads len(buf) bytes
// at offset 0 into buf as ReadAt does (at the end of the file it returns
// the count read and io.EOF), and closes the file: mdtest's file read in
// one call, allocating nothing, with raw system calls, as CreateItem.
func (b *Backend) ReadItem(path string, buf []byte) (int, error) {
	f, err := b.openItem("open", path, aiori.ReadOnly)
	if err != nil {
		return 0, err
	}
	var n int
	if len(buf) > 0 {
		n, err = f.xfer(opRead, unix.F_RDLCK, rawio.Pread, buf, 0)
	}
	// A failed read's error says more than a failed close's.
	if cerr := f.closeItem(); err == nil {
		err = cerr
	}
	return n, err
}

// StatItem is Stat without the FileInfo, for mdtest's stat phases, which
// only check that stat(2) succeeds.
func (b *Backend) StatItem(path string) error {
	var st unix.Stat_t
	return b.stat(path, &st)
}

// openItem opens path with open(2) into a File the caller may keep on its
// stack (open, for Create and Open, puts it on the heap); O_DIRECT comes
// from --posix.odirect or the Direct flag.
func (b *Backend) openItem(op, path string, flags aiori.OpenFlags) (File, error) {
	direct := b.opts.ODirect || flags&aiori.Direct != 0
	oflags, err := openFlags(flags, direct)
	if err != nil {
		return File{}, fmt.Errorf("posix: %s %s: %w", op, path, err)
	}
	fd, err := b.cp.open(path, oflags, createPerm)
	if err != nil {
		return File{}, openError(op, path, direct, err)
	}
	return File{
		fd:         fd,
		path:       path,
		direct:     direct,
		rangeLocks: b.opts.RangeLocks,
		single:     b.single.Load(),
	}, nil
}

// closeItem closes f's descriptor as Close does, with a raw system call.
func (f *File) closeItem() error {
	if err := rawClose(f.fd); err != nil {
		return fmt.Errorf("posix: close %s: %w", f.path, err)
	}
	return nil
}

// rawClose is close(2) as a raw system call, not retried on EINTR (see
// File.Close).
func rawClose(fd int) error {
	_, _, e := unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0)
	return errno(e)
}
