package ofi

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// Rendezvous. A message of at least rdvMin bytes moves with one copy, the
// provider's one-sided write into the receive buffer (shm: a cross-memory
// attach), instead of a copy into a buffer of the endpoint's and the
// provider's own transfer:
//
//  1. the sender injects a header (no bytes; CQ data: longBit|rdvBit, the
//     rendezvous id and the length) with the message's tag;
//  2. the Recv that takes it registers its buffer and answers a control
//     CTS naming it (or, when the buffer is too short, one that drops the
//     message: it is then reported truncated);
//  3. the sender fi_writes the bytes into the buffer and, once the write
//     completes, sends a control FIN on the same ordered connection, so the
//     bytes are in place before the FIN is handled; the Recv returns when
//     the FIN comes.
//
// A Send waits rdvGrace for the CTS, which comes at once when the peer's
// Recv is posted; else it copies the message into a buffer of the
// endpoint's and returns, and the write goes from the copy when the CTS
// comes, so that a Send never waits for the peer to post its Recv.
const (
	rdvMin   = 64 << 10
	rdvGrace = time.Millisecond
	rdvBit   = uint64(1) << 62 // in a header's CQ data, with longBit
	rdvShift = 32              // the rendezvous id's place in the CQ data
	rdvIDs   = 1<<30 - 1       // its mask
	lenMask  = 1<<32 - 1       // the length's
)

// rdvOut is a rendezvous a Conn's Send started. Guarded by the endpoint's
// mu.
type rdvOut struct {
	c        *Conn
	id       uint32
	n        int
	cts      bool   // the CTS came
	drop     bool   // it said to drop the message (the Recv's buffer was short)
	key      []byte // else, the buffer to write into
	copyBuf  []byte // the message's copy, once the Send has returned
	queued   bool   // a write from the copy waits in the endpoint's queue
	finished bool
}

// cts is a control CTS: the rendezvous and the receive buffer's RMA key,
// or no key to drop the message.
type cts struct {
	id  uint32
	key []byte
}

func (m cts) encode() []byte {
	b := make([]byte, 4, 4+len(m.key))
	binary.LittleEndian.PutUint32(b, m.id)
	return append(b, m.key...)
}

func parseCTS(b []byte) (cts, error) {
	if len(b) != 4 && len(b) != 4+rmaKeyLen {
		return cts{}, fmt.Errorf("CTS of %d bytes: %w", len(b), errBadControl)
	}
	m := cts{id: binary.LittleEndian.Uint32(b)}
	if m.id > rdvIDs {
		return cts{}, fmt.Errorf("CTS for rendezvous %d: %w", m.id, errBadControl)
	}
	if len(b) > 4 {
		m.key = append([]byte(nil), b[4:]...)
	}
	return m, nil
}

// parseFin reads a FIN's rendezvous id.
func parseFin(b []byte) (uint32, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("FIN of %d bytes: %w", len(b), errBadControl)
	}
	id := binary.LittleEndian.Uint32(b)
	if id > rdvIDs {
		return 0, fmt.Errorf("FIN for rendezvous %d: %w", id, errBadControl)
	}
	return id, nil
}

// sendRendezvous sends b, of at least rdvMin bytes, to the peer with tag t.
func (c *Conn) sendRendezvous(ctx context.Context, t uint64, b []byte) error {
	e := c.e
	var r *rdvOut
	err := e.post(ctx, "fi_tinjectdata", func() int {
		if c.closed || c.peerClosed || c.sendErr != 0 {
			return 0
		}
		id := c.nextRdv
		data := longBit | rdvBit | uint64(id)<<rdvShift | uint64(len(b))
		rc := call(e.fnInjectData, e.ep, bufPtr(nil), 0, uintptr(data), uintptr(c.addr), uintptr(t))
		if rc == 0 {
			c.nextRdv = (c.nextRdv + 1) & rdvIDs
			r = &rdvOut{c: c, id: id, n: len(b)}
			if c.rdvOut == nil {
				c.rdvOut = map[uint32]*rdvOut{}
			}
			c.rdvOut[id] = r
			c.countSentLocked(len(b))
		}
		return rc
	}, func() error { return c.stopErr(true) })
	if err != nil {
		return c.failSend(err)
	}
	if r == nil {
		return c.stopErr(true)
	}
	gctx, cancel := context.WithTimeout(ctx, rdvGrace)
	err = e.wait(gctx, func() bool { return r.cts }, func() error { return c.stopErr(true) })
	cancel()
	e.mu.Lock()
	if !r.cts {
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			r.drop = true // nothing to write, no FIN
			e.finishRdvLocked(r)
			e.mu.Unlock()
			return c.failSend(err)
		}
		// No receive yet: the write goes from a copy when the CTS comes.
		r.copyBuf = e.getBufLocked(len(b))
		copy(r.copyBuf, b)
		c.pending += len(b)
		e.mu.Unlock()
		return nil // the peer's close now ends the copy's write, not this Send
	}
	e.mu.Unlock()
	if r.drop {
		e.finishRdv(r)
		return nil
	}
	if err := c.rma(ctx, "fi_write", r.key, 0, b, false); err != nil {
		return c.failSend(err)
	}
	e.finishRdv(r)
	return nil
}

