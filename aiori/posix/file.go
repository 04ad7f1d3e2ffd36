package posix

import (
	"fmt"
	"io"
	"io/fs"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/rawio"
	"golang.org/x/sys/unix"
)

// File is a file opened by the POSIX backend: a file descriptor. Its
// methods are for one goroutine at a time.
type File struct {
	fd         int // -1 once closed
	path       string
	direct     bool // opened with O_DIRECT
	rangeLocks bool // --posix.rangelocks
	single     bool // Hints.SingleXferAttempt when opened

	// lk is the argument of the range-lock fcntl calls, kept here so that
	// taking its address does not allocate.
	lk unix.Flock_t
}

// Transfer operations, as error messages name them.
const (
	opRead  = "read"
	opWrite = "write"
)

// rwFunc is pread or pwrite (or a fake in tests).
type rwFunc func(fd int, p []byte, off int64) (int, error)

// WriteAt writes p at off with pwrite(2), repeating the call for the rest
// of p after a short write, unless Hints.SingleXferAttempt was set when
// the file was opened, and after EINTR (which transferred nothing). It
// returns len(p), nil or the count written and an error
// "posix: write PATH at offset N: …" wrapping the unix.Errno, or
// io.ErrShortWrite for a short write that is not retried.
func (f *File) WriteAt(p []byte, off int64) (int, error) {
	if f.fd >= 0 && !f.rangeLocks && len(p) > 0 {
		// The common case in one call, with pwrite inlined: a whole
		// transfer in one system call. A 4 KiB page-cache transfer
		// takes about 0.6 µs, and the calls down to the trap were a
		// tenth of it.
		n, err := rawio.Pwrite(f.fd, p, off)
		if err == nil && n == len(p) {
			return n, nil
		}
		return f.transferFrom(opWrite, rawio.Pwrite, p, off, n, err)
	}
	return f.xfer(opWrite, unix.F_WRLCK, rawio.Pwrite, p, off)
}

// ReadAt reads len(p) bytes at off with pread(2), retrying as WriteAt
// does. At the end of the file it returns the count read and io.EOF
// itself, as io.ReaderAt asks; a short read that is not retried
// (SingleXferAttempt) is an error wrapping io.ErrUnexpectedEOF.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if f.fd >= 0 && !f.rangeLocks && len(p) > 0 {
		// As in WriteAt.
		n, err := rawio.Pread(f.fd, p, off)
		if err == nil && n == len(p) {
			return n, nil
		}
		return f.transferFrom(opRead, rawio.Pread, p, off, n, err)
	}
	return f.xfer(opRead, unix.F_RDLCK, rawio.Pread, p, off)
}

// xfer runs one transfer, under a range lock of type lockType when
// --posix.rangelocks is set.
func (f *File) xfer(op string, lockType int16, fn rwFunc, p []byte, off int64) (int, error) {
	if f.fd < 0 {
		return 0, fmt.Errorf("posix: %s %s at offset %d: %w", op, f.path, off, fs.ErrClosed)
	}
	if !f.rangeLocks || len(p) == 0 {
		return f.transfer(op, fn, p, off)
	}
	if err := f.lock(lockType, off, int64(len(p))); err != nil {
		return 0, fmt.Errorf("posix: %s %s at offset %d: range lock of %d bytes: %w", op, f.path, off, len(p), err)
	}
	n, err := f.transfer(op, fn, p, off)
	if uerr := f.lock(unix.F_UNLCK, off, int64(len(p))); uerr != nil && (err == nil || err == io.EOF) {
		err = fmt.Errorf("posix: %s %s at offset %d: range unlock of %d bytes: %w", op, f.path, off, len(p), uerr)
	}
	return n, err
}

// transfer calls fn until all of p is transferred, the file ends (reads)
// or fn fails.
func (f *File) transfer(op string, fn rwFunc, p []byte, off int64) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := fn(f.fd, p, off)
	return f.transferFrom(op, fn, p, off, n, err)
}

// transferFrom goes on with a transfer whose first call of fn, for all of
// p, returned n and err: it takes that result as transfer's loop does, and
// calls fn again while the loop would.
func (f *File) transferFrom(op string, fn rwFunc, p []byte, off int64, n int, err error) (int, error) {
	done := 0
	for first := true; done < len(p); first = false {
		if !first {
			n, err = fn(f.fd, p[done:], off+int64(done))
		}
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return done, f.xferError(op, off, done, len(p), err)
		case n == 0 && op == opRead:
			return done, io.EOF
		case n == 0:
			return done, f.xferError(op, off, done, len(p), io.ErrShortWrite)
		}
		done += n
		if done < len(p) && f.single {
			short := io.ErrShortWrite
			if op == opRead {
				short = io.ErrUnexpectedEOF
			}
			return done, fmt.Errorf("posix: %s %s at offset %d: %d of %d bytes in a single attempt (SingleXferAttempt): %w",
				op, f.path, off, done, len(p), short)
		}
	}
	return done, nil
}

// xferError words a failed transfer of size bytes at off after done bytes.
func (f *File) xferError(op string, off int64, done, size int, err error) error {
	hint := ""
	if f.direct && err == unix.EINVAL {
		hint = fmt.Sprintf(" (O_DIRECT needs buffer address, offset and length aligned to %d bytes)", aiori.Align)
	}
	if done == 0 {
		return fmt.Errorf("posix: %s %s at offset %d: %w%s", op, f.path, off, err, hint)
	}
	return fmt.Errorf("posix: %s %s at offset %d: after %d of %d bytes: %w%s", op, f.path, off, done, size, err, hint)
}

// lock sets (or, with unix.F_UNLCK, clears) an open-file-description lock
// on n bytes at off, waiting for conflicting locks.
func (f *File) lock(typ int16, off, n int64) error {
	cmd := unix.F_OFD_SETLKW
	if typ == unix.F_UNLCK {
		cmd = unix.F_OFD_SETLK
	}
	f.lk = unix.Flock_t{Type: typ, Whence: io.SeekStart, Start: off, Len: n}
	for {
		err := unix.FcntlFlock(uintptr(f.fd), cmd, &f.lk)
		if err != unix.EINTR {
			return err
		}
	}
}

// Fsync flushes the file's data and metadata with fsync(2).
func (f *File) Fsync() error {
	if f.fd < 0 {
		return fmt.Errorf("posix: fsync %s: %w", f.path, fs.ErrClosed)
	}
	for {
		err := unix.Fsync(f.fd)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("posix: fsync %s: %w", f.path, err)
		}
		return nil
	}
}

// Close closes the file descriptor. Closing again returns an error
// wrapping fs.ErrClosed and touches no descriptor.
func (f *File) Close() error {
	if f.fd < 0 {
		return fmt.Errorf("posix: close %s: %w", f.path, fs.ErrClosed)
	}
	fd := f.fd
	f.fd = -1
	// No retry on EINTR: Linux releases the descriptor whatever close
	// returns, and another goroutine may already have reused the number.
	if err := unix.Close(fd); err != nil {
		return fmt.Errorf("posix: close %s: %w", f.path, err)
	}
	return nil
}

// Path returns the path the file was opened with.
func (f *File) Path() string { return f.path }
