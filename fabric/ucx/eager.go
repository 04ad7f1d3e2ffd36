package ucx

import (
	"fmt"
	"unsafe"
)

// Eager sends. A message of at most EagerLimit bytes never waits for the
// peer to receive it, so that a communicator may post both halves of an
// exchange before either receive, in one goroutine (fabric.Traits'
// EagerLimit), as MPI's eager protocol allows. Send first asks UCX to
// complete the message at once (UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL: its short
// and bcopy protocols copy it out, which is what almost every small
// message meets). When UCX cannot (its queue to the peer is full, or the
// protocol it picks keeps the buffer: zero copy, or a rendezvous that
// UCX_RNDV_THRESH asked for), Send copies the message, posts the copy and
// returns; the copy completes on whichever wait drives the worker next,
// and the Conn frees it at a later Send or at Close. Past maxQueued bytes
// of such copies, a Send waits for its message as a large one does.
//
// Without this, a small exchange ran its Send in a goroutine of its own,
// which fought the Recv's goroutine for the worker's lock: an 8-byte
// Sendrecv took 20-80 µs against shared memory's 0.4-2 µs.

// EagerLimit is the largest message a Send delivers without waiting for
// the peer (see above): half UCX's default segment size (UCX_SEG_SIZE and
// the shared-memory and tcp transports' own, 8 KiB), well inside what its
// eager protocols send in one fragment. At 8 KiB UCX already sends by
// rendezvous over posix, which needs the sender's endpoint until the peer
// has received: a copy still queued at the sender's Close then brought
// down the receiving process (a UCX assertion), as TestEagerNeverWaits
// showed. A user's UCX_RNDV_THRESH below EagerLimit queues copies too;
// Close waits a bounded time for them (flushQueueLocked).
const EagerLimit = 4 << 10

// maxQueued bounds the bytes of a Conn's copied sends still in UCX.
const maxQueued = 4 << 20

// queued is a copied send UCX has not completed.
type queued struct {
	req uintptr // UCX's request, freed once it completed
	buf []byte  // the copy, which UCX reads until then
}

// EagerLimit returns the largest message Send delivers without waiting
// for the peer to Recv it.
func (c *Conn) EagerLimit() int { return EagerLimit }

// sendEager sends b, of at most EagerLimit bytes, without waiting, and
// reports sent. When not sent, b must take the waiting path (the copies
// in flight are at maxQueued); req is then UCX's request already reading
// b, to wait for, or 0 when b is yet to be posted. Caller holds mu.
func (c *Conn) sendEager(tag uint32, b []byte) (sent bool, req uintptr, err error) {
	wk := c.wk
	if len(c.queue) > 0 {
		c.reapLocked()
		if err := c.sendable(); err != nil {
			return true, 0, err
		}
	}
	t := uintptr(userTag(c.peerID, tag))
	if len(c.queue) == 0 { // else UCX would refuse: it keeps an endpoint's sends in order
		imm := wk.call(wk.l.tagSendNbx, c.ep, ptr(b), uintptr(len(b)), t, uintptr(unsafe.Pointer(&c.immP)))
		switch {
		case imm == 0:
			return true, 0, nil
		case !isErrPtr(imm):
			return false, imm, nil // UCX promises not to, under FORCE_IMM_CMPL
		case status(imm) != statusNoResource:
			return true, 0, c.opErr("ucp_tag_send_nbx", status(imm))
		}
	}
	if c.queuedBytes+len(b) > maxQueued {
		return false, 0, nil
	}
	buf := c.spareBuf(len(b))
	copy(buf, b)
	req = wk.call(wk.l.tagSendNbx, c.ep, ptr(buf), uintptr(len(buf)), t, uintptr(unsafe.Pointer(&c.queueP)))
	switch {
	case req == 0:
		c.spare = append(c.spare, buf[:0])
	case isErrPtr(req):
		c.spare = append(c.spare, buf[:0])
		return true, 0, c.opErr("ucp_tag_send_nbx", status(req))
	default:
		c.queue = append(c.queue, queued{req: req, buf: buf})
		c.queuedBytes += len(buf)
	}
	return true, 0, nil
}

// spareBuf returns a buffer of n bytes, at most EagerLimit, for a copy:
// one a completed copy left, or a new one. Caller holds mu.
func (c *Conn) spareBuf(n int) []byte {
	if k := len(c.spare); k > 0 {
		b := c.spare[k-1]
		c.spare = c.spare[:k-1]
		return b[:n]
	}
	return make([]byte, n, EagerLimit)
}

// reapLocked frees the copied sends UCX has completed, oldest first; one
// that failed breaks the connection. Caller holds mu.
func (c *Conn) reapLocked() {
	wk := c.wk
	n := 0
	for _, q := range c.queue {
		st := status(wk.call(wk.l.requestCheckStatus, q.req))
		if st == statusInProgress {
			break
		}
		wk.call(wk.l.requestFree, q.req)
		n++
		c.queuedBytes -= len(q.buf)
		c.spare = append(c.spare, q.buf[:0])
		if st != statusOK {
			c.breakLocked(fmt.Errorf("an earlier send to rank %d failed: %w", c.peerRank, wk.l.err("ucp_tag_send_nbx", st)))
		}
	}
	clear(c.queue[:n])
	c.queue = c.queue[n:]
}

// flushQueueLocked waits a bounded time for the copied sends to complete,
// at Close; a copy UCX may still read when the time is up is kept alive
// (worker.lost). Caller holds mu.
func (c *Conn) flushQueueLocked() {
	for _, q := range c.queue {
		if c.wk.waitBounded(q.req, closeWait) == statusInProgress {
			c.wk.lost = append(c.wk.lost, q.buf)
		}
	}
	clear(c.queue)
	c.queue, c.queuedBytes, c.spare = nil, 0, nil
}
