//go:build linux

package shm

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// wake is a process's wake-up eventfd (see Waiting in the package doc):
// one goroutine at a time may sleep on it in the Go runtime's poller
// instead of in futex(2), and the peers of every Conn write it to wake
// that goroutine.
//
// Why: a goroutine that blocks in a system call makes the runtime wake its
// sysmon thread to take the P away, and again when the call returns. On a
// crowded host every message costs a sleep and a wake-up, and those two
// extra thread wake-ups doubled each one's cost: a 256-process token ring
// on 2 CPUs took 90-120 µs a hop sleeping in futex(2), 30-55 µs sleeping
// here, and 15-40 µs in C. A goroutine parked in the poller blocks no
// system call: the last idle thread waits in epoll_wait, and the write
// wakes it directly.
type wake struct {
	f  *os.File // nonblocking: the runtime's poller waits on it
	rc syscall.RawConn
	fd int // f's descriptor, which peers receive at set-up

	// busy is held by the goroutine sleeping on f. The others sleep in
	// futex(2): two readers of one eventfd would steal each other's
	// wake-ups.
	busy atomic.Bool
	// until is f's read deadline, which only busy's holder reads and
	// moves (see sleep).
	until time.Time
}

// newWake makes a process's wake-up eventfd.
func newWake() (*wake, error) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "shm-wake")
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	return &wake{f: f, rc: rc, fd: fd}, nil
}

// acquire makes the caller the goroutine that sleeps on w, if no other is;
// it reports whether it did. A nil w is never acquired.
func (w *wake) acquire() bool {
	return w != nil && w.busy.CompareAndSwap(false, true)
}

// release ends the caller's turn on w.
func (w *wake) release() { w.busy.Store(false) }

// sleep blocks until w is written or, at the latest, d has passed (at the
// earliest d/2). It returns at once if w was written since the last
// sleep; the caller re-checks its condition either way. Only the goroutine
// that acquired w may call it.
//
// The deadline, a runtime timer, moves only when less than d/2 of it is
// left, not on every sleep (see wakeSlice).
func (w *wake) sleep(d time.Duration) {
	if now := time.Now(); w.until.Sub(now) < d/2 {
		w.until = now.Add(d)
		if err := w.f.SetReadDeadline(w.until); err != nil {
			time.Sleep(time.Millisecond) // cannot happen for an open eventfd; never spin
			return
		}
	}
	var count [8]byte
	_ = w.rc.Read(func(fd uintptr) bool {
		// A raw read: a Syscall would wake sysmon, which is what this avoids.
		_, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&count[0])), uintptr(len(count)))
		return e != unix.EAGAIN
	})
}

// signalFD adds one to the eventfd fd (this process's wake or a peer's),
// waking whoever sleeps on it. A negative fd is no eventfd: nothing to do.
func signalFD(fd int) {
	if fd < 0 {
		return
	}
	one := uint64(1)
	// Raw: writing an eventfd never blocks, and a Syscall would wake sysmon.
	_, _, _ = unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&one)), 8)
}

// errNotEventfd is returned by checkEventfd for a descriptor of another kind.
var errNotEventfd = errors.New("not an eventfd")

// checkEventfd makes sure fd, received from a peer, is an eventfd, so that
// signalFD never writes 8 bytes into anything else.
func checkEventfd(fd int) error {
	link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil {
		return fmt.Errorf("checking the peer's wake-up descriptor: %w", err)
	}
	if link != "anon_inode:[eventfd]" {
		return fmt.Errorf("the peer's wake-up descriptor is %q: %w", link, errNotEventfd)
	}
	return nil
}
