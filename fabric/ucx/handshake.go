package ucx

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Name is the transport's registry name and its addresses' scheme.
const Name = "ucx"

// maxWorkerAddr bounds a worker address read from a peer: UCX's are 50 to
// a few hundred bytes (215 with every transport of this machine).
const maxWorkerAddr = 4096

// formatAddr is a listener's business card: "ucx://" and, in hex, the
// listener's endpoint id (4 bytes, big-endian) and the worker's address.
func formatAddr(id uint32, workerAddr []byte) string {
	b := binary.BigEndian.AppendUint32(nil, id)
	return Name + "://" + hex.EncodeToString(append(b, workerAddr...))
}

// parseAddr is formatAddr's inverse: a peer's business card.
func parseAddr(addr string) (id uint32, workerAddr []byte, err error) {
	rest, ok := strings.CutPrefix(addr, Name+"://")
	if !ok {
		return 0, nil, fmt.Errorf("ucx address %q: want ucx://HEX", addr)
	}
	raw, err := hex.DecodeString(rest)
	if err != nil {
		return 0, nil, fmt.Errorf("ucx address %q: %w", addr, err)
	}
	if len(raw) <= 4 || len(raw) > 4+maxWorkerAddr {
		return 0, nil, fmt.Errorf("ucx address %q: %d bytes; want an endpoint id and a worker address of 1 to %d bytes", addr, len(raw), maxWorkerAddr)
	}
	id = binary.BigEndian.Uint32(raw)
	if id == 0 || id > maxID {
		return 0, nil, fmt.Errorf("ucx address %q: endpoint id %d out of range 1..%d", addr, id, maxID)
	}
	return id, raw[4:], nil
}

// helloMagic starts every handshake message.
var helloMagic = [4]byte{'H', 'B', 'U', '1'}

// hostIDLen is the length of a host's identity in a handshake.
const hostIDLen = 16

// hello is a handshake message: the dialer's (kindHello: with its worker
// address, which the acceptor creates its endpoint to) or the acceptor's
// answer (kindAccept, without one). The pid and host identity let a side
// see that a peer on its own host has exited while it waits for it.
type hello struct {
	Rank       uint32
	ID         uint32 // the sender's endpoint id: the receiver sends to it
	Pid        uint32
	Host       [hostIDLen]byte
	WorkerAddr []byte
}

// helloFixed is the encoded length of a hello without its worker address.
const helloFixed = 4 + 4 + 4 + 4 + hostIDLen + 2

// maxHello bounds a handshake message.
const maxHello = helloFixed + maxWorkerAddr

// encode lays h out as: magic, rank, id, pid (little-endian u32 each),
// host identity, worker address length (u16) and the address. The result
// is on the heap (encode is not inlined), as a buffer UCX sends must be.
//
//go:noinline
func (h hello) encode() []byte {
	b := make([]byte, 0, helloFixed+len(h.WorkerAddr))
	b = append(b, helloMagic[:]...)
	b = binary.LittleEndian.AppendUint32(b, h.Rank)
	b = binary.LittleEndian.AppendUint32(b, h.ID)
	b = binary.LittleEndian.AppendUint32(b, h.Pid)
	b = append(b, h.Host[:]...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h.WorkerAddr)))
	return append(b, h.WorkerAddr...)
}

// errBadHello is the error of every malformed handshake message.
var errBadHello = errors.New("ucx: malformed handshake message")

// parseHello is encode's inverse, for a message from a peer.
func parseHello(b []byte) (hello, error) {
	var h hello
	if len(b) < helloFixed || !bytes.Equal(b[:4], helloMagic[:]) {
		return h, fmt.Errorf("%w: %d bytes, want at least %d starting %q", errBadHello, len(b), helloFixed, helloMagic[:])
	}
	h.Rank = binary.LittleEndian.Uint32(b[4:])
	h.ID = binary.LittleEndian.Uint32(b[8:])
	h.Pid = binary.LittleEndian.Uint32(b[12:])
	copy(h.Host[:], b[16:16+hostIDLen])
	n := int(binary.LittleEndian.Uint16(b[16+hostIDLen:]))
	if len(b) != helloFixed+n || n > maxWorkerAddr {
		return h, fmt.Errorf("%w: worker address of %d bytes in a %d-byte message", errBadHello, n, len(b))
	}
	if h.ID == 0 || h.ID > maxID {
		return h, fmt.Errorf("%w: endpoint id %d out of range 1..%d", errBadHello, h.ID, maxID)
	}
	if h.Rank > 1<<31-1 {
		return h, fmt.Errorf("%w: rank %d", errBadHello, h.Rank)
	}
	if n > 0 {
		h.WorkerAddr = bytes.Clone(b[helloFixed:])
	}
	return h, nil
}

// hostID identifies this host for a peer's handshake: the kernel's boot
// id (one per host and boot), else the host name.
func hostID() [hostIDLen]byte {
	var id [hostIDLen]byte
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		if raw, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(string(b)), "-", "")); err == nil && len(raw) == hostIDLen {
			copy(id[:], raw)
			return id
		}
	}
	name, _ := os.Hostname()
	copy(id[:], name)
	return id
}
