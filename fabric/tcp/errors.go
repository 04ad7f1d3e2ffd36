package tcp

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hpcbench/hpcbench/fabric"
)

// errProtocol means the peer sent bytes that are not this protocol.
var errProtocol = errors.New("protocol error")

// isTimeout reports whether err is a socket deadline expiring, which is how
// a context's deadline or cancellation interrupts I/O here.
func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// brokenErr is the error for a socket error that is not a deadline: the
// connection cannot be used any more, in that direction at least. It wraps
// fabric.ErrClosed and the cause.
func (c *conn) brokenErr(op string, err error) error {
	switch {
	case c.closed.Load():
		return fmt.Errorf("tcp: %s rank %d: %w by this side", op, c.peer, fabric.ErrClosed)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("tcp: %s rank %d: %w by the peer", op, c.peer, fabric.ErrClosed)
	}
	return fmt.Errorf("tcp: %s rank %d: %w: %w", op, c.peer, fabric.ErrClosed, err)
}
