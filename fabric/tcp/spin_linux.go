//go:build linux

package tcp

import (
	"io"
	"net"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// spinSupported reports whether this platform has the busy-poll.
const spinSupported = true

// spinRead tries to read into p without parking: it calls read(2) on the
// nonblocking socket in a loop until bytes arrive, the stream ends, the
// socket fails, or the busy-poll budget runs out. ok is false when it read
// nothing and saw nothing (budget spent, the Recv's context ended or is
// past its deadline, Close ran, or the socket refused raw access): the
// caller then reads the ordinary way, which parks and reports deadlines and
// Close exactly as without the busy-poll.
func (c *conn) spinRead(p []byte) (n int, err error, ok bool) {
	s := &c.sp
	s.p, s.res = p, spinNothing
	rerr := c.rc.Read(c.spinFn)
	s.p = nil
	if rerr != nil || s.res == spinNothing {
		return 0, nil, false
	}
	switch {
	case s.errno != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.nc.LocalAddr(), Addr: c.nc.RemoteAddr(),
			Err: os.NewSyscallError("read", s.errno)}, true
	case s.n == 0:
		return 0, io.EOF, true
	}
	return s.n, nil, true
}

// spinPoll is spinRead's callback to syscall.RawConn.Read, made once per
// conn (as spinFn) so that passing it allocates nothing. It always returns
// true: when the budget runs out it does not park but lets spinRead fall
// back to the ordinary read.
func (c *conn) spinPoll(fd uintptr) bool {
	s := &c.sp
	s.start = time.Now()
	end := s.start.Add(s.budget)
	if !s.dl.IsZero() && s.dl.Before(end) {
		end = s.dl
	}
	for {
		k, err := unix.Read(int(fd), s.p)
		switch {
		case err == nil:
			s.n, s.errno, s.res = k, nil, spinGot
			return true
		case err == unix.EINTR:
			continue
		case err != unix.EAGAIN:
			s.n, s.errno, s.res = 0, err, spinGot
			return true
		}
		if c.closed.Load() || !time.Now().Before(end) {
			return true
		}
		// Let a thread waiting for this CPU run: the peer's, woken by
		// our last send onto this CPU, or another rank's when ranks
		// outnumber CPUs. With nothing else to run it returns at once.
		_, _, _ = unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
		if c.singleP {
			runtime.Gosched()
		}
		if s.done != nil {
			select {
			case <-s.done:
				return true
			default:
			}
		}
	}
}
