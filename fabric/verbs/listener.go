package verbs

import (
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/accept"
)

// listener is one rank's side channel listener and open device. Its
// Accept (accept.Loop's) waits for a rank to dial, runs the acceptor's
// half of the handshake and returns the Conn and the dialer's rank. A
// connection that is not a verbs rank (a malformed first record, silence
// for the handshake timeout) is dropped and Accept keeps waiting; a rank
// of another version, or a device failure, is an error. After Close,
// Accept fails with an error wrapping fabric.ErrClosed. Addr returns
// "verbs://HOST:PORT/DEVICE:PORT".
type listener struct {
	accept.Loop
	dev *devRef

	closed sync.Once
}

var _ fabric.Listener = (*listener)(nil)

// newListener returns rank self's listener on ln and dev, published as
// addr.
func newListener(ln *net.TCPListener, self int, addr string, dev *devRef, o Options) *listener {
	exchange := func(tc *net.TCPConn) (fabric.Conn, int, error) {
		c, err := acceptHandshake(tc, dev, self, o)
		if err != nil {
			return nil, 0, err // not a nil *conn in a non-nil fabric.Conn
		}
		return c, c.peer, nil
	}
	return &listener{dev: dev, Loop: accept.Loop{Transport: Name, Address: addr, Ln: ln, Timeout: o.HandshakeTimeout, Handshake: exchange, Stray: isStray}}
}

// isStray reports whether a failed handshake's err is a connection's that
// is not a verbs rank (a malformed record, silence) or one that went away.
func isStray(err error) bool {
	return errors.Is(err, ErrEndpoint) || errors.Is(err, errStray) || errors.Is(err, errDeadline) || isEOF(err)
}

// Close stops accepting and drops the listener's hold on the device;
// accepted Conns stay open (each holds the device too).
func (l *listener) Close() error {
	err := fmt.Errorf("verbs: close listener %s: %w already", l.Address, fabric.ErrClosed)
	l.closed.Do(func() {
		err = errors.Join(l.Ln.Close(), l.dev.release())
		if err != nil {
			err = fmt.Errorf("verbs: close listener %s: %w", l.Address, err)
		}
	})
	return err
}
