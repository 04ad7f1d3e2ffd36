package ofi

import (
	"context"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/fabric"
)

// sendRendezvous sends b, of msgEager bytes or more, as a rendezvous: the
// header, then, once the peer's Recv answers with its CTS, an fi_write
// into its buffer and a FIN. It waits for the peer's Recv under ctx.
func (c *msgConn) sendRendezvous(ctx context.Context, tag uint32, b []byte) error {
	r := &msgRdv{}
	var id uint32
	hdr := encodeRdvHeader(len(b))
	stop := func() error { return c.stopErrLocked(true) }
	err := c.post(ctx, "fi_injectdata", func() int {
		id = c.nextRdv
		rc := c.sendSmallLocked(hdr, msgData(msgKindRdv, id, tag))
		if rc == 0 {
			c.nextRdv = (c.nextRdv + 1) & rdvIDs
			c.rdvOut[id] = r
		}
		return rc
	}, stop)
	if err != nil {
		return c.failSend(err)
	}
	gctx, cancel := context.WithTimeout(ctx, rdvGrace)
	err = c.wait(gctx, func() bool { return r.cts }, stop)
	cancel()
	c.mu.Lock()
	delete(c.rdvOut, id)
	got := r.cts
	c.mu.Unlock()
	if !got {
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return c.failSend(err)
		}
		return c.sendPieces(ctx, id, b)
	}
	if r.key == nil {
		return nil // the Recv's buffer was short: it reports the truncation
	}
	if err := c.rmaOff(ctx, "fi_write", r.key, 0, b, false); err != nil {
		return c.failSend(err)
	}
	fin := leID(id)
	err = c.post(ctx, "fi_injectdata", func() int { return c.sendSmallLocked(fin, msgData(msgKindCtl, 0, kindFin)) }, stop)
	if err != nil {
		return c.failSend(err)
	}
	return nil
}

// sendPieces sends the body of rendezvous id itself, in pieces the peer's
// bounce buffers take: its Recv was not posted within rdvGrace.
func (c *msgConn) sendPieces(ctx context.Context, id uint32, b []byte) error {
	stop := func() error { return c.stopErrLocked(true) }
	data := msgData(msgKindBody, id, 0)
	for off := 0; off < len(b); off += msgEager {
		p := b[off:min(off+msgEager, len(b))]
		err := c.wait(ctx, func() bool { return c.pending+len(p) <= maxPending }, stop)
		if err == nil {
			err = c.post(ctx, "fi_senddata", func() int { return c.sendCopyLocked(p, data) }, stop)
		}
		if err != nil {
			return c.failSend(err)
		}
	}
	return nil
}

// msgAsm is a peer's rendezvous as the pieces of its body come, if they
// do: into the Recv's buffer, or kept until the Recv comes.
type msgAsm struct {
	n    int
	got  int
	dst  []byte // the Recv's buffer, once it took the header
	kept []byte // pieces that came before
}

// add takes a piece of the body.
func (a *msgAsm) add(p []byte) {
	if a.dst != nil {
		copy(a.dst[a.got:], p)
	} else {
		a.kept = append(a.kept, p...)
	}
	a.got += len(p)
}

// recvRendezvous receives the rendezvous id of n bytes whose header a Recv
// took: it exposes b (or drops the message when b is shorter), answers the
// CTS and waits for the FIN. The header is taken, so the message is this
// Recv's: the wait is bounded by cancelWait, and ends early when this side
// closes or the peer does (its FIN would have come before its close note).
func (c *msgConn) recvRendezvous(id uint32, n int, b []byte) (int, error) {
	stop := func() error { return c.stopErrLocked(false) }
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	if n > len(b) {
		c.mu.Lock()
		delete(c.rdvIn, id) // pieces that come are dropped
		c.mu.Unlock()
		body := cts{id: id}.encode()
		err := c.post(ctx, "fi_injectdata", func() int { return c.sendSmallLocked(body, msgData(msgKindCtl, 0, kindCTS)) }, stop)
		if err != nil {
			return 0, fmt.Errorf("ofi: %d-byte message from rank %d: %w", n, c.rank, err)
		}
		return 0, c.truncated(n, len(b))
	}
	key, release, err := c.Expose(b[:n])
	if err != nil {
		return 0, err
	}
	defer func() { _ = release() }()
	c.mu.Lock()
	a := c.rdvIn[id]
	if a == nil {
		a = &msgAsm{n: n} // not reached: every header makes its entry
	}
	a.dst = b[:n]
	copy(a.dst, a.kept)
	a.kept = nil
	c.mu.Unlock()
	body := cts{id: id, key: key}.encode()
	err = c.post(ctx, "fi_injectdata", func() int { return c.sendSmallLocked(body, msgData(msgKindCtl, 0, kindCTS)) }, stop)
	if err == nil {
		err = c.wait(ctx, func() bool { return c.rdvFin[id] || a.got >= n || c.peerClosed || c.peerGone }, stop)
	}
	c.mu.Lock()
	fin, got := c.rdvFin[id] || a.got >= n, a.got
	delete(c.rdvFin, id)
	delete(c.rdvIn, id)
	c.mu.Unlock()
	if !fin {
		if err == nil {
			err = fmt.Errorf("rank %d closed the connection: %w", c.rank, fabric.ErrClosed)
		}
		return 0, fmt.Errorf("ofi: %d-byte message from rank %d not written (%d bytes came in pieces): %w", n, c.rank, got, err)
	}
	return n, nil
}

