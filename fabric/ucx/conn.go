package ucx

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// Conn is a connection to one peer rank over UCX tag matching: an
// endpoint (ucp_ep_h) to the peer's worker, and tags that name the
// receiving side's Conn (see tags.go). It is a fabric.RMAConn. One Send
// and one Recv may run at once; both drive the shared worker.
type Conn struct {
	t        *Transport
	wk       *worker
	id       uint32 // this side's endpoint id: the peer sends to it
	peerID   uint32
	peerRank int
	peerPid  int
	sameHost bool
	ep       uintptr // ucp_ep_h

	// Parameters and results of this Conn's calls, in memory that stays
	// put while UCX uses it. sendHold and recvHold keep the caller's
	// buffer reachable (and so on the heap) while a request uses it.
	sendP, recvP, probeP requestParam
	immP, queueP         requestParam // an eager Send's: at once, else of a copy (see eager.go)
	ctrlP                requestParam // control messages' sends
	recvInfo, probeInfo  tagRecvInfo
	sendHold, recvHold   []byte
	sendReq, recvReq     *request // the requests of Send and Recv (sendP, recvP)
	sendW, recvW, rmaW   waiter   // the waits of Send, Recv and RMA, in place (no allocation a message)

	// Under wk.mu:
	closed      bool    // Close has run
	peerClosed  bool    // the peer's goodbye came
	broken      error   // the endpoint was closed under a Send (its deadline, a dead peer)
	byeReq      uintptr // the receive posted for the peer's goodbye, 0 once it completed
	byeBuf      []byte
	early       []*early           // messages of other tags taken out of UCX's queue (see drain)
	rkeys       map[string]uintptr // unpacked remote keys, by packed key
	nextCheck   time.Time          // when a long wait next looks for the peer's process
	sends       uint64             // Sends and RMA calls so far
	queue       []queued           // copied sends UCX has not completed, oldest first (see eager.go)
	queuedBytes int                // their bytes
	spare       [][]byte           // buffers for copies, empty, of EagerLimit capacity
	spin        time.Duration      // how long waits spin before they yield (see adapt)
}

// early is a message a Recv of another tag took out of UCX's unexpected
// queue, so that its sender's rendezvous could complete (see drain).
type early struct {
	tag uint32
	buf []byte
	req uintptr // the receive moving it, 0 once done
	st  int32
}

// Send sends b as one message with tag. A message of at most EagerLimit
// bytes never waits for the peer (see eager.go); a large one is sent by
// UCX's zero-copy or rendezvous protocols, which end
// when the peer's side has taken it: into the Recv it posted, or into a
// buffer of its own while it waits for another tag (see drain). When ctx
// ends while a rendezvous is under way, the endpoint is closed (UCX
// cannot take back a send), so the connection fails afterwards.
func (c *Conn) Send(ctx context.Context, tag uint32, b []byte) error {
	wk := c.wk
	wk.mu.Lock()
	if err := c.sendable(); err != nil {
		wk.mu.Unlock()
		return err
	}
	var req uintptr
	if len(b) <= EagerLimit {
		sent, r, err := c.sendEager(tag, b)
		if sent {
			wk.mu.Unlock()
			return err
		}
		req = r
	}
	c.sendHold = b
	w := &c.sendW
	*w = newWaiter(wk.singleP)
	w.spin = c.spin
	own := c.sendReq
	if req != 0 {
		own = nil // UCX's own request, freed when it completes
	} else {
		req = wk.call(wk.l.tagSendNbx, c.ep, ptr(b), uintptr(len(b)), uintptr(userTag(c.peerID, tag)), uintptr(unsafe.Pointer(&c.sendP)))
	}
	if req == 0 || isErrPtr(req) {
		c.sendHold = nil
		wk.mu.Unlock()
		if req == 0 {
			return nil
		}
		return c.opErr("ucp_tag_send_nbx", status(req))
	}
	wk.mu.Unlock()
	st, stopped := wk.waitWith(w, req, own, nil, true, func(w *waiter) error {
		if err := deadline.ContextErr(ctx); err != nil {
			return err
		}
		if c.closed {
			return fmt.Errorf("send: %w", fabric.ErrClosed)
		}
		if c.pollBye(); c.peerClosed {
			return fmt.Errorf("send: rank %d closed the connection: %w", c.peerRank, fabric.ErrClosed)
		}
		return c.peerGone(w)
	}, func(_ uintptr, why error) { c.breakLocked(why) })
	c.adapt(w)
	if st == statusGivenUp { // UCX keeps the old one: a new one for the next Send
		c.sendReq = wk.newRequest()
		c.sendP.request = c.sendReq.handle
	}
	c.sendHold = nil
	wk.mu.Unlock()
	runtime.KeepAlive(b)
	switch {
	case stopped != nil && !errors.Is(stopped, fabric.ErrClosed) && st == statusOK:
		return nil // sent after all
	case stopped != nil:
		return stopped
	case st != statusOK:
		return c.opErr("ucp_tag_send_nbx", st)
	}
	return nil
}

