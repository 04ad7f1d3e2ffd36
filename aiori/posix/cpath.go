package posix

import (
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// cpath turns path names into the NUL-terminated bytes system calls take
// without allocating: x/sys/unix allocates a copy of every path, and in
// mdtest's timed loops (a stat is about 1.5 µs) that copy and the garbage
// collection it brings on cost a tenth of the rate, more with two ranks on
// two CPUs, where the collector's worker takes the other rank's CPU.
//
// A path shorter than shortPath is copied into an array on the caller's
// stack; a longer one into one of two buffers under a lock (the lock's two
// atomic operations were 3% of a cached stat).
type cpath struct {
	mu   sync.Mutex
	bufs [2][]byte // two paths at most per call (rename)
}

// shortPath is the size of the stack array short paths are copied into,
// their NUL included: mdtest's paths, but those of deep trees, fit.
const shortPath = 256

// maxPath is the longest path cpath converts itself; longer ones go
// through x/sys/unix, which reports them.
const maxPath = 4096

// cstr returns path as a C string: in *stack when it fits, else in
// c.bufs[i], taking c.mu first unless *locked says it is held (the caller
// then calls c.release(*locked) once the system call is done). A path
// holding a NUL is EINVAL, as x/sys/unix makes it.
func (c *cpath) cstr(stack *[shortPath]byte, i int, path string, locked *bool) (*byte, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return nil, unix.EINVAL
	}
	if len(path) < shortPath {
		copy(stack[:], path)
		stack[len(path)] = 0
		return &stack[0], nil
	}
	if len(path) >= maxPath {
		return unix.BytePtrFromString(path)
	}
	if !*locked {
		c.mu.Lock()
		*locked = true
	}
	c.bufs[i] = append(append(c.bufs[i][:0], path...), 0)
	return &c.bufs[i][0], nil
}

// release drops c.mu if cstr took it.
func (c *cpath) release(locked bool) {
	if locked {
		c.mu.Unlock()
	}
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
//
// They call syscall.RawSyscall6 directly, with the path's address
// converted in the call itself: the function is nosplit and keeps its
// uintptr arguments alive, so the stack array the path may be in neither
// moves nor escapes to the heap.

// stat is stat(2) into st.
func (c *cpath) stat(path string, st *unix.Stat_t) error {
	var stack [shortPath]byte
	var locked bool
	p, err := c.cstr(&stack, 0, path, &locked)
	if err != nil {
		return err
	}
	_, _, e := syscall.RawSyscall6(unix.SYS_NEWFSTATAT, atFDCWD, uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(st)), 0, 0, 0)
	c.release(locked)
	return errno(e)
}

// unlinkat is unlink(2), or rmdir(2) with flags AT_REMOVEDIR.
func (c *cpath) unlinkat(path string, flags int) error {
	var stack [shortPath]byte
	var locked bool
	p, err := c.cstr(&stack, 0, path, &locked)
	if err != nil {
		return err
	}
	_, _, e := syscall.RawSyscall6(unix.SYS_UNLINKAT, atFDCWD, uintptr(unsafe.Pointer(p)), uintptr(flags), 0, 0, 0)
	c.release(locked)
	return errno(e)
}

// mkdir is mkdir(2).
func (c *cpath) mkdir(path string, mode uint32) error {
	var stack [shortPath]byte
	var locked bool
	p, err := c.cstr(&stack, 0, path, &locked)
	if err != nil {
		return err
	}
	_, _, e := syscall.RawSyscall6(unix.SYS_MKDIRAT, atFDCWD, uintptr(unsafe.Pointer(p)), uintptr(mode), 0, 0, 0)
	c.release(locked)
	return errno(e)
}

// open is open(2) with O_CLOEXEC, retried on EINTR.
func (c *cpath) open(path string, flags int, mode uint32) (int, error) {
	var stack [shortPath]byte
	var locked bool
	p, err := c.cstr(&stack, 0, path, &locked)
	if err != nil {
		return -1, err
	}
	for {
		r, _, e := syscall.RawSyscall6(unix.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(p)), uintptr(flags|unix.O_CLOEXEC), uintptr(mode), 0, 0)
		if e != unix.EINTR {
			c.release(locked)
			return int(r), errno(e)
		}
	}
}

// rename is rename(2).
func (c *cpath) rename(from, to string) error {
	var sf, st [shortPath]byte
	var locked bool
	pf, err := c.cstr(&sf, 0, from, &locked)
	var pt *byte
	if err == nil {
		pt, err = c.cstr(&st, 1, to, &locked)
	}
	if err != nil {
		c.release(locked)
		return err
	}
	_, _, e := syscall.RawSyscall6(unix.SYS_RENAMEAT, atFDCWD, uintptr(unsafe.Pointer(pf)), atFDCWD, uintptr(unsafe.Pointer(pt)), 0, 0)
	c.release(locked)
	return errno(e)
}

// mknod is mknod(2) of a regular file.
func (c *cpath) mknod(path string, mode uint32) error {
	var stack [shortPath]byte
	var locked bool
	p, err := c.cstr(&stack, 0, path, &locked)
	if err != nil {
		return err
	}
	_, _, e := syscall.RawSyscall6(unix.SYS_MKNODAT, atFDCWD, uintptr(unsafe.Pointer(p)), uintptr(mode), 0, 0, 0)
	c.release(locked)
	return errno(e)
}
