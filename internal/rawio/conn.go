//go:build linux

package rawio

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Conn reads and writes a nonblocking socket or pipe that the runtime's
// poller serves (a net.Conn, or an *os.File made from a nonblocking
// descriptor) with read(2) and write(2) through unix.RawSyscall, waiting
// in the poller when the call would block, so that no call tells the
// scheduler it may block.
//
// Why: when every goroutine of a process has waited long enough for its
// Ps to go idle, the runtime's sysmon thread sleeps until something wakes
// it, and a goroutine entering or leaving a system call through
// syscall.Syscall is such a wake-up. Sysmon then starts over at its
// shortest period (a 20 µs sleep, about 90 µs a cycle with the timer's
// slack) for 50 cycles before it backs off: about 4.5 ms in which it
// takes the CPU from whatever runs there, every 90 µs. A rank that sent
// the launcher's watchdog its phase report with a plain write after a
// barrier woke its own sysmon, and the launcher that read it woke its;
// with two ranks on two CPUs, both sysmons cut into the ranks' timed
// loops, and mdtest's 1000-item stat phase, 1.5 ms long, ran at 0.62 of a
// C loop's rate (0.91 with the reports off; see scripts/bench-mdtest.sh).
// A raw call on a nonblocking descriptor returns at once, so nothing is
// lost by not telling the scheduler about it.
type Conn struct {
	rc syscall.RawConn
}

// NewConn returns a Conn over c, which must be nonblocking (a net.Conn,
// or an *os.File of a descriptor set O_NONBLOCK before os.NewFile).
func NewConn(c syscall.Conn) (*Conn, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("rawio: raw connection: %w", err)
	}
	return &Conn{rc: rc}, nil
}

// Read reads up to len(p) bytes, waiting in the poller (and under the
// connection's read deadline) until some are there. It returns io.EOF at
// the end of the stream.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		n, errno = rawCall(unix.SYS_READ, fd, p)
		return errno != unix.EAGAIN
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, os.NewSyscallError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of p, waiting in the poller (and under the
// connection's write deadline) while the socket's buffer is full.
func (c *Conn) Write(p []byte) (int, error) {
	done := 0
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for done < len(p) {
			var n int
			n, errno = rawCall(unix.SYS_WRITE, fd, p[done:])
			if errno == unix.EAGAIN {
				return false
			}
			if errno != 0 {
				return true
			}
			done += n
		}
		return true
	})
	switch {
	case err != nil:
		return done, err
	case errno != 0:
		return done, os.NewSyscallError("write", errno)
	}
	return done, nil
}

// rawCall makes a read(2) or write(2) of p on fd, again after EINTR.
func rawCall(trap, fd uintptr, p []byte) (int, syscall.Errno) {
	for {
		r, _, errno := unix.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if errno != unix.EINTR {
			return int(r), errno
		}
	}
}
