package ofi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// States of a Conn.
const (
	stateDialing = iota // hello sent, no answer yet
	stateOpen
	stateRefused // the listener was closed
)

// cancelWait bounds the wait for a canceled or abandoned operation's
// completion (a receive already matched finishes its transfer first).
const cancelWait = 10 * time.Second

// Conn is a connection to one peer rank over the endpoint: a pair of ids,
// one per end, in the tags of its messages. It is a fabric.RMAConn and a
// fabric.Progresser (libfabric's progress is manual: a one-sided write
// lands when the target polls its completion queue).
type Conn struct {
	e    *endpoint
	id   uint32 // this end's id: the tags of the messages to it
	rank int    // the peer's rank, for messages

	// Guarded by e.mu.
	peer       uint32 // the peer's id
	addr       uint64 // the peer's fi_addr_t
	state      int
	closed     bool               // Close was called
	peerClosed bool               // the peer's close note came
	peerSent   uint64             // from the note: the messages the peer sent
	peerMax    uint64             // from the note: the longest
	sent       uint64             // messages posted
	pending    int                // bytes of buffered sends not completed
	sendErr    int                // the FI_E* code of a buffered send that failed
	nextRdv    uint32             // the id of this side's next rendezvous
	rdvOut     map[uint32]*rdvOut // this side's rendezvous not finished
	rdvFin     map[uint32]bool    // the peer's FINs not yet taken
	maxSent    uint64
	recvd      uint64 // messages received
}

var (
	_ fabric.RMAConn    = (*Conn)(nil)
	_ fabric.Progresser = (*Conn)(nil)
)

var errEndpointClosed = errors.New("endpoint closed")

// stopErr reports why a blocked call on c must end: this side's Close, the
// peer's close (when peerToo), or the endpoint's.
func (c *Conn) stopErr(peerToo bool) error {
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	return c.stopErrLocked(peerToo)
}

// stopErrLocked is stopErr with the endpoint's mu held.
func (c *Conn) stopErrLocked(peerToo bool) error {
	switch {
	case c.closed:
		return fmt.Errorf("ofi: connection to rank %d closed: %w", c.rank, fabric.ErrClosed)
	case peerToo && c.peerClosed:
		return fmt.Errorf("ofi: rank %d closed the connection: %w", c.rank, fabric.ErrClosed)
	case c.e.closed:
		return fmt.Errorf("ofi: endpoint closed: %w", fabric.ErrClosed)
	case peerToo && c.sendErr != 0:
		return fmt.Errorf("ofi: send to rank %d: %w: %w", c.rank,
			&Error{Op: "fi_tsend completion", Code: c.sendErr, Text: c.e.l.errText(c.sendErr)}, fabric.ErrClosed)
	}
	return nil
}

// maxPending bounds the bytes of a Conn's buffered sends still in the
// provider: a Send past it waits for earlier ones to go (the peer to
// receive them), under its ctx.
const maxPending = 32 << 20

// Send sends b to the peer with tag and returns once b may be reused. A
// message the provider takes whole (its inject size) is injected; a longer
// one is copied into a buffer of the endpoint's and sent from there, so
// that Send never waits for the peer to post its Recv (the provider's
// rendezvous would), only, past maxPending bytes in flight, for earlier
// messages to go.
func (c *Conn) Send(ctx context.Context, tag uint32, b []byte) error {
	e := c.e
	t := dataTag(c.peer, tag)
	if len(b) <= e.inject {
		var stopped error
		err := e.post(ctx, "fi_tinject", func() int {
			if stopped = c.stopErrLocked(true); stopped != nil {
				return 0
			}
			// The CQ data is the length: udp;ofi_rxd reports a truncated
			// short message as a shorter one.
			a := &e.args
			a[0], a[1], a[2], a[3], a[4], a[5] = e.ep, bufPtr(b), uintptr(len(b)), uintptr(len(b)), uintptr(c.addr), uintptr(t)
			rc := a.call(e.fnInjectData, 6)
			if rc == 0 {
				c.countSentLocked(len(b))
			}
			return rc
		}, func() error { return c.stopErr(true) })
		if err != nil {
			return c.failSend(err)
		}
		return stopped
	}
	if err := c.stopErr(true); err != nil {
		return err
	}
	err := e.wait(ctx, func() bool { return c.pending == 0 || c.pending+len(b) <= maxPending },
		func() error { return c.stopErr(true) })
	if err != nil {
		return err
	}
	if len(b) >= rdvMin {
		return c.sendRendezvous(ctx, t, b)
	}
	headPosted, bodyPosted := false, false
	err = e.post(ctx, "fi_tsend", func() int {
		if !headPosted {
			if c.closed || c.peerClosed || c.sendErr != 0 {
				return 0
			}
			// The header: no bytes, the body's length as CQ data.
			rc := call(e.fnInjectData, e.ep, bufPtr(nil), 0, uintptr(longBit|uint64(len(b))), uintptr(c.addr), uintptr(t))
			if rc != 0 {
				return rc
			}
			headPosted = true
			c.countSentLocked(len(b))
		}
		slot := e.allocLocked(nil)
		if slot < 0 {
			return -errAgain
		}
		p := e.getBufLocked(len(b))
		copy(p, b)
		rc := call(e.fnSend, e.ep, bufPtr(p), uintptr(len(p)), 0, uintptr(c.addr), uintptr(t|bodyBit), e.ctxPtr(slot))
		if rc != 0 {
			e.putBufLocked(p)
			e.freeLocked(slot)
			return rc
		}
		o := &e.ops[slot]
		o.buf, o.auto, o.conn = p, true, c
		c.pending += len(p)
		bodyPosted = true
		return 0
	}, func() error { return c.stopErr(true) })
	if err != nil {
		return c.failSend(err)
	}
	if bodyPosted {
		// The message went: a close the peer sent after taking it (which
		// another goroutine's poll may have read by now) is not this
		// Send's failure.
		return nil
	}
	return c.stopErr(true)
}

