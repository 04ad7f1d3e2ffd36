package rpc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/fabric"
)

// helloMagic starts both hello messages ("DFSR").
const helloMagic = 0x52534644

// helloLen is the client's hello: magic, version, reserved, client id.
const helloLen = 4 + 2 + 2 + 8

// Hello answers' status.
const (
	helloAccepted = 0
	helloRefused  = 1
)

// ErrVersion is wrapped by the error of a hello refused because the two
// sides speak different protocol versions.
var ErrVersion = errors.New("protocol version mismatch")

// hello is the client's first message.
type hello struct {
	version  uint16
	clientID uint64
}

func (h hello) encode() []byte {
	b := binary.LittleEndian.AppendUint32(nil, helloMagic)
	b = binary.LittleEndian.AppendUint16(b, h.version)
	b = binary.LittleEndian.AppendUint16(b, 0)
	return binary.LittleEndian.AppendUint64(b, h.clientID)
}

func decodeHello(b []byte) (hello, error) {
	if len(b) != helloLen || binary.LittleEndian.Uint32(b) != helloMagic {
		return hello{}, fmt.Errorf("%w: a hello of %d bytes that does not start with the protocol's magic", errMalformed, len(b))
	}
	return hello{version: binary.LittleEndian.Uint16(b[4:]), clientID: binary.LittleEndian.Uint64(b[8:])}, nil
}

// encodeAnswer is the engine's answer: magic, its version, status, text.
func encodeAnswer(status uint16, text string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, helloMagic)
	b = binary.LittleEndian.AppendUint16(b, Version)
	b = binary.LittleEndian.AppendUint16(b, status)
	return append(b, text...)
}

// decodeAnswer parses an answer into the engine's version, status and
// text.
func decodeAnswer(b []byte) (version, status uint16, text string, err error) {
	if len(b) < 8 || binary.LittleEndian.Uint32(b) != helloMagic {
		return 0, 0, "", fmt.Errorf("%w: an answer of %d bytes that does not start with the protocol's magic", errMalformed, len(b))
	}
	return binary.LittleEndian.Uint16(b[4:]), binary.LittleEndian.Uint16(b[6:]), string(b[8:]), nil
}

// clientHello sends h on conn and waits for the engine's answer.
func clientHello(ctx context.Context, conn fabric.Conn, h hello) error {
	if err := conn.Send(ctx, tagHello, h.encode()); err != nil {
		return fmt.Errorf("send hello: %w", err)
	}
	buf := make([]byte, 1024)
	n, err := conn.Recv(ctx, tagHello, buf)
	if err != nil {
		return fmt.Errorf("receive the engine's answer to hello: %w", err)
	}
	v, status, text, err := decodeAnswer(buf[:n])
	switch {
	case err != nil:
		return fmt.Errorf("hello: %w", err)
	case v != h.version:
		return fmt.Errorf("hello: %w: the client speaks version %d, the engine %d", ErrVersion, h.version, v)
	case status != helloAccepted:
		return fmt.Errorf("hello: refused by the engine: %s", text)
	}
	return nil
}

// serverHello receives a client's hello on conn and answers it; a client
// of another version is told so and refused.
func serverHello(ctx context.Context, conn fabric.Conn) (hello, error) {
	buf := make([]byte, 64)
	n, err := conn.Recv(ctx, tagHello, buf)
	if err != nil {
		return hello{}, fmt.Errorf("receive hello: %w", err)
	}
	h, err := decodeHello(buf[:n])
	if err != nil {
		conn.Send(ctx, tagHello, encodeAnswer(helloRefused, err.Error())) // best effort: refused anyway
		return hello{}, fmt.Errorf("hello: %w", err)
	}
	if h.version != Version {
		err := fmt.Errorf("%w: client %d speaks version %d, the engine %d", ErrVersion, h.clientID, h.version, Version)
		conn.Send(ctx, tagHello, encodeAnswer(helloRefused, err.Error())) // best effort: refused anyway
		return h, fmt.Errorf("hello: %w", err)
	}
	if err := conn.Send(ctx, tagHello, encodeAnswer(helloAccepted, "")); err != nil {
		return h, fmt.Errorf("answer hello of client %d: %w", h.clientID, err)
	}
	return h, nil
}
