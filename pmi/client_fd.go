//go:build unix

package pmi

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// fdConn turns the PMI_FD value into a connection. The descriptor must be an
// open stream socket; anything else is refused without touching it. Once
// accepted, the inherited descriptor is replaced by a close-on-exec duplicate
// registered with the runtime poller (so deadlines work) and closed.
func fdConn(v string) (net.Conn, error) {
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 0 {
		return nil, fmt.Errorf("pmi: PMI_FD=%q: not a file descriptor number", v)
	}
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return nil, fmt.Errorf("pmi: PMI_FD=%d: not an open socket: %w", fd, err)
	}
	if typ != unix.SOCK_STREAM {
		return nil, fmt.Errorf("pmi: PMI_FD=%d: socket type %d is not a stream socket", fd, typ)
	}
	f := os.NewFile(uintptr(fd), "PMI_FD")
	conn, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("pmi: PMI_FD=%d: %w", fd, err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	return conn, nil
}
