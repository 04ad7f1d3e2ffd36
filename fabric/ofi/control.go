package ofi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Kinds of control message (the low half of a control tag).
const (
	kindHello   = 1 // dialer → listener: [rank int64][dialer's conn id u32][name length u16][name]
	kindWelcome = 2 // listener → dialer: [acceptor's conn id u32][acceptor's rank u32]
	kindRefuse  = 3 // listener's endpoint → dialer: the listener is closed; no body
	kindClose   = 4 // either end: [messages sent u64][largest message u64]
	kindCTS     = 5 // a rendezvous' receiver → sender: [rendezvous id u32][RMA key, or none to drop]
	kindFin     = 6 // a rendezvous' sender → receiver: [rendezvous id u32], the write done
)

// hello is what a dialer tells a listener.
type hello struct {
	rank int    // the dialer's rank
	id   uint32 // the dialer's Conn id: the tag of messages to it
	name []byte // the dialer's endpoint name, for fi_av_insert
}

// maxName is the longest endpoint name a hello carries (libfabric's
// names are 16 to a few dozen bytes).
const maxName = ctlSize - 14

func (h hello) encode() []byte {
	b := make([]byte, 14, 14+len(h.name))
	binary.LittleEndian.PutUint64(b, uint64(int64(h.rank)))
	binary.LittleEndian.PutUint32(b[8:], h.id)
	binary.LittleEndian.PutUint16(b[12:], uint16(len(h.name)))
	return append(b, h.name...)
}

var errBadControl = errors.New("malformed control message")

// parseHello reads a hello from a peer. It refuses any other length, a
// negative or huge rank, and an id or name out of range.
func parseHello(b []byte) (hello, error) {
	if len(b) < 14 {
		return hello{}, fmt.Errorf("hello of %d bytes: %w", len(b), errBadControl)
	}
	rank := int64(binary.LittleEndian.Uint64(b))
	id := binary.LittleEndian.Uint32(b[8:])
	n := int(binary.LittleEndian.Uint16(b[12:]))
	switch {
	case rank < 0 || rank > math.MaxInt32:
		return hello{}, fmt.Errorf("hello from rank %d: %w", rank, errBadControl)
	case id == 0 || uint64(id) > idMask:
		return hello{}, fmt.Errorf("hello with conn id %d: %w", id, errBadControl)
	case n == 0 || n > maxName || len(b) != 14+n:
		return hello{}, fmt.Errorf("hello with a %d-byte name in %d bytes: %w", n, len(b), errBadControl)
	}
	return hello{rank: int(rank), id: id, name: append([]byte(nil), b[14:]...)}, nil
}

// welcome is what a listener answers a hello with.
type welcome struct {
	id   uint32 // the acceptor's Conn id
	rank int    // the acceptor's rank
}

func (w welcome) encode() []byte {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint32(b, w.id)
	binary.LittleEndian.PutUint32(b[4:], uint32(w.rank))
	return b
}

// parseWelcome reads a welcome from a peer.
func parseWelcome(b []byte) (welcome, error) {
	if len(b) != 8 {
		return welcome{}, fmt.Errorf("welcome of %d bytes: %w", len(b), errBadControl)
	}
	id, rank := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	if id == 0 || uint64(id) > idMask || rank > math.MaxInt32 {
		return welcome{}, fmt.Errorf("welcome with conn id %d, rank %d: %w", id, rank, errBadControl)
	}
	return welcome{id: id, rank: int(rank)}, nil
}

// closeNote is what a closing end tells its peer: how many messages it
// sent (its peer has received them all when it has received that many),
// and the longest, to size the receives that drain them.
type closeNote struct {
	sent, max uint64
}

func (c closeNote) encode() []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, c.sent)
	binary.LittleEndian.PutUint64(b[8:], c.max)
	return b
}

// maxDrain bounds the largest message a close note may announce (1 GiB,
// hpcbench's largest transfer).
const maxDrain = 1 << 30

func parseClose(b []byte) (closeNote, error) {
	if len(b) != 16 {
		return closeNote{}, fmt.Errorf("close of %d bytes: %w", len(b), errBadControl)
	}
	c := closeNote{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}
	if c.max > maxDrain {
		return closeNote{}, fmt.Errorf("close announcing a %d-byte message: %w", c.max, errBadControl)
	}
	return c, nil
}

