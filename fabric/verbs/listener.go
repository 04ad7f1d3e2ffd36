package verbs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// listener is one rank's side channel listener and open device.
type listener struct {
	ln   *net.TCPListener
	self int
	addr string
	dev  *devRef
	opts Options

	mu     sync.Mutex // one Accept at a time: they share the socket's deadline
	closed sync.Once
}

var _ fabric.Listener = (*listener)(nil)

// Addr returns "verbs://HOST:PORT/DEVICE:PORT".
func (l *listener) Addr() string { return l.addr }

// Accept waits for a rank to dial, runs the acceptor's half of the
// handshake and returns the Conn and the dialer's rank. A connection
// that is not a verbs rank (a malformed first record, silence for the
// handshake timeout) is dropped and Accept keeps waiting; a rank of
// another version, or a device failure, is an error. After Close, Accept
// fails with an error wrapping fabric.ErrClosed.
func (l *listener) Accept(ctx context.Context) (fabric.Conn, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		tc, err := l.acceptTCP(ctx)
		if err != nil {
			return nil, -1, fmt.Errorf("verbs: accept on %s: %w", l.addr, err)
		}
		var c *conn
		err = deadline.Do(ctx, tc, l.opts.HandshakeTimeout, func() (err error) {
			c, err = acceptHandshake(tc, l.dev, l.self, l.opts)
			return err
		})
		if err == nil {
			return c, c.peer, nil
		}
		if c != nil {
			_ = c.Close()
		}
		_ = tc.Close()
		if cerr := deadline.ContextErr(ctx); cerr != nil {
			return nil, -1, fmt.Errorf("verbs: accept on %s: %w", l.addr, cerr)
		}
		if errors.Is(err, ErrEndpoint) || errors.Is(err, errStray) || errors.Is(err, errDeadline) || isEOF(err) {
			continue // not a rank, or one that went away
		}
		return nil, -1, fmt.Errorf("verbs: accept on %s: handshake with %s: %w", l.addr, tc.RemoteAddr(), err)
	}
}

// acceptTCP accepts the next side channel connection, interrupted by ctx.
func (l *listener) acceptTCP(ctx context.Context) (*net.TCPConn, error) {
	var tc *net.TCPConn
	err := deadline.Do(ctx, l.ln, 0, func() (err error) {
		tc, err = l.ln.AcceptTCP()
		return err
	})
	if err != nil && tc != nil {
		_ = tc.Close() // accepted, but the listener's deadline could not be cleared
	}
	if err == nil {
		if nerr := tc.SetNoDelay(true); nerr != nil {
			_ = tc.Close()
			return nil, fmt.Errorf("setting TCP_NODELAY: %w", nerr)
		}
		return tc, nil
	}
	if errors.Is(err, net.ErrClosed) {
		return nil, fmt.Errorf("listener closed: %w", fabric.ErrClosed)
	}
	if cerr := deadline.ContextErr(ctx); cerr != nil {
		return nil, cerr
	}
	return nil, err
}

// Close stops accepting and drops the listener's hold on the device;
// accepted Conns stay open (each holds the device too).
func (l *listener) Close() error {
	err := fmt.Errorf("verbs: close listener %s: %w already", l.addr, fabric.ErrClosed)
	l.closed.Do(func() {
		err = errors.Join(l.ln.Close(), l.dev.release())
		if err != nil {
			err = fmt.Errorf("verbs: close listener %s: %w", l.addr, err)
		}
	})
	return err
}