// Expose registers b with the connection's domain for the peer's fi_write
// and fi_read.
func (c *msgConn) Expose(b []byte) ([]byte, func() error, error) {
	req := c.m.nextMRKey()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.stopErrLocked(false); err != nil {
		return nil, nil, err
	}
	return register(c.m.l, c.net.fnMRReg, c.net.domainID, b, req, &c.m.mu, func() bool { return c.m.closed })
}

// Write copies b into the peer's region at off and returns when the
// provider's completion says the bytes are in place (FI_DELIVERY_COMPLETE).
func (c *msgConn) Write(ctx context.Context, key []byte, off int, b []byte) error {
	return c.rmaAt(ctx, "fi_write", key, off, b, true)
}

// Read copies len(b) bytes of the peer's region at off into b.
func (c *msgConn) Read(ctx context.Context, key []byte, off int, b []byte) error {
	return c.rmaAt(ctx, "fi_read", key, off, b, false)
}

// rmaAt checks a Write or Read and runs it.
func (c *msgConn) rmaAt(ctx context.Context, what string, key []byte, off int, b []byte, delivered bool) error {
	if _, _, err := target(what, key, off, len(b), c.net.mrMode); err != nil {
		return err
	}
	if err := c.stopErr(true); err != nil {
		return err
	}
	return c.rmaOff(ctx, what, key, off, b, delivered)
}

// rmaOff posts one fi_write (with FI_DELIVERY_COMPLETE when delivered)
// or fi_read of b at off in the peer's region and waits for its
// completion.
func (c *msgConn) rmaOff(ctx context.Context, what string, key []byte, off int, b []byte, delivered bool) error {
	addr, mrKey, err := target(what, key, off, len(b), c.net.mrMode)
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return nil
	}
	fn := c.fnWrite
	if what == "fi_read" {
		fn = c.fnRead
	}
	slot := int32(-1)
	err = c.post(ctx, what, func() int {
		if slot = c.allocLocked(b); slot < 0 {
			return -errAgain
		}
		var rc int
		if delivered {
			rc = writeDelivered(c.fnWriteMsg, c.ep, b, 0, addr, mrKey, c.ctxPtr(slot))
		} else {
			rc = call(fn, c.ep, bufPtr(b), uintptr(len(b)), 0, 0, uintptr(addr), uintptr(mrKey), c.ctxPtr(slot))
		}
		if rc != 0 {
			c.freeLocked(slot)
			slot = -1
		}
		return rc
	}, func() error { return c.stopErrLocked(true) })
	if err != nil {
		return fmt.Errorf("ofi: %s to rank %d: %w", what, c.rank, err)
	}
	err = c.wait(ctx, func() bool { return c.ops[slot].done }, func() error { return c.stopErrLocked(true) })
	c.mu.Lock()
	o := c.ops[slot]
	if !o.done {
		c.ops[slot].orphan = true
		c.mu.Unlock()
		_ = c.Close() // the provider still holds b: the connection cannot go on
		return fmt.Errorf("ofi: %s to rank %d: %w", what, c.rank, err)
	}
	c.freeLocked(slot)
	c.mu.Unlock()
	if o.err != 0 {
		return fmt.Errorf("ofi: %s to rank %d: %w", what, c.rank, &Error{Op: what + " completion", Code: o.err, Text: c.m.l.errText(o.err)})
	}
	return nil
}
