//go:build linux

package shm

import (
	"context"
	"fmt"
	"net"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/accept"
)

// Listener accepts shared-memory connections from ranks on this host. It
// implements fabric.Listener.
type Listener struct {
	t    *Transport
	ln   *net.UnixListener
	self int
	addr string
}

var _ fabric.Listener = (*Listener)(nil)

// Addr returns "shm://HOSTID/@SOCKET", the address peers dial.
func (l *Listener) Addr() string { return l.addr }

// Accept waits for the next peer, sets the pair up, and returns the
// connection and the peer's rank.
func (l *Listener) Accept(ctx context.Context) (fabric.Conn, int, error) {
	sock, err := accept.Next(ctx, l.ln, l.ln.AcceptUnix)
	if err != nil {
		return nil, 0, fmt.Errorf("shm: accept: %w", err)
	}
	c, rank, err := l.t.accept(ctx, l.self, sock)
	if err != nil {
		return nil, 0, err
	}
	return c, rank, nil
}

// Close stops accepting; connections already made stay open.
func (l *Listener) Close() error {
	if err := l.ln.Close(); err != nil {
		return fmt.Errorf("shm: close listener: %w", err)
	}
	return nil
}
