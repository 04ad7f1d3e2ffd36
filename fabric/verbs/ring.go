package verbs

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The slot protocol. Each side keeps Slots receives of SlotSize bytes
// posted; every message the other side sends fills one. A message is
// kindData (the first chunk, which names the tag and the whole length)
// followed by as many kindMore chunks as its length needs; kindCredit
// carries credits only; kindBye says the sender will send nothing more.
//
// Every slot opens with a 16-byte header, little-endian:
//
//	offset 0   uint8   kind
//	offset 1   [3]byte zero
//	offset 4   uint32  credits: receives the sender re-posted since its
//	                   last message (piggy-backed credit return)
//	offset 8   uint32  tag
//	offset 12  uint32  the message's whole length (kindData, kindMore)
const (
	hdrLen = 16

	kindData   = 1
	kindMore   = 2
	kindCredit = 3
	kindBye    = 4

	// MaxMessageSize is the largest message Send accepts: the header's
	// length is 32 bits.
	MaxMessageSize = 1<<32 - 1
)

// errProtocol means the peer sent a slot that is not this protocol.
var errProtocol = errors.New("protocol error")

// header is a decoded slot header.
type header struct {
	kind    uint8
	credits uint32
	tag     uint32
	length  uint32
}

// putHeader writes h at the start of b.
func putHeader(b []byte, h header) {
	b[0], b[1], b[2], b[3] = h.kind, 0, 0, 0
	binary.LittleEndian.PutUint32(b[4:], h.credits)
	binary.LittleEndian.PutUint32(b[8:], h.tag)
	binary.LittleEndian.PutUint32(b[12:], h.length)
}

// parseHeader decodes the header of a received slot of n bytes.
func parseHeader(b []byte) (header, error) {
	if len(b) < hdrLen {
		return header{}, fmt.Errorf("%w: a %d-byte slot, shorter than its %d-byte header", errProtocol, len(b), hdrLen)
	}
	h := header{
		kind:    b[0],
		credits: binary.LittleEndian.Uint32(b[4:]),
		tag:     binary.LittleEndian.Uint32(b[8:]),
		length:  binary.LittleEndian.Uint32(b[12:]),
	}
	if h.kind < kindData || h.kind > kindBye || b[1]|b[2]|b[3] != 0 {
		return header{}, fmt.Errorf("%w: slot header %x: unknown kind or reserved bits set", errProtocol, b[:hdrLen])
	}
	if (h.kind == kindCredit || h.kind == kindBye) && len(b) != hdrLen {
		return header{}, fmt.Errorf("%w: a kind %d slot of %d bytes; it carries no payload", errProtocol, h.kind, len(b))
	}
	return h, nil
}

// Credits. A data chunk may only be sent while the peer has a receive
// posted for it, else the peer's adapter answers RNR and the link stalls
// (with rnr_retry 7, for ever). The sender starts with the peer's Slots
// credits and spends one per message; the receiver, after copying a slot
// out and posting it again, owes the sender one, and returns what it owes
// in the header of its next message, or in a kindCredit message once it
// owes half its ring. Two credits are kept back from data: the last one
// for kindBye, the one before it for kindCredit, so that a side whose
// data is blocked can still return credits and say goodbye.
//
// Why this cannot deadlock: a side blocked on data credits has at least
// peerSlots-2 messages at the peer unreturned; the peer, polling (it is in
// a call, or it is not receiving and the block is flow control), owes at
// least half its ring of them and sends a kindCredit, which it can afford:
// its own unreturned messages are fewer than half our ring, or we
// would be owing and sending.
const (
	reserveBye    = 1
	reserveCredit = 2
)

// flow is one connection's credit bookkeeping.
type flow struct {
	credits   int // messages the peer has receives posted for
	peerSlots int // the peer's ring: credits never exceed it
	owed      int // receives re-posted that the peer has not been told of
	threshold int // owed at which a kindCredit is due
}

// newFlow starts with the peer's whole ring as credits; a credit message
// is due when this side owes half of its own ring.
func newFlow(mySlots, peerSlots int) flow {
	return flow{credits: peerSlots, peerSlots: peerSlots, threshold: max(1, mySlots/2)}
}

// canData reports whether a data chunk may be sent.
func (f *flow) canData() bool { return f.credits > reserveCredit }

// canCredit reports whether a kindCredit may be sent.
func (f *flow) canCredit() bool { return f.credits > reserveBye }

// canBye reports whether a kindBye may be sent.
func (f *flow) canBye() bool { return f.credits > 0 }

// creditDue reports whether this side owes enough to send a kindCredit.
func (f *flow) creditDue() bool { return f.owed >= f.threshold }

// spend takes one credit for a message and returns the credits to
// piggy-back on it, which are then no longer owed.
func (f *flow) spend() uint32 {
	f.credits--
	n := f.owed
	f.owed = 0
	return uint32(n)
}

// reposted counts a receive posted again after its slot was consumed.
func (f *flow) reposted() { f.owed++ }

// returned adds credits the peer returned; more than its ring holds is a
// protocol error.
func (f *flow) returned(n uint32) error {
	if uint64(f.credits)+uint64(n) > uint64(f.peerSlots) {
		return fmt.Errorf("%w: the peer returned %d credits with %d in hand, more than its %d receive slots", errProtocol, n, f.credits, f.peerSlots)
	}
	f.credits += int(n)
	return nil
}

// ring is Slots slots of one size in one registered region; slot i is
// named by wr_id kind|i.
type ring struct {
	mr   MR
	size int
	n    int
}

// slot returns slot i's memory.
func (r *ring) slot(i int) []byte { return r.mr.Bytes()[i*r.size : (i+1)*r.size] }

// sge names the first n bytes of slot i.
func (r *ring) sge(i, n int) SGE {
	return SGE{Addr: r.mr.Addr() + uint64(i*r.size), Len: uint32(n), LKey: r.mr.LKey()}
}

// slotFree is the free list of a send ring's slots.
type slotFree struct {
	free []int
	n    int
}

// newSlotFree returns a free list with all n slots free.
func newSlotFree(n int) slotFree {
	s := slotFree{free: make([]int, n), n: n}
	for i := range n {
		s.free[i] = n - 1 - i
	}
	return s
}

// get takes a free slot, or returns false when none is.
func (s *slotFree) get() (int, bool) {
	if len(s.free) == 0 {
		return 0, false
	}
	i := s.free[len(s.free)-1]
	s.free = s.free[:len(s.free)-1]
	return i, true
}

// put gives slot i back; a slot given back twice or out of range is an
// error (a completion the transport did not post).
func (s *slotFree) put(i int) error {
	if i < 0 || i >= s.n || len(s.free) >= s.n {
		return fmt.Errorf("send slot %d: not one in flight (%d of %d free)", i, len(s.free), s.n)
	}
	s.free = append(s.free, i)
	return nil
}

// idle reports whether every slot is free: no send is in flight.
func (s *slotFree) idle() bool { return len(s.free) == s.n }
