package ofi

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The wire of a MSG connection (-e msg). The provider has no tags on MSG
// endpoints (tcp's fi_info lists FI_MSG and FI_RMA only), so every message
// carries its kind and the fabric tag in its 64-bit CQ data (fi_senddata,
// fi_injectdata), and the receiving side matches tags itself:
//
//	bits 63–62  0: a Conn's message; 1: a rendezvous header; 2: control;
//	            3: a piece of a rendezvous' body
//	bits 61–32  a rendezvous header or piece: its id
//	bits 31–0   a message or header: its fabric tag; control: its kind
//
// A message shorter than msgEager bytes is sent whole into one of the
// receiving side's bounce buffers (msgEager bytes each, always posted)
// and copied out into the Recv's buffer. A longer one is a rendezvous as in
// RDM mode (rendezvous.go): a header whose 8 bytes are the message's
// length, the Recv's CTS naming its registered buffer (or dropping the
// message), the sender's fi_write into it and a FIN. A Send never waits
// for the peer's Recv: when no CTS comes within rdvGrace, it sends the body
// itself in pieces of msgEager bytes, which the peer copies into the
// Recv's buffer (or keeps until the Recv comes), and ignores the CTS when
// it comes. Control messages are
// those of RDM mode: close note, CTS and FIN (control.go, rendezvous.go).
const (
	msgKindShift = 62
	msgKindData  = uint64(0) << msgKindShift
	msgKindRdv   = uint64(1) << msgKindShift
	msgKindCtl   = uint64(2) << msgKindShift
	msgKindBody  = uint64(3) << msgKindShift
	msgKindMask  = uint64(3) << msgKindShift
	msgEager     = 16 << 10
)

// msgData is the CQ data of a message of kind with low (a tag, or a
// control kind) and, for a rendezvous header, its id.
func msgData(kind uint64, id uint32, low uint32) uint64 {
	return kind | uint64(id&rdvIDs)<<32 | uint64(low)
}

// splitMsgData is msgData's inverse.
func splitMsgData(d uint64) (kind uint64, id uint32, low uint32) {
	return d & msgKindMask, uint32(d>>32) & rdvIDs, uint32(d)
}

// encodeRdvHeader is the body of a rendezvous header: the message's length.
func encodeRdvHeader(n int) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(n)) }

// parseRdvHeader reads a rendezvous header's length from a peer.
func parseRdvHeader(b []byte) (int, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("rendezvous header of %d bytes: %w", len(b), errBadControl)
	}
	n := binary.LittleEndian.Uint64(b)
	if n > maxDrain {
		return 0, fmt.Errorf("rendezvous of %d bytes: %w", n, errBadControl)
	}
	return int(n), nil
}

// A MSG connection's setup carries the ranks: the dialer's in fi_connect's
// parameter (the listener's FI_CONNREQ event data), the acceptor's in
// fi_accept's (the dialer's FI_CONNECTED event data), 8 bytes each.

// encodeRank is a connection parameter naming rank.
func encodeRank(rank int) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(int64(rank))) }

// parseRank reads a peer's connection parameter. Providers may pad the
// parameter (the tcp provider sends what it was given); the first 8 bytes
// are the rank.
func parseRank(b []byte) (int, error) {
	if len(b) < 8 {
		return 0, fmt.Errorf("connection parameter of %d bytes: %w", len(b), errBadControl)
	}
	r := int64(binary.LittleEndian.Uint64(b))
	if r < 0 || r > math.MaxInt32 {
		return 0, fmt.Errorf("connection parameter naming rank %d: %w", r, errBadControl)
	}
	return int(r), nil
}
