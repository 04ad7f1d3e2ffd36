package tcp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
)

// Handshake: on a new connection the dialer sends a hello and the acceptor
// answers with its own. A hello is 12 bytes:
//
//	offset 0  "HPCB"               magic
//	offset 4  uint16 version       WireVersion, little-endian
//	offset 6  uint16 reserved      zero
//	offset 8  uint32 rank          the sender's rank, little-endian
const (
	magic    = "HPCB"
	helloLen = 12

	// WireVersion is the version of the handshake and framing. Peers of
	// different versions refuse each other, naming both versions.
	// Version 2 added the RMA frames (rma.go).
	WireVersion = 2
)

// Handshake failures.
var (
	// errStray means the bytes a connection opened with are not an hpcbench
	// hello: something other than a rank connected.
	errStray = errors.New("not an hpcbench tcp hello")
	// errVersion means the peer speaks another WireVersion.
	errVersion = errors.New("wire version mismatch")
)

// hello is a decoded hello.
type hello struct {
	version uint16
	rank    int
}

// appendHello appends the hello of rank at WireVersion.
func appendHello(b []byte, rank int) []byte {
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint16(b, WireVersion)
	b = binary.LittleEndian.AppendUint16(b, 0)
	return binary.LittleEndian.AppendUint32(b, uint32(rank))
}

// parseHello decodes a hello. A wrong magic is errStray; another version is
// returned as is, for the caller to refuse with both versions named.
func parseHello(b []byte) (hello, error) {
	if len(b) != helloLen || string(b[:4]) != magic {
		return hello{}, fmt.Errorf("%w: %q", errStray, b)
	}
	rank := binary.LittleEndian.Uint32(b[8:12])
	if uint64(rank) > math.MaxInt {
		return hello{}, fmt.Errorf("%w: rank %d does not fit an int here", errStray, rank)
	}
	return hello{version: binary.LittleEndian.Uint16(b[4:6]), rank: int(rank)}, nil
}

// checkRank reports whether rank fits in a hello.
func checkRank(rank int) error {
	if rank < 0 || uint64(rank) > math.MaxUint32 {
		return fmt.Errorf("rank %d: must be in [0, %d]", rank, uint32(math.MaxUint32))
	}
	return nil
}

// readHello reads and decodes the peer's hello.
func readHello(nc net.Conn) (hello, error) {
	var b [helloLen]byte
	if _, err := io.ReadFull(nc, b[:]); err != nil {
		return hello{}, err
	}
	return parseHello(b[:])
}

// versionErr is the error for a peer that speaks another version.
func versionErr(peer hello) error {
	return fmt.Errorf("%w: peer rank %d speaks hpcbench tcp wire version %d, this process version %d: run the same hpcbench build on every rank",
		errVersion, peer.rank, peer.version, WireVersion)
}

// dialHandshake is the dialer's half: send our hello, read the acceptor's.
// It returns the acceptor's rank.
func dialHandshake(nc net.Conn, self int) (int, error) {
	if _, err := nc.Write(appendHello(make([]byte, 0, helloLen), self)); err != nil {
		return 0, fmt.Errorf("sending hello: %w", err)
	}
	peer, err := readHello(nc)
	if err != nil {
		return 0, fmt.Errorf("reading the acceptor's hello: %w", err)
	}
	if peer.version != WireVersion {
		return 0, versionErr(peer)
	}
	return peer.rank, nil
}

// acceptHandshake is the acceptor's half: read the dialer's hello, answer
// with ours. A peer of another version gets our hello too, so that it can
// name both versions, and then an error. It returns the dialer's rank.
func acceptHandshake(nc net.Conn, self int) (int, error) {
	peer, err := readHello(nc)
	if err != nil {
		return 0, err
	}
	if _, err := nc.Write(appendHello(make([]byte, 0, helloLen), self)); err != nil {
		return 0, fmt.Errorf("answering the hello of rank %d: %w", peer.rank, err)
	}
	if peer.version != WireVersion {
		return 0, versionErr(peer)
	}
	return peer.rank, nil
}
