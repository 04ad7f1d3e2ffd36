package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// listener is one rank's TCP listener.
type listener struct {
	ln        *net.TCPListener
	self      int
	addr      string
	handshake time.Duration // bound on one connection's hello exchange
	spin      time.Duration // Options.RecvSpin, for the Conns

	mu sync.Mutex // one Accept at a time: they share the socket's deadline
}

var _ fabric.Listener = (*listener)(nil)

// Addr returns the published "tcp://host:port" address.
func (l *listener) Addr() string { return l.addr }

// Accept waits for a rank to connect, exchanges hellos and returns the Conn
// and the dialer's rank. Connections that are not hpcbench ranks (wrong
// magic, silence for the handshake timeout, a drop before the hello) are
// closed and Accept keeps waiting; a rank of another wire version is closed
// and is an error. After Close, Accept fails with an error wrapping
// fabric.ErrClosed.
func (l *listener) Accept(ctx context.Context) (fabric.Conn, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		var tc *net.TCPConn
		err := deadline.Do(ctx, l.ln, 0, func() (err error) {
			tc, err = l.ln.AcceptTCP()
			return err
		})
		if err != nil {
			if tc != nil {
				_ = tc.Close() // accepted, but the listener's deadline could not be cleared
			}
			switch {
			case errors.Is(err, net.ErrClosed):
				err = fmt.Errorf("listener closed: %w", fabric.ErrClosed)
			case isTimeout(err):
				if cerr := deadline.ContextErr(ctx); cerr != nil {
					err = cerr
				}
			}
			return nil, -1, fmt.Errorf("tcp: accept on %s: %w", l.addr, err)
		}
		peer, err := l.hello(ctx, tc)
		if err == nil {
			return newConn(tc, peer, l.spin), peer, nil
		}
		_ = tc.Close()
		if errors.Is(err, errStray) {
			continue
		}
		return nil, -1, fmt.Errorf("tcp: accept on %s: handshake with %s: %w", l.addr, tc.RemoteAddr(), err)
	}
}

// hello runs the acceptor's half of the handshake on a new connection and
// sorts its failures: errStray for anything that is not a rank's doing, the
// context's error, or errVersion.
func (l *listener) hello(ctx context.Context, tc *net.TCPConn) (int, error) {
	if err := tc.SetNoDelay(true); err != nil {
		return 0, fmt.Errorf("%w: setting TCP_NODELAY: %w", errStray, err)
	}
	var peer int
	err := deadline.Do(ctx, tc, l.handshake, func() (err error) {
		peer, err = acceptHandshake(tc, l.self)
		return err
	})
	switch {
	case err == nil:
		return peer, nil
	case errors.Is(err, errVersion):
		return 0, err
	}
	if cerr := deadline.ContextErr(ctx); cerr != nil {
		return 0, cerr
	}
	return 0, fmt.Errorf("%w: %w", errStray, err)
}

// Close stops accepting; accepted Conns stay open.
func (l *listener) Close() error {
	if err := l.ln.Close(); err != nil {
		return fmt.Errorf("tcp: close listener %s: %w", l.addr, err)
	}
	return nil
}