// adapt sets the spin budget of c's next waits from how w's wait ended:
// a reply that came while it spun doubles it (up to spinFor), one that
// came only after a yield or two halves it (down to minSpin). The second
// is what a peer on this very CPU looks like (a loaded host's scheduler
// puts the two ends of a ping-pong on one CPU): it runs only when this
// side yields, so every spin is lost, 10 µs a message at spinFor. Caller
// holds mu.
func (c *Conn) adapt(w *waiter) {
	switch {
	case w.yields == 0:
		c.spin = min(2*c.spin, spinFor)
	case w.yields <= 2 && w.nap == 0:
		c.spin = max(c.spin/2, minSpin)
	}
}

// sendable is the error of a Send on c as it stands. Caller holds mu.
func (c *Conn) sendable() error {
	switch {
	case c.closed || !c.wk.open:
		return fmt.Errorf("send: %w", fabric.ErrClosed)
	case c.broken != nil:
		return fmt.Errorf("send: the connection to rank %d broke earlier (%v): %w", c.peerRank, c.broken, fabric.ErrClosed)
	}
	// The goodbye is looked for every byeEvery Sends (and in every wait):
	// a call into UCX that a small message's Send need not pay.
	if c.sends++; c.sends%byeEvery == 0 {
		c.pollBye()
	}
	if c.peerClosed {
		return fmt.Errorf("send: rank %d closed the connection: %w", c.peerRank, fabric.ErrClosed)
	}
	return nil
}

// byeEvery is how many Sends pass between looks for the peer's goodbye.
const byeEvery = 16

// Recv receives the oldest message with tag into b. It takes it from the
// messages a Recv of another tag set aside, else posts a UCX receive; while
// it waits, it sets aside other tags' messages (see drain). When ctx ends,
// the receive is cancelled; a message that has already matched it is
// returned whole instead.
func (c *Conn) Recv(ctx context.Context, tag uint32, b []byte) (int, error) {
	wk := c.wk
	wk.mu.Lock()
	if c.closed || !wk.open {
		wk.mu.Unlock()
		return 0, fmt.Errorf("recv: %w", fabric.ErrClosed)
	}
	if i := c.earlyIndex(tag); i >= 0 {
		e := c.early[i]
		wk.mu.Unlock()
		return c.recvEarly(ctx, e, b)
	}
	c.recvHold = b
	w := &c.recvW
	*w = newWaiter(wk.singleP)
	w.spin = c.spin
	req := wk.call(wk.l.tagRecvNbx, wk.w, ptr(b), uintptr(len(b)), uintptr(userTag(c.id, tag)), uintptr(fullMask), uintptr(unsafe.Pointer(&c.recvP)))
	if req == 0 || isErrPtr(req) {
		n := int(c.recvInfo.length)
		c.recvHold = nil
		wk.mu.Unlock()
		if req == 0 {
			return n, nil
		}
		return 0, c.recvErr(status(req))
	}
	wk.mu.Unlock()
	st, stopped := wk.waitWith(w, req, c.recvReq, &c.recvInfo, false, func(w *waiter) error {
		if err := deadline.ContextErr(ctx); err != nil {
			return err
		}
		if c.closed {
			return fmt.Errorf("recv: %w", fabric.ErrClosed)
		}
		if w.long() {
			c.drain(tag)
		}
		if c.pollBye(); c.peerClosed {
			return fmt.Errorf("recv: rank %d closed the connection: %w", c.peerRank, fabric.ErrClosed)
		}
		return c.peerGone(w)
	}, wk.cancel)
	c.adapt(w)
	c.recvHold = nil
	n := int(c.recvInfo.length)
	wk.mu.Unlock()
	runtime.KeepAlive(b)
	if st == statusOK {
		return n, nil // arrived, even if ctx ended meanwhile
	}
	if stopped != nil {
		return 0, stopped
	}
	return 0, c.recvErr(st)
}

