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
	mu  sync.Mutex
	buf []byte
}

// maxPath is the longest path cpath converts itself; longer ones (and
// paths holding a NUL) go through x/sys/unix, which reports them.
const maxPath = 4096

// call runs fn with path as a C string and returns its result. fn must not
// keep the pointer. Calls are serialised; a backend's callers are one
// rank's benchmark loop.
func (c *cpath) call(path string, fn func(p unsafe.Pointer) error) error {
	if len(path) >= maxPath {
		p, err := unix.BytePtrFromString(path)
		if err != nil {
			return err
		}
		return fn(unsafe.Pointer(p))
	}
	if strings.IndexByte(path, 0) >= 0 {
		return unix.EINVAL
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf = append(append(c.buf[:0], path...), 0)
	return fn(unsafe.Pointer(&c.buf[0]))
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

// stat is stat(2) into st. It is a raw system call: the runtime is not
// told the thread may block, which saves its bookkeeping, about 3% of a
// cached stat (mdtest's stat phase, measured with scripts/mdloop.c side by
// side). A stat that does block (a hung NFS server) then holds this
// thread's P, and a garbage collection waits for it; in a benchmark rank,
// whose one goroutine is waiting for that stat anyway, that costs nothing.
func (c *cpath) stat(path string, st *unix.Stat_t) error {
	return c.call(path, func(p unsafe.Pointer) error {
		_, _, e := unix.RawSyscall6(unix.SYS_NEWFSTATAT, atFDCWD, uintptr(p), uintptr(unsafe.Pointer(st)), 0, 0, 0)
		return errno(e)
	})
}

// unlinkat is unlink(2), or rmdir(2) with flags AT_REMOVEDIR.
func (c *cpath) unlinkat(path string, flags int) error {
	return c.call(path, func(p unsafe.Pointer) error {
		_, _, e := unix.Syscall(unix.SYS_UNLINKAT, atFDCWD, uintptr(p), uintptr(flags))
		return errno(e)
	})
}

// mkdir is mkdir(2).
func (c *cpath) mkdir(path string, mode uint32) error {
	return c.call(path, func(p unsafe.Pointer) error {
		_, _, e := unix.Syscall(unix.SYS_MKDIRAT, atFDCWD, uintptr(p), uintptr(mode))
		return errno(e)
	})
}

// open is open(2), retried on EINTR.
func (c *cpath) open(path string, flags int, mode uint32) (fd int, err error) {
	err = c.call(path, func(p unsafe.Pointer) error {
		for {
			r, _, e := unix.Syscall6(unix.SYS_OPENAT, atFDCWD, uintptr(p), uintptr(flags|unix.O_CLOEXEC), uintptr(mode), 0, 0)
			if e == unix.EINTR {
				continue
			}
			fd = int(r)
			return errno(e)
		}
	})
	return fd, err
}
