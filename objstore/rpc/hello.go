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

// Hello is the client's first message: the protocol version it speaks
// and its client id (its rank).
type Hello struct {
	Version  uint16
	ClientID uint64
}

func (h Hello) encode() []byte {
	b := binary.LittleEndian.AppendUint32(nil, helloMagic)
	b = binary.LittleEndian.AppendUint16(b, h.Version)
	b = binary.LittleEndian.AppendUint16(b, 0)
	return binary.LittleEndian.AppendUint64(b, h.ClientID)
}

func decodeHello(b []byte) (Hello, error) {
	if len(b) != helloLen || binary.LittleEndian.Uint32(b) != helloMagic {
		return Hello{}, fmt.Errorf("%w: a hello of %d bytes that does not start with the protocol's magic", ErrMalformed, len(b))
	}
	return Hello{Version: binary.LittleEndian.Uint16(b[4:]), ClientID: binary.LittleEndian.Uint64(b[8:])}, nil
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
		return 0, 0, "", fmt.Errorf("%w: an answer of %d bytes that does not start with the protocol's magic", ErrMalformed, len(b))
	}
	return binary.LittleEndian.Uint16(b[4:]), binary.LittleEndian.Uint16(b[6:]), string(b[8:]), nil
}

// ClientHello sends h on conn and waits for the engine's answer.
func ClientHello(ctx context.Context, conn fabric.Conn, h Hello) error {
	if err := conn.Send(ctx, TagHello, h.encode()); err != nil {
		return fmt.Errorf("send hello: %w", err)
	}
	buf := make([]byte, 1024)
	n, err := conn.Recv(ctx, TagHello, buf)
	if err != nil {
		return fmt.Errorf("receive the engine's answer to hello: %w", err)
	}
	v, status, text, err := decodeAnswer(buf[:n])
	switch {
	case err != nil:
		return fmt.Errorf("hello: %w", err)
	case v != h.Version:
		return fmt.Errorf("hello: %w: the client speaks version %d, the engine %d", ErrVersion, h.Version, v)
	case status != helloAccepted:
		return fmt.Errorf("hello: refused by the engine: %s", text)
	}
	return nil
}

// ServerHello receives a client's hello on conn and answers it; a client
// of another version is told so and refused.
func ServerHello(ctx context.Context, conn fabric.Conn) (Hello, error) {
	buf := make([]byte, 64)
	n, err := conn.Recv(ctx, TagHello, buf)
	if err != nil {
		return Hello{}, fmt.Errorf("receive hello: %w", err)
	}
	h, err := decodeHello(buf[:n])
	if err != nil {
		conn.Send(ctx, TagHello, encodeAnswer(helloRefused, err.Error())) // best effort: refused anyway
		return Hello{}, fmt.Errorf("hello: %w", err)
	}
	if h.Version != Version {
		err := fmt.Errorf("%w: client %d speaks version %d, the engine %d", ErrVersion, h.ClientID, h.Version, Version)
		conn.Send(ctx, TagHello, encodeAnswer(helloRefused, err.Error())) // best effort: refused anyway
		return h, fmt.Errorf("hello: %w", err)
	}
	if err := conn.Send(ctx, TagHello, encodeAnswer(helloAccepted, "")); err != nil {
		return h, fmt.Errorf("answer hello of client %d: %w", h.ClientID, err)
	}
	return h, nil
}