// recvErr is the error of a receive that completed with st.
func (c *Conn) recvErr(st int32) error {
	if st == statusTruncated {
		return fmt.Errorf("recv from rank %d: %w", c.peerRank, fabric.ErrTruncated)
	}
	return c.opErr("ucp_tag_recv_nbx", st)
}

// opErr is the error of an operation that completed with st: a closed
// connection unless the endpoint is still sound.
func (c *Conn) opErr(op string, st int32) error {
	err := c.wk.l.err(op, st)
	if st == statusCanceled {
		return fmt.Errorf("rank %d: %w: %w", c.peerRank, err, fabric.ErrClosed)
	}
	return fmt.Errorf("rank %d: %w (%w)", c.peerRank, err, fabric.ErrClosed)
}

// pollBye notes the peer's goodbye once its receive completed. Caller holds
// mu.
func (c *Conn) pollBye() {
	if c.byeReq == 0 {
		return
	}
	if st := status(c.wk.call(c.wk.l.requestCheckStatus, c.byeReq)); st != statusInProgress {
		c.wk.call(c.wk.l.requestFree, c.byeReq)
		c.byeReq = 0
		if st == statusOK {
			c.peerClosed = true
		}
	}
}

// peerCheckEvery is how often a long wait looks for a same-host peer's
// process.
const peerCheckEvery = 100 * time.Millisecond

// peerGone reports a peer on this host whose process has exited, which
// UCX's endpoints (without error handling: see Transport.newConn) do not
// report. A peer on another host that dies unannounced is noticed only at
// the caller's deadline. Caller holds mu.
func (c *Conn) peerGone(w *waiter) error {
	if !c.sameHost || c.peerPid <= 0 || !w.long() || time.Now().Before(c.nextCheck) {
		return nil
	}
	c.nextCheck = time.Now().Add(peerCheckEvery)
	if err := unix.Kill(c.peerPid, 0); errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("rank %d (pid %d) has exited: %w", c.peerRank, c.peerPid, fabric.ErrClosed)
	}
	return nil
}

// breakLocked closes the endpoint at once, completing its requests, after
// err interrupted a Send under way; the connection fails from then on.
// Caller holds mu.
func (c *Conn) breakLocked(err error) {
	if c.broken != nil || c.ep == 0 {
		return
	}
	c.broken = err
	c.closeEp(true)
}

// closeEp closes the endpoint, forcibly (dropping what it has not sent)
// or after flushing it, and waits a bounded time for UCX to finish.
// Caller holds mu; it is released while it waits.
func (c *Conn) closeEp(force bool) {
	if c.ep == 0 {
		return
	}
	p := &c.wk.s.reqP
	*p = requestParam{opAttrMask: opFieldFlags}
	if force {
		p.flags = epCloseFlagForce
	}
	req := c.wk.call(c.wk.l.epCloseNbx, c.ep, uintptr(unsafe.Pointer(p)))
	c.ep = 0
	if req == 0 || isErrPtr(req) {
		return
	}
	c.wk.waitBounded(req, closeWait)
}

// closeWait bounds the wait for an endpoint's close.
const closeWait = time.Second

// waitBounded progresses until req completes or d passes, and frees it.
// Caller holds mu.
func (wk *worker) waitBounded(req uintptr, d time.Duration) int32 {
	end := time.Now().Add(d)
	for i := 0; ; i++ {
		wk.progress()
		st := status(wk.call(wk.l.requestCheckStatus, req))
		if st != statusInProgress {
			wk.call(wk.l.requestFree, req)
			return st
		}
		if i%checkEvery == 0 && time.Now().After(end) {
			wk.call(wk.l.requestFree, req) // UCX completes it later, on its own
			return statusInProgress
		}
	}
}

