package fabtest

import (
	"context"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric"
)

// Link is the test's view of its peer: one reliable, ordered message
// channel, as fabric.Conn and a communicator's point-to-point calls are.
type Link interface {
	// Send sends b as one message; b may be reused when it returns.
	Send(ctx context.Context, b []byte) error
	// Recv receives the next message into b and returns its length.
	Recv(ctx context.Context, b []byte) (int, error)
}

// ConnLink is a Link over a fabric.Conn, on one tag (server/client mode).
type ConnLink struct {
	Conn fabric.Conn
	Tag  uint32
}

// Send implements Link.
func (l ConnLink) Send(ctx context.Context, b []byte) error { return l.Conn.Send(ctx, l.Tag, b) }

// Recv implements Link.
func (l ConnLink) Recv(ctx context.Context, b []byte) (int, error) {
	return l.Conn.Recv(ctx, l.Tag, b)
}

// CommLink is a Link to one rank of a communicator (launched mode, and
// each pair of allpairs).
type CommLink struct {
	Comm *collectives.Comm
	Peer int
}

// Send implements Link.
func (l CommLink) Send(ctx context.Context, b []byte) error { return l.Comm.Send(ctx, l.Peer, b) }

// Recv implements Link.
func (l CommLink) Recv(ctx context.Context, b []byte) (int, error) {
	return l.Comm.Recv(ctx, l.Peer, b)
}
