package fabric

import (
	"context"
	"errors"
)

// ErrNoRMA means a connection's transport has no one-sided RMA (it is not
// an RMAConn: fabric/pipe).
var ErrNoRMA = errors.New("fabric: the transport has no one-sided RMA")

// RMAConn is implemented by connections that can reach a peer's memory
// without the peer taking part in each transfer (one-sided, as
// libfabric's fi_write and fi_read and the verbs' RDMA write and read):
// the peer exposes a buffer once and sends its key over the connection,
// then this side writes into it and reads from it.
//
// An RMA call may run at the same time as one Send and one Recv on the
// same Conn; two RMA calls at once are not allowed.
type RMAConn interface {
	Conn
	// Expose makes b reachable by the peer's Write and Read until release
	// is called, and returns the key the peer passes to them (the peer
	// learns it from a message this side sends). b must stay valid and
	// must not move until release.
	Expose(b []byte) (key []byte, release func() error, err error)
	// Write copies b into the peer's region named by key, at byte off
	// from its start. It returns once b may be reused and the bytes are in
	// the peer's memory (verbs: the reliable connection's completion),
	// or, on a Progresser, once they are on their way: they land when the
	// peer's side reads them, before any message sent after them.
	// A write past the region's end is an error and moves nothing.
	Write(ctx context.Context, key []byte, off int, b []byte) error
	// Read copies len(b) bytes from the peer's region named by key, at
	// byte off, into b, and returns once they are there.
	Read(ctx context.Context, key []byte, off int, b []byte) error
}

// RMAViewer is implemented by RMA connections that can reach a peer's
// exposed region in place, through memory this process has mapped (shm: a
// region inside the peer's arena). A server that moves bulk data between a
// peer's buffer and a file then makes the one copy the file system makes
// anyway (pwrite from the view, pread into it), where Read or Write would
// add one of their own.
type RMAViewer interface {
	// View returns the n bytes at off of the peer's region named by key
	// as a slice of this process's memory, or nil when they cannot be
	// reached that way (Read and Write still reach them). The slice is
	// valid while the connection is open; what it holds is the peer's
	// business, as a Read's result is: a peer that exposed the region
	// for a transfer does not touch it until the transfer's answer.
	View(key []byte, off, n int) []byte
}

// PeerViewer is implemented by connections whose peer maps some of this
// process's memory (fabric/shm: this process's arena). PeerViews reports
// whether b is such memory: once exposed, the peer's RMAViewer.View
// reaches it in place.
type PeerViewer interface {
	PeerViews(b []byte) bool
}

// Progresser is implemented by RMA connections whose one-sided operations
// are carried out by the target's own calls on the connection, as
// libfabric's manual progress (fabric/tcp: the target's read side copies
// a write's bytes into the exposed region and answers a read). There, a
// Write lands in the peer's memory, and a Read is answered, when the peer
// runs Recv or Progress on the connection (or an RMA Read of its own);
// frames are handled in the order they were sent, so a Write has landed
// before any message sent after it is received. A process that waits for
// a peer's Write by watching its own memory calls Progress in its loop.
type Progresser interface {
	// Progress carries out the peer's next one-sided operation, waiting
	// for it to arrive, or until ctx ends; messages that arrive first are
	// kept for their Recvs.
	Progress(ctx context.Context) error
}
