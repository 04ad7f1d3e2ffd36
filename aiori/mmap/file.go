package mmap

import (
	"fmt"
	"io"
	"io/fs"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// File is a file opened and mapped by the MMAP backend. Its methods are
// for one goroutine at a time.
type File struct {
	fd       int // -1 once closed
	path     string
	writable bool
	pageSize int
	prot     int  // PROT_READ, plus PROT_WRITE when writable
	advice   int  // MADV_SEQUENTIAL or MADV_RANDOM for each mapping; -1 for none
	dontNeed bool // --mmap.madv_dont_need

	// m is the mapping, from offset 0 of the file; len(m) == cap(m) is a
	// multiple of the page size and may reach past the end of the file.
	// nil while nothing is mapped.
	m []byte
	// size is a lower bound of the file's size: every access stays below
	// min(size, len(m)), since touching a page past the end of the file
	// faults.
	size int64
}

// setup learns the file's size, extends it to expected when that is
// larger, and maps it.
func (f *File) setup(op string, expected int64) error {
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return fmt.Errorf("mmap: %s %s: fstat: %w", op, f.path, err)
	}
	f.size = st.Size
	if expected > f.size {
		if err := unix.Ftruncate(f.fd, expected); err != nil {
			return fmt.Errorf("mmap: %s %s: ftruncate to %d bytes (Hints.ExpectedFileSize): %w", op, f.path, expected, err)
		}
		f.size = expected
	}
	if f.size > 0 {
		if err := f.mapTo(f.size); err != nil {
			return fmt.Errorf("mmap: %s %s: %w", op, f.path, err)
		}
	}
	return nil
}

// mapTo makes the mapping cover at least end bytes: a new mapping of
// exactly that (in whole pages), or the old one grown with mremap(2) to
// twice its length if that is more. It then gives the advice the options
// ask for.
func (f *File) mapTo(end int64) error {
	n := max(end, 2*int64(len(f.m)))
	page := int64(f.pageSize)
	n = (n + page - 1) / page * page
	if n != int64(int(n)) {
		return fmt.Errorf("mapping of %d bytes does not fit in the address space", n)
	}
	var (
		m   []byte
		err error
	)
	if f.m == nil {
		m, err = unix.Mmap(f.fd, 0, int(n), f.prot, unix.MAP_SHARED)
		if err != nil {
			return fmt.Errorf("mmap of %d bytes: %w", n, err)
		}
	} else {
		m, err = unix.Mremap(f.m, int(n), unix.MREMAP_MAYMOVE)
		if err != nil {
			return fmt.Errorf("mremap from %d to %d bytes: %w", len(f.m), n, err)
		}
	}
	f.m = m
	if f.advice >= 0 {
		if err := unix.Madvise(f.m, f.advice); err != nil {
			return fmt.Errorf("madvise %s of %d bytes: %w", adviceName(f.advice), len(f.m), err)
		}
	}
	if f.dontNeed {
		if err := unix.Madvise(f.m, unix.MADV_DONTNEED); err != nil {
			return fmt.Errorf("madvise MADV_DONTNEED of %d bytes: %w", len(f.m), err)
		}
	}
	return nil
}

// adviceName names an madvise advice for messages.
func adviceName(a int) string {
	switch a {
	case unix.MADV_SEQUENTIAL:
		return "MADV_SEQUENTIAL"
	case unix.MADV_RANDOM:
		return "MADV_RANDOM"
	}
	return fmt.Sprint(a)
}

// WriteAt copies p into the mapping at off. A write past the end of the
// file first extends the file to off+len(p) and, if needed, grows the
// mapping. If the copy faults because the file was shortened behind the
// mapping, WriteAt learns the new size and tries once more. Errors read
// "mmap: write PATH at offset N: …".
func (f *File) WriteAt(p []byte, off int64) (int, error) {
	switch {
	case f.fd < 0:
		return 0, fmt.Errorf("mmap: write %s at offset %d: %w", f.path, off, fs.ErrClosed)
	case !f.writable:
		return 0, fmt.Errorf("mmap: write %s at offset %d: file opened read-only: %w", f.path, off, unix.EBADF)
	case off < 0:
		return 0, fmt.Errorf("mmap: write %s at offset %d: %w", f.path, off, unix.EINVAL)
	case len(p) == 0:
		return 0, nil
	}
	end := off + int64(len(p))
	for attempt := 0; ; attempt++ {
		if end > f.size {
			if err := f.extend(p[len(p)-1:], end); err != nil {
				return 0, fmt.Errorf("mmap: write %s at offset %d: extending the file to %d bytes: %w", f.path, off, end, err)
			}
		}
		if end > int64(len(f.m)) {
			if err := f.mapTo(end); err != nil {
				return 0, fmt.Errorf("mmap: write %s at offset %d: %w", f.path, off, err)
			}
		}
		if !guardedCopy(f.m[off:end], p) {
			return len(p), nil
		}
		if err := f.refreshSize(); err != nil || attempt > 0 {
			return 0, fmt.Errorf("mmap: write %s at offset %d: memory fault (file truncated behind the mapping, or file system full): %w", f.path, off, unix.EFAULT)
		}
	}
}

