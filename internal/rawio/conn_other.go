//go:build !linux

package rawio

import (
	"fmt"
	"io"
	"syscall"
)

// Conn is, where rawio.go's raw calls are not written, the connection
// itself: its Read and Write go through the scheduler as usual.
type Conn struct {
	rw io.ReadWriter
}

// NewConn returns a Conn over c, which must also be an io.ReadWriter.
func NewConn(c syscall.Conn) (*Conn, error) {
	rw, ok := c.(io.ReadWriter)
	if !ok {
		return nil, fmt.Errorf("rawio: %T is not an io.ReadWriter", c)
	}
	return &Conn{rw: rw}, nil
}

// Read reads from the connection.
func (c *Conn) Read(p []byte) (int, error) { return c.rw.Read(p) }

// Write writes all of p to the connection.
func (c *Conn) Write(p []byte) (int, error) { return c.rw.Write(p) }
