//go:build !unix

package pmi

import (
	"fmt"
	"net"
)

// fdConn refuses PMI_FD where inherited sockets are not supported.
func fdConn(v string) (net.Conn, error) {
	return nil, fmt.Errorf("pmi: PMI_FD=%q: inherited sockets on this platform: %w", v, ErrNotSupported)
}