// countSentLocked counts a posted message.
func (c *Conn) countSentLocked(n int) {
	c.sent++
	c.maxSent = max(c.maxSent, uint64(n))
}

// failSend closes c after a Send that failed and returns its error.
func (c *Conn) failSend(err error) error {
	_ = c.Close()
	if errors.Is(err, fabric.ErrClosed) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("ofi: send to rank %d: %w (%w)", c.rank, err, fabric.ErrClosed)
}

// Recv receives the oldest message with tag into b. A message longer than
// b is consumed and reported as fabric.ErrTruncated. After the peer's
// Close, the messages it sent before are still received; then Recv reports
// fabric.ErrClosed.
func (c *Conn) Recv(ctx context.Context, tag uint32, b []byte) (int, error) {
	e := c.e
	e.mu.Lock()
	if err := c.stopErrLocked(false); err != nil {
		e.mu.Unlock()
		return 0, err
	}
	if c.peerClosed && c.recvd >= c.peerSent && len(e.strays[dataTag(c.id, tag)]) == 0 {
		err := c.stopErrLocked(true)
		e.mu.Unlock()
		return 0, err
	}
	e.mu.Unlock()
	// After the peer's close note, the Recv still waits while the peer's
	// messages are not all received: one of them may be its own.
	r, err := c.await(ctx, b, dataTag(c.id, tag), func() bool { return c.peerClosed && c.recvd >= c.peerSent })
	if err != nil {
		return 0, err
	}
	switch {
	case r.code == 0 && r.data&(longBit|rdvBit) == longBit|rdvBit:
		return c.recvRendezvous(uint32(r.data>>rdvShift&rdvIDs), int(r.data&lenMask), b)
	case r.code == 0 && r.data&longBit != 0:
		return c.recvBody(tag, int(r.data&^longBit), b)
	case r.code == 0 && r.n <= len(b) && r.data <= uint64(len(b)):
		c.countRecv()
		return r.n, nil
	case r.code == 0 || r.code == errTrunc:
		c.countRecv()
		return 0, fmt.Errorf("ofi: %d-byte message from rank %d into %d bytes: %w", max(uint64(r.n), r.data), c.rank, len(b), fabric.ErrTruncated)
	}
	c.countRecv()
	return 0, fmt.Errorf("ofi: receive from rank %d: a message the provider put in another receive's %s: %w", c.rank,
		&Error{Op: "fi_trecv completion", Code: r.code, Text: e.l.errText(r.code)}, fabric.ErrTruncated)
}

// received is what a receive got: n bytes (a stray's copied into the
// buffer when they fit), its CQ data and the FI_E* code of an error.
type received struct {
	n    int
	data uint64
	code int
}

// await receives the oldest message of tag into b: a stray kept for it, or
// what the receive it posts gets. It returns when ended (called with mu
// held) reports true with no message come, as when ctx ends or the Conn
// closes, with their error.
func (c *Conn) await(ctx context.Context, b []byte, tag uint64, ended func() bool) (received, error) {
	e := c.e
	e.mu.Lock()
	s, ok := e.takeStrayLocked(tag)
	e.mu.Unlock()
	if ok {
		return fromStray(s, b), nil
	}
	slot, err := c.postRecv(ctx, b, tag)
	if err != nil {
		return received{}, err
	}
	err = e.wait(ctx, func() bool {
		return e.ops[slot].done || len(e.strays[tag]) > 0 || ended != nil && ended()
	}, func() error { return c.stopErr(false) })
	e.mu.Lock()
	if !e.ops[slot].done {
		e.mu.Unlock()
		e.cancel(slot, c)
		e.mu.Lock()
	}
	o := e.ops[slot]
	if !o.done {
		e.ops[slot].orphan = true
		e.mu.Unlock()
		return received{}, fmt.Errorf("ofi: receive from rank %d not canceled within %v: %w", c.rank, cancelWait, fabric.ErrClosed)
	}
	e.freeLocked(slot)
	s, isStray := e.takeStrayLocked(tag)
	if isStray && o.err != errCanceled {
		// This receive got a message too, younger than the stray.
		keep := stray{data: o.data, lost: o.err}
		if o.err == 0 {
			keep.payload = append([]byte(nil), b[:min(o.n, len(b))]...)
		}
		e.pushStrayFrontLocked(tag, keep)
	}
	e.mu.Unlock()
	if isStray {
		return fromStray(s, b), nil
	}
	if o.err == errCanceled {
		if err == nil {
			err = c.stopErr(true)
		}
		if err == nil {
			err = fmt.Errorf("ofi: receive from rank %d canceled: %w", c.rank, fabric.ErrClosed)
		}
		return received{}, err
	}
	return received{n: o.n, data: o.data, code: o.err}, nil
}