// extend makes the file at least end bytes long by writing last, the
// final byte of the transfer, at end-1 with pwrite(2). Unlike ftruncate,
// this never shortens a file that another writer has extended further.
func (f *File) extend(last []byte, end int64) error {
	for {
		n, err := unix.Pwrite(f.fd, last, end-1)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n != 1:
			return io.ErrShortWrite
		}
		f.size = end
		return nil
	}
}

// ReadAt copies len(p) bytes at off out of the mapping. When the file
// ends first it copies what there is and returns the count and io.EOF.
// A read reaching past the size the File knows asks the kernel for the
// current size first, so it sees what other writers appended; a copy that
// faults because the file was shortened behind the mapping does the same
// and tries once more.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	switch {
	case f.fd < 0:
		return 0, fmt.Errorf("mmap: read %s at offset %d: %w", f.path, off, fs.ErrClosed)
	case off < 0:
		return 0, fmt.Errorf("mmap: read %s at offset %d: %w", f.path, off, unix.EINVAL)
	case len(p) == 0:
		return 0, nil
	}
	end := off + int64(len(p))
	for attempt := 0; ; attempt++ {
		if end > f.size {
			if err := f.refreshSize(); err != nil {
				return 0, fmt.Errorf("mmap: read %s at offset %d: %w", f.path, off, err)
			}
		}
		avail := min(end, f.size)
		if off >= avail {
			return 0, io.EOF
		}
		if avail > int64(len(f.m)) {
			if err := f.mapTo(avail); err != nil {
				return 0, fmt.Errorf("mmap: read %s at offset %d: %w", f.path, off, err)
			}
		}
		n := int(avail - off)
		if !guardedCopy(p[:n], f.m[off:avail]) {
			if n < len(p) {
				return n, io.EOF
			}
			return n, nil
		}
		if err := f.refreshSize(); err != nil || attempt > 0 {
			return 0, fmt.Errorf("mmap: read %s at offset %d: memory fault (file truncated behind the mapping): %w", f.path, off, unix.EFAULT)
		}
	}
}

// refreshSize sets size to the file's current size: another writer may
// have extended the file, or shortened it.
func (f *File) refreshSize() error {
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return fmt.Errorf("fstat: %w", err)
	}
	f.size = st.Size
	return nil
}

// guardedCopy copies src to dst and reports a memory fault in either
// instead of letting it crash the program.
func guardedCopy(dst, src []byte) (faulted bool) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			faulted = true
		}
	}()
	copy(dst, src)
	return false
}

// Fsync writes the mapping back with msync(2) MS_SYNC, which on Linux
// also flushes the file's metadata, and then advises MADV_DONTNEED when
// --mmap.madv_dont_need is set. With nothing mapped it calls fsync(2).
func (f *File) Fsync() error {
	if f.fd < 0 {
		return fmt.Errorf("mmap: fsync %s: %w", f.path, fs.ErrClosed)
	}
	if f.m == nil {
		if err := unix.Fsync(f.fd); err != nil {
			return fmt.Errorf("mmap: fsync %s: %w", f.path, err)
		}
		return nil
	}
	if err := unix.Msync(f.m, unix.MS_SYNC); err != nil {
		return fmt.Errorf("mmap: fsync %s: msync of %d bytes: %w", f.path, len(f.m), err)
	}
	if f.dontNeed {
		if err := unix.Madvise(f.m, unix.MADV_DONTNEED); err != nil {
			return fmt.Errorf("mmap: fsync %s: madvise MADV_DONTNEED of %d bytes: %w", f.path, len(f.m), err)
		}
	}
	return nil
}

// Close unmaps the file and closes it. Closing again returns an error
// wrapping fs.ErrClosed.
func (f *File) Close() error {
	if f.fd < 0 {
		return fmt.Errorf("mmap: close %s: %w", f.path, fs.ErrClosed)
	}
	var first error
	if f.m != nil {
		if err := unix.Munmap(f.m); err != nil {
			first = fmt.Errorf("mmap: close %s: munmap of %d bytes: %w", f.path, len(f.m), err)
		}
		f.m = nil
	}
	fd := f.fd
	f.fd = -1
	if err := unix.Close(fd); err != nil && first == nil {
		first = fmt.Errorf("mmap: close %s: %w", f.path, err)
	}
	return first
}

// Path returns the path the file was opened with.
func (f *File) Path() string { return f.path }
