package posix

import (
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// cpath turns path names into the NUL-terminated bytes system calls take
// without allocating: x/sys/unix allocates a copy of every path, and in
// mdtest's timed loops (a stat is about 1.5 µs) that copy and the garbage
// collection it brings on cost a tenth of the rate, more with two ranks on
// two CPUs, where the collector's worker takes the other rank's CPU.
type cpath struct {
	mu   sync.Mutex
	bufs [2][]byte // two paths at most per call (rename)
}

// maxPath is the longest path cpath converts itself; longer ones (and
// paths holding a NUL) go through x/sys/unix, which reports them.
const maxPath = 4096

// put returns path as a C string in bufs[i]; c.mu is held.
func (c *cpath) put(i int, path string) (unsafe.Pointer, error) {
	if len(path) >= maxPath {
		p, err := unix.BytePtrFromString(path)
		return unsafe.Pointer(p), err
	}
	if strings.IndexByte(path, 0) >= 0 {
		return nil, unix.EINVAL
	}
	c.bufs[i] = append(append(c.bufs[i][:0], path...), 0)
	return unsafe.Pointer(&c.bufs[i][0]), nil
}

// call runs fn with path as a C string and returns its result. fn must not
// keep the pointer. Calls are serialised; a backend's callers are one
// rank's benchmark loop.
func (c *cpath) call(path string, fn func(p unsafe.Pointer) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, err := c.put(0, path)
	if err != nil {
		return err
	}
	return fn(p)
}

// call2 is call for two paths.
func (c *cpath) call2(a, b string, fn func(pa, pb unsafe.Pointer) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	pa, err := c.put(0, a)
	if err != nil {
		return err
	}
	pb, err := c.put(1, b)
	if err != nil {
		return err
	}
	return fn(pa, pb)
}

// errno returns e as an error, nil for 0, without allocating.
func errno(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// atFDCWD is AT_FDCWD as a system call argument.
var atFDCWD = func() uintptr { fd := unix.AT_FDCWD; return uintptr(fd) }()

// The calls below are raw system calls: the runtime is not told the
// thread may block. That saves its bookkeeping (entersyscall and
// exitsyscall, 3% of a cached stat, more of an open, write and close),
// and, more, it keeps the runtime's sysmon thread quiet: it wakes every
// 20 µs while it finds calls it can take a P from, which one slow call in
// a few thousand (the thread descheduled in the kernel) is enough for, and
// each of its wake-ups takes a CPU from a rank on a loaded host. A call
// that does block (a hung NFS server) then holds this thread's P, and a
// garbage collection waits for it; in a benchmark rank, whose one
// goroutine is waiting for that call anyway, that costs nothing.

// stat is stat(2) into st.
func (c *cpath) stat(path string, st *unix.Stat_t) error {
	return c.call(path, func(p unsafe.Pointer) error {
		_, _, e := unix.RawSyscall6(unix.SYS_NEWFSTATAT, atFDCWD, uintptr(p), uintptr(unsafe.Pointer(st)), 0, 0, 0)
		return errno(e)
	})
}

// unlinkat is unlink(2), or rmdir(2) with flags AT_REMOVEDIR.
func (c *cpath) unlinkat(path string, flags int) error {
	return c.call(path, func(p unsafe.Pointer) error {
		_, _, e := unix.RawSyscall(unix.SYS_UNLINKAT, atFDCWD, uintptr(p), uintptr(flags))
		return errno(e)
	})
}

// mkdir is mkdir(2).
func (c *cpath) mkdir(path string, mode uint32) error {
	return c.call(path, func(p unsafe.Pointer) error {
		_, _, e := unix.RawSyscall(unix.SYS_MKDIRAT, atFDCWD, uintptr(p), uintptr(mode))
		return errno(e)
	})
}

// open is open(2) with O_CLOEXEC, retried on EINTR.
func (c *cpath) open(path string, flags int, mode uint32) (fd int, err error) {
	err = c.call(path, func(p unsafe.Pointer) error {
		for {
			r, _, e := unix.RawSyscall6(unix.SYS_OPENAT, atFDCWD, uintptr(p), uintptr(flags|unix.O_CLOEXEC), uintptr(mode), 0, 0)
			if e == unix.EINTR {
				continue
			}
			fd = int(r)
			return errno(e)
		}
	})
	return fd, err
}

// rename is rename(2).
func (c *cpath) rename(from, to string) error {
	return c.call2(from, to, func(pf, pt unsafe.Pointer) error {
		_, _, e := unix.RawSyscall6(unix.SYS_RENAMEAT, atFDCWD, uintptr(pf), atFDCWD, uintptr(pt), 0, 0)
		return errno(e)
	})
}

// mknod is mknod(2) of a regular file.
func (c *cpath) mknod(path string, mode uint32) error {
	return c.call(path, func(p unsafe.Pointer) error {
		_, _, e := unix.RawSyscall6(unix.SYS_MKNODAT, atFDCWD, uintptr(p), uintptr(mode), 0, 0, 0)
		return errno(e)
	})
}
