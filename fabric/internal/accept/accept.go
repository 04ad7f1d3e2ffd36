// Package accept is the accepting side the fabric transports that listen
// on a socket share: Next accepts one connection with the listener's
// deadline bound to a context, and Loop is the accept loop of the
// transports whose ranks connect over TCP and handshake before the
// connection is theirs (tcp, and the side channel of verbs).
package accept

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// Next calls accept, the Accept method of ln (AcceptTCP, AcceptUnix), with
// ln's deadline bound to ctx (see deadline.Bind). After ln's Close it fails
// with "listener closed: …" wrapping fabric.ErrClosed; when ctx ends, with
// ctx's error (deadline.ContextErr); otherwise with accept's error.
func Next[C io.Closer](ctx context.Context, ln deadline.Setter, accept func() (C, error)) (C, error) {
	var none C
	b, err := deadline.Bind(ctx, ln, 0)
	if err == nil {
		var c C
		c, err = accept()
		if rerr := b.Release(); err == nil && rerr != nil {
			_ = c.Close() // accepted, but ln's deadline could not be cleared: ln is closed
			err = rerr
		}
		if err == nil {
			return c, nil
		}
	}
	if errors.Is(err, net.ErrClosed) {
		return none, fmt.Errorf("listener closed: %w", fabric.ErrClosed)
	}
	if cerr := deadline.ContextErr(ctx); cerr != nil {
		return none, cerr
	}
	return none, err
}

// Loop accepts connections on a TCP listener, sets TCP_NODELAY and runs a
// transport's handshake on each, with the connection's deadline bound to
// the context and a handshake timeout, until one is a rank's. It is the
// Addr and Accept of the tcp and verbs listeners, which embed it and add
// Close. A Loop must not be copied once used.
type Loop struct {
	// Transport names the transport in Accept's errors: "tcp", "verbs".
	Transport string
	// Address is the published address Addr returns.
	Address string
	// Ln is the listener; its owner closes it.
	Ln *net.TCPListener
	// Timeout bounds one connection's handshake.
	Timeout time.Duration
	// Handshake runs the acceptor's half on tc and returns the Conn and
	// the dialer's rank, or a nil Conn and an error.
	Handshake func(tc *net.TCPConn) (fabric.Conn, int, error)
	// Stray reports whether the error of a failed handshake is that of a
	// connection that is not a rank (or of one that went away): Accept
	// closes it and waits for the next one.
	Stray func(err error) bool

	mu sync.Mutex // one Accept at a time: they share the listener's deadline
}

// Addr returns the published address.
func (l *Loop) Addr() string { return l.Address }

// Accept returns the next connection whose handshake succeeds, and the
// dialer's rank. Connections whose handshake fails with an error Stray
// accepts are closed and Accept keeps waiting. Its errors begin
// "TRANSPORT: accept on ADDRESS: "; it fails after Ln's Close with an
// error wrapping fabric.ErrClosed, with ctx's error when ctx ends
// ("handshake with PEER: …" if it ends during a handshake), and with
// "handshake with PEER: …" for a handshake that fails otherwise.
func (l *Loop) Accept(ctx context.Context) (fabric.Conn, int, error) {
	c, peer, err := l.next(ctx)
	if err != nil {
		return nil, -1, fmt.Errorf("%s: accept on %s: %w", l.Transport, l.Address, err)
	}
	return c, peer, nil
}

// next is Accept but for the wording of its errors.
func (l *Loop) next(ctx context.Context) (fabric.Conn, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		tc, err := Next(ctx, l.Ln, l.Ln.AcceptTCP)
		if err != nil {
			return nil, -1, err
		}
		c, peer, err := l.handshake(ctx, tc)
		if err == nil {
			return c, peer, nil
		}
		_ = tc.Close()
		if cerr := deadline.ContextErr(ctx); cerr != nil {
			return nil, -1, fmt.Errorf("handshake with %s: %w", tc.RemoteAddr(), cerr)
		}
		if l.Stray(err) {
			continue
		}
		return nil, -1, fmt.Errorf("handshake with %s: %w", tc.RemoteAddr(), err)
	}
}

// handshake sets TCP_NODELAY on tc and runs Handshake, bound to ctx and
// Timeout.
func (l *Loop) handshake(ctx context.Context, tc *net.TCPConn) (fabric.Conn, int, error) {
	if err := tc.SetNoDelay(true); err != nil {
		return nil, 0, fmt.Errorf("setting TCP_NODELAY: %w", err)
	}
	var c fabric.Conn
	var peer int
	err := deadline.Do(ctx, tc, l.Timeout, func() (err error) {
		c, peer, err = l.Handshake(tc)
		return err
	})
	if err != nil && c != nil {
		_ = c.Close() // made, but tc's deadline could not be cleared: tc is closed
		c = nil
	}
	return c, peer, err
}

// ListenTCP listens on listen ("host:port", "" for any) and returns the
// listener with the "host:port" a peer dials it at: publish when given,
// else the bound address, else (bound to every address) this host's
// IPv4 address as fabric.HostIPv4 chooses it. The error is net's, for the
// caller to name its transport.
func ListenTCP(ctx context.Context, listen, publish string) (*net.TCPListener, string, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", listen)
	if err != nil {
		return nil, "", err
	}
	tl := ln.(*net.TCPListener)
	bound := tl.Addr().(*net.TCPAddr)
	host := publish
	switch {
	case host != "":
	case !bound.IP.IsUnspecified():
		host = bound.IP.String()
	default:
		host = fabric.HostIPv4(ctx)
	}
	return tl, net.JoinHostPort(host, strconv.Itoa(bound.Port)), nil
}