// fromStray copies s into b when it fits.
func fromStray(s stray, b []byte) received {
	if s.lost != 0 {
		return received{code: s.lost}
	}
	copy(b, s.payload)
	return received{n: len(s.payload), data: s.data}
}

// countRecv counts a message received.
func (c *Conn) countRecv() {
	c.e.mu.Lock()
	c.recvd++
	c.e.mu.Unlock()
}

// postRecv posts a receive of b for tag and returns its slot.
func (c *Conn) postRecv(ctx context.Context, b []byte, tag uint64) (int32, error) {
	e := c.e
	slot := int32(-1)
	err := e.post(ctx, "fi_trecv", func() int {
		if slot = e.allocLocked(b); slot < 0 {
			return -errAgain
		}
		o := &e.ops[slot]
		o.recv, o.want, o.src = true, tag, c.addr
		a := &e.args
		a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = e.ep, bufPtr(b), uintptr(len(b)), 0, uintptr(c.addr), uintptr(tag), 0, e.ctxPtr(slot)
		rc := a.call(e.fnRecv, 8)
		if rc != 0 {
			e.freeLocked(slot)
			slot = -1
		}
		return rc
	}, func() error { return c.stopErr(false) })
	return slot, err
}

// recvBody receives the n-byte body of a long message whose header a
// receive of tag took, into b when it fits, else into a scratch buffer
// (the message is then consumed and reported truncated). The body was
// sent before its header, so it is here or on its way: the wait is bounded
// by cancelWait, not by the Recv's ctx, so that a header is never
// separated from its body.
func (c *Conn) recvBody(tag uint32, n int, b []byte) (int, error) {
	e := c.e
	dst := b
	if n > len(b) {
		e.mu.Lock()
		dst = e.getBufLocked(n)
		e.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	r, err := c.await(ctx, dst[:n], dataTag(c.id, tag)|bodyBit, nil)
	if n > len(b) {
		e.mu.Lock()
		e.putBufLocked(dst)
		e.mu.Unlock()
	}
	if err == nil && r.code != 0 {
		err = &Error{Op: "fi_trecv completion", Code: r.code, Text: e.l.errText(r.code)}
	}
	if err != nil {
		return 0, fmt.Errorf("ofi: body of a %d-byte message from rank %d: %w", n, c.rank, err)
	}
	c.countRecv()
	if n > len(b) {
		return 0, fmt.Errorf("ofi: %d-byte message from rank %d into %d bytes: %w", n, c.rank, len(b), fabric.ErrTruncated)
	}
	return n, nil
}

// cancel asks the provider to cancel the operation in slot and waits, up
// to cancelWait or until c is closed, for its completion (canceled, or
// finished after all).
func (e *endpoint) cancel(slot int32, c *Conn) {
	e.mu.Lock()
	if !e.closed && !e.ops[slot].done {
		call(e.fnCancel, e.ep, e.ctxPtr(slot))
	}
	e.mu.Unlock()
	ctx, stop := context.WithTimeout(context.Background(), cancelWait)
	defer stop()
	// A closed Conn's caller leaves at once; the operation, if the provider
	// did not cancel it, keeps its buffer until it completes.
	_ = e.wait(ctx, func() bool { return e.ops[slot].done || e.closed || c.closed }, func() error { return nil })
}

// Close closes the connection: blocked calls return fabric.ErrClosed, and
// the peer is told how many messages to expect before its own calls do.
// Messages a Send copied for a rendezvous still go when the peer's Recvs
// ask for them.
func (c *Conn) Close() error {
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if len(c.rdvOut) == 0 {
		delete(e.conns, c.id)
	} // else the CTSs of messages sent from copies still find it

	if c.state == stateOpen && !e.closed {
		e.sendControlLocked(c.addr, ctlTag(c.peer, kindClose), closeNote{c.sent, c.maxSent}.encode())
	}
	return nil
}

// Progress polls the endpoint's completion queue once: a peer's one-sided
// operation on this side's memory moves when this side polls.
func (c *Conn) Progress(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.stopErr(false); err != nil {
		return err
	}
	c.e.mu.Lock()
	c.e.pollLocked()
	c.e.mu.Unlock()
	return nil
}