// postControlRecvLocked posts one control receive.
func (e *endpoint) postControlRecvLocked() error {
	buf := make([]byte, ctlSize)
	i := e.allocLocked(buf)
	if i < 0 {
		return fmt.Errorf("ofi: no free operation slot for a control receive")
	}
	e.ops[i].ctl = true
	rc := call(e.fnRecv, e.ep, bufPtr(buf), ctlSize, 0, uintptr(addrUnspec), uintptr(ctlBit), uintptr(ctlIgnore), e.ctxPtr(i))
	if rc < 0 {
		e.freeLocked(i)
		return e.l.fail("fi_trecv(control)", rc)
	}
	return nil
}

// controlLocked handles the control message that completed in slot i and
// posts the slot's receive again.
func (e *endpoint) controlLocked(i int32) {
	o := e.ops[i]
	e.freeLocked(i)
	if e.closed {
		return
	}
	defer func() { _ = e.postControlRecvLocked() }()
	if o.err != 0 || o.n > len(o.buf) {
		return // canceled, or a message too long to be ours
	}
	id, kind := splitTag(o.tag)
	body := o.buf[:o.n]
	switch kind {
	case kindHello:
		h, err := parseHello(body)
		if err != nil {
			return
		}
		if ln, ok := e.lns[id]; ok {
			ln.pending = append(ln.pending, h)
			return
		}
		if a, err := e.insertLocked(h.name); err == nil {
			e.sendControlLocked(a, ctlTag(h.id, kindRefuse), nil)
		}
	case kindWelcome, kindRefuse:
		c, ok := e.conns[id]
		if !ok || c.state != stateDialing {
			return
		}
		if kind == kindRefuse {
			c.state = stateRefused
			return
		}
		if w, err := parseWelcome(body); err == nil {
			c.peer, c.rank, c.state = w.id, w.rank, stateOpen
		}
	case kindCTS, kindFin:
		c, ok := e.conns[id]
		if !ok {
			return
		}
		if kind == kindCTS {
			if m, err := parseCTS(body); err == nil {
				e.ctsLocked(c, m)
			}
			return
		}
		if rid, err := parseFin(body); err == nil {
			if c.rdvFin == nil {
				c.rdvFin = map[uint32]bool{}
			}
			c.rdvFin[rid] = true
		}
	case kindClose:
		c, ok := e.conns[id]
		if !ok {
			return
		}
		if n, err := parseClose(body); err == nil {
			c.peerClosed, c.peerSent, c.peerMax = true, n.sent, n.max
		}
	}
}

// ctlSend is a control message waiting for the provider to take it.
type ctlSend struct {
	to   uint64
	tag  uint64
	body []byte
}

// sendControlLocked sends a control message without waiting for it. A
// message the provider cannot take yet (FI_EAGAIN: shm and tcp answer so
// while they connect to a new peer) is queued, behind any queued before,
// and tried again at every poll until it goes.
func (e *endpoint) sendControlLocked(to uint64, tag uint64, body []byte) {
	e.ctlQueue = append(e.ctlQueue, ctlSend{to, tag, body})
	e.flushControlLocked()
}

// flushControlLocked sends the queued control messages in order, until
// the provider answers FI_EAGAIN. A message the provider refuses otherwise
// is dropped: its peer is gone, and the waits on it have deadlines.
func (e *endpoint) flushControlLocked() {
	for len(e.ctlQueue) > 0 && !e.closed {
		m := e.ctlQueue[0]
		if rc := e.postControlLocked(m); rc == -errAgain {
			return
		}
		e.ctlQueue[0] = ctlSend{}
		e.ctlQueue = e.ctlQueue[1:]
	}
}

// postControlLocked posts one control message: by fi_tinject when the
// provider takes it whole, else as a send whose slot is freed when it
// completes.
func (e *endpoint) postControlLocked(m ctlSend) int {
	if len(m.body) <= e.inject {
		return call(e.fnInject, e.ep, bufPtr(m.body), uintptr(len(m.body)), uintptr(m.to), uintptr(m.tag))
	}
	i := e.allocLocked(m.body)
	if i < 0 {
		return -errAgain
	}
	e.ops[i].auto = true
	rc := call(e.fnSend, e.ep, bufPtr(m.body), uintptr(len(m.body)), 0, uintptr(m.to), uintptr(m.tag), e.ctxPtr(i))
	if rc != 0 {
		e.freeLocked(i)
	}
	return rc
}