// finishRdv sends r's FIN (unless dropped) and forgets r.
func (e *endpoint) finishRdv(r *rdvOut) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.finishRdvLocked(r)
}

func (e *endpoint) finishRdvLocked(r *rdvOut) {
	if r.finished {
		return
	}
	r.finished = true
	c := r.c
	delete(c.rdvOut, r.id)
	if r.copyBuf != nil {
		c.pending -= r.n
		e.putBufLocked(r.copyBuf)
		r.copyBuf = nil
	}
	if !r.drop {
		e.sendControlLocked(c.addr, ctlTag(c.peer, kindFin), leID(r.id))
	}
	if c.closed && len(c.rdvOut) == 0 {
		delete(e.conns, c.id) // Close left it for this rendezvous' CTS
	}
}

func leID(id uint32) []byte { return binary.LittleEndian.AppendUint32(nil, id) }

// ctsLocked handles a CTS for c: the waiting Send takes it, or, when the
// Send has returned, the write from the copy is queued.
func (e *endpoint) ctsLocked(c *Conn, m cts) {
	r, ok := c.rdvOut[m.id]
	if !ok || r.cts {
		return
	}
	r.cts, r.key, r.drop = true, m.key, m.key == nil
	if r.copyBuf == nil {
		return // the Send is still waiting: it writes
	}
	if r.drop {
		e.finishRdvLocked(r)
		return
	}
	r.queued = true
	e.rdvQueue = append(e.rdvQueue, r)
	e.flushRdvLocked()
}

// flushRdvLocked posts the queued writes from copies, in order, until the
// provider answers FI_EAGAIN. A write that fails otherwise fails its Conn.
func (e *endpoint) flushRdvLocked() {
	for len(e.rdvQueue) > 0 && !e.closed {
		r := e.rdvQueue[0]
		rc := e.postRdvWriteLocked(r)
		if rc == -errAgain {
			return
		}
		e.rdvQueue[0] = nil
		e.rdvQueue = e.rdvQueue[1:]
		if rc != 0 && r.c.sendErr == 0 {
			r.c.sendErr = -rc
		}
	}
}

// postRdvWriteLocked posts r's write from its copy as an operation whose
// completion sends the FIN.
func (e *endpoint) postRdvWriteLocked(r *rdvOut) int {
	addr, mrKey, err := target("fi_write", r.key, 0, r.n, e.mrMode)
	if err != nil {
		return -22 // FI_EINVAL: a CTS with a key that does not fit
	}
	i := e.allocLocked(r.copyBuf)
	if i < 0 {
		return -errAgain
	}
	e.ops[i].auto, e.ops[i].rdv = true, r
	rc := call(e.fnWrite, e.ep, bufPtr(r.copyBuf), uintptr(r.n), 0, uintptr(r.c.addr), uintptr(addr), uintptr(mrKey), e.ctxPtr(i))
	if rc != 0 {
		e.ops[i].buf = nil
		e.freeLocked(i)
	}
	return rc
}

// recvRendezvous receives the rendezvous id of n bytes whose header a
// receive of tag took: it exposes b (or drops the message when b is
// shorter), answers the CTS and waits for the FIN. Like a body's, the wait
// is bounded by cancelWait, not by the Recv's ctx: the header is taken, so
// the message is this Recv's.
func (c *Conn) recvRendezvous(id uint32, n int, b []byte) (int, error) {
	e := c.e
	if n > len(b) {
		e.mu.Lock()
		e.sendControlLocked(c.addr, ctlTag(c.peer, kindCTS), cts{id: id}.encode())
		c.recvd++
		e.mu.Unlock()
		return 0, fmt.Errorf("ofi: %d-byte message from rank %d into %d bytes: %w", n, c.rank, len(b), fabric.ErrTruncated)
	}
	key, release, err := c.Expose(b[:n])
	if err != nil {
		return 0, err
	}
	defer func() { _ = release() }()
	e.mu.Lock()
	e.sendControlLocked(c.addr, ctlTag(c.peer, kindCTS), cts{id: id, key: key}.encode())
	e.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	// The peer's close note may come before the FIN of a message it sent
	// before closing: only this side's Close, the endpoint's or cancelWait
	// end the wait.
	err = e.wait(ctx, func() bool { return c.rdvFin[id] }, func() error { return c.stopErr(false) })
	e.mu.Lock()
	fin := c.rdvFin[id]
	delete(c.rdvFin, id)
	if fin {
		c.recvd++
	}
	e.mu.Unlock()
	if !fin {
		if err == nil {
			err = fmt.Errorf("rank %d closed the connection: %w", c.rank, fabric.ErrClosed)
		}
		return 0, fmt.Errorf("ofi: %d-byte message from rank %d not written: %w", n, c.rank, err)
	}
	return n, nil
}