// Close says goodbye to the peer and closes the endpoint: after a flush of
// what was sent, or at once when a Send is blocked on it (which then
// fails with ErrClosed). Blocked calls return ErrClosed.
func (c *Conn) Close() error {
	wk := c.wk
	wk.mu.Lock()
	defer wk.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if !wk.open { // the transport is closed: UCX has let go of everything
		return nil
	}
	c.pollBye()
	force := c.broken != nil || c.sendHold != nil
	if !force {
		c.flushQueueLocked() // before the goodbye, which must come after them
	}
	if !force && !c.peerClosed {
		bye := c.byeBuf[:0:0]
		if req := wk.call(wk.l.tagSendNbx, c.ep, ptr(bye), 0, uintptr(ctrlTag(c.peerID, kindBye)), uintptr(unsafe.Pointer(&c.ctrlP))); req != 0 && !isErrPtr(req) {
			wk.waitBounded(req, closeWait)
		}
	}
	if c.byeReq != 0 {
		wk.cancel(c.byeReq, nil)
		if wk.waitBounded(c.byeReq, closeWait) == statusInProgress {
			wk.lost = append(wk.lost, c.byeBuf) // UCX may still write into it
		}
		c.byeReq = 0
	}
	for _, e := range c.early {
		if e.req != 0 && wk.waitBounded(e.req, closeWait) == statusInProgress {
			wk.lost = append(wk.lost, e.buf)
		}
		e.req = 0
	}
	c.early = nil
	for _, rk := range c.rkeys {
		wk.call(wk.l.rkeyDestroy, rk)
	}
	c.rkeys = nil
	c.closeEp(force)
	if len(c.queue) > 0 { // forced: UCX may still read the copies
		for _, q := range c.queue {
			wk.lost = append(wk.lost, q.buf)
		}
		c.queue, c.queuedBytes = nil, 0
	}
	return nil
}

// earlyIndex is the index of the oldest set-aside message with tag, or
// -1. Caller holds mu.
func (c *Conn) earlyIndex(tag uint32) int {
	for i, e := range c.early {
		if e.tag == tag {
			return i
		}
	}
	return -1
}

// drain sets aside the oldest message of c's peer waiting in UCX's
// unexpected queue when its tag is not tag (the one the caller's Recv
// waits for): a receive into a buffer of its length. Without it, a peer
// whose Send of a large message (a rendezvous, which waits for the
// receiver) comes before the message this side waits for would wait
// forever, where fabric.Conn promises that it does not. Caller holds mu.
func (c *Conn) drain(tag uint32) {
	wk := c.wk
	msg := wk.call(wk.l.tagProbeNb, wk.w, uintptr(userTag(c.id, 0)), uintptr(connMask), 0, uintptr(unsafe.Pointer(&c.probeInfo)))
	if msg == 0 || uint32(c.probeInfo.senderTag) == tag {
		return
	}
	msg = wk.call(wk.l.tagProbeNb, wk.w, uintptr(userTag(c.id, 0)), uintptr(connMask), 1, uintptr(unsafe.Pointer(&c.probeInfo)))
	if msg == 0 {
		return
	}
	e := &early{tag: uint32(c.probeInfo.senderTag), buf: make([]byte, c.probeInfo.length)}
	req := wk.call(wk.l.tagMsgRecvNbx, wk.w, ptr(e.buf), uintptr(len(e.buf)), msg, uintptr(unsafe.Pointer(&c.probeP)))
	switch {
	case req == 0:
	case isErrPtr(req):
		e.st = status(req)
	default:
		e.req = req
	}
	c.early = append(c.early, e)
}

// recvEarly completes a Recv from the set-aside message e: waits for its
// transfer to end (ctx ending leaves it set aside) and copies it.
func (c *Conn) recvEarly(ctx context.Context, e *early, b []byte) (int, error) {
	wk := c.wk
	w := newWaiter(wk.singleP)
	for {
		wk.mu.Lock()
		if c.closed || !wk.open { // Close has waited for e's receive and dropped it
			wk.mu.Unlock()
			return 0, fmt.Errorf("recv: %w", fabric.ErrClosed)
		}
		if e.req != 0 {
			wk.progress()
			if st := status(wk.call(wk.l.requestCheckStatus, e.req)); st != statusInProgress {
				wk.call(wk.l.requestFree, e.req)
				e.req, e.st = 0, st
			}
		}
		if e.req == 0 {
			c.early = slices.DeleteFunc(c.early, func(x *early) bool { return x == e })
			wk.mu.Unlock()
			break
		}
		wk.mu.Unlock()
		if w.poll() {
			if err := deadline.ContextErr(ctx); err != nil {
				return 0, err
			}
			w.pause()
		}
	}
	if e.st != statusOK {
		return 0, c.recvErr(e.st)
	}
	n := copy(b, e.buf)
	if n < len(e.buf) {
		return n, fmt.Errorf("recv from rank %d: %d-byte message into %d bytes: %w", c.peerRank, len(e.buf), len(b), fabric.ErrTruncated)
	}
	return n, nil
}
