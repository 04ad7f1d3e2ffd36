package verbs

import (
	"errors"
	"fmt"
	"io"
	"net"
)

// The side channel. The dialer sends its endpoint record; the acceptor
// makes its queue pair, answers with its own record and moves its queue
// pair to RTS towards the dialer; the dialer moves its queue pair to RTS
// and sends one ready byte, which the acceptor echoes once it has read it:
// then both queue pairs are in RTS with every receive posted, and either
// side may send. The socket
// stays open for the connection's life: its end is how each side learns
// that the other closed or died.
const readyByte = 'R'

// errStray means what connected to the side channel is not an hpcbench
// verbs rank.
var errStray = errors.New("not an hpcbench verbs endpoint record")

// readEndpoint reads and parses the peer's record.
func readEndpoint(nc net.Conn) (Endpoint, error) {
	var b [EndpointLen]byte
	if _, err := io.ReadFull(nc, b[:]); err != nil {
		return Endpoint{}, fmt.Errorf("reading the peer's endpoint record: %w", err)
	}
	return ParseEndpoint(b[:])
}

// writeEndpoint sends e's record.
func writeEndpoint(nc net.Conn, e Endpoint) error {
	if _, err := nc.Write(AppendEndpoint(nil, e)); err != nil {
		return fmt.Errorf("sending the endpoint record: %w", err)
	}
	return nil
}

// ready sends (first) or receives, then the other, the ready byte.
func ready(nc net.Conn, sendFirst bool) error {
	b := []byte{readyByte}
	if sendFirst {
		if _, err := nc.Write(b); err != nil {
			return fmt.Errorf("sending ready: %w", err)
		}
	}
	if _, err := io.ReadFull(nc, b); err != nil {
		return fmt.Errorf("waiting for the peer's ready: %w", err)
	}
	if b[0] != readyByte {
		return fmt.Errorf("%w: ready byte %#x", errStray, b[0])
	}
	if !sendFirst {
		if _, err := nc.Write(b); err != nil {
			return fmt.Errorf("answering ready: %w", err)
		}
	}
	return nil
}

// dialHandshake is the dialer's half; it returns the connection.
func dialHandshake(nc net.Conn, dev *devRef, self int, o Options) (*conn, error) {
	ep, err := newEndpoint(dev, o)
	if err != nil {
		return nil, err
	}
	c, err := func() (*conn, error) {
		if err := writeEndpoint(nc, ep.local(self)); err != nil {
			return nil, err
		}
		remote, err := readEndpoint(nc)
		if err != nil {
			return nil, err
		}
		if err := ep.connect(remote); err != nil {
			return nil, err
		}
		if err := ready(nc, true); err != nil {
			return nil, err
		}
		return newConn(ep, nc, remote.Rank, remote, o), nil
	}()
	if err != nil {
		return nil, errors.Join(err, ep.close())
	}
	return c, nil
}

// acceptHandshake is the acceptor's half; it returns the connection.
func acceptHandshake(nc net.Conn, dev *devRef, self int, o Options) (*conn, error) {
	remote, err := readEndpoint(nc)
	if err != nil {
		return nil, err
	}
	ep, err := newEndpoint(dev, o)
	if err != nil {
		return nil, err
	}
	c, err := func() (*conn, error) {
		// The record goes first, so that a dialer this side cannot connect
		// to (routing by GID against LID) can say why too; the dialer
		// sends nothing until this side's ready, which follows RTS.
		if err := writeEndpoint(nc, ep.local(self)); err != nil {
			return nil, err
		}
		if err := ep.connect(remote); err != nil {
			return nil, err
		}
		if err := ready(nc, false); err != nil {
			return nil, err
		}
		return newConn(ep, nc, remote.Rank, remote, o), nil
	}()
	if err != nil {
		return nil, errors.Join(err, ep.close())
	}
	return c, nil
}

// isEOF reports whether err is the peer hanging up mid-handshake.
func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
