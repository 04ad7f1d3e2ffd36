package tcp

import (
	"errors"
	"fmt"
	"net"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/accept"
)

// listener is one rank's TCP listener. Its Accept (accept.Loop's) waits
// for a rank to connect, exchanges hellos and returns the Conn and the
// dialer's rank. Connections that are not hpcbench ranks (wrong magic,
// silence for the handshake timeout, a drop before the hello) are closed
// and Accept keeps waiting; a rank of another wire version is closed and is
// an error. After Close, Accept fails with an error wrapping
// fabric.ErrClosed.
type listener struct {
	accept.Loop
}

var _ fabric.Listener = (*listener)(nil)

// newListener returns rank self's listener on ln, published as addr
// ("tcp://host:port").
func newListener(ln *net.TCPListener, self int, addr string, o Options) *listener {
	hello := func(tc *net.TCPConn) (fabric.Conn, int, error) {
		peer, err := acceptHandshake(tc, self)
		if err != nil {
			return nil, 0, err
		}
		return newConn(tc, peer, o.RecvSpin), peer, nil
	}
	return &listener{Loop: accept.Loop{Transport: Name, Address: addr, Ln: ln, Timeout: o.HandshakeTimeout, Handshake: hello, Stray: isStray}}
}

// isStray reports whether a failed handshake's err is a connection's that
// is not a rank's doing: anything but a rank of another version.
func isStray(err error) bool { return !errors.Is(err, errVersion) }

// Close stops accepting; accepted Conns stay open.
func (l *listener) Close() error {
	if err := l.Ln.Close(); err != nil {
		return fmt.Errorf("tcp: close listener %s: %w", l.Address, err)
	}
	return nil
}
