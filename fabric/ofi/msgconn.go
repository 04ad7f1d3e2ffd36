package ofi

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
)

// Sizes of a MSG connection's tables.
const (
	msgBounces = 32  // bounce receives kept posted, msgEager bytes each
	msgSlots   = 256 // operations at once, the bounce receives included
)

// msgConn is a MSG-mode Conn: one active endpoint with its own completion
// queue, bounce receives always posted, and the messages that came before
// their Recv kept by tag. It is a fabric.RMAConn and a fabric.Progresser.
type msgConn struct {
	m                                                             *msgFabric
	net                                                           *msgNet
	ep                                                            uintptr
	cq                                                            uintptr
	fnRecv, fnSendData, fnInjectData, fnRead, fnWrite, fnWriteMsg uintptr

	mu         sync.Mutex // guards the fields below and every call on ep and cq
	rank       int        // the peer's, -1 while unknown
	connected  bool       // FI_CONNECTED came
	connErr    int        // the FI_E* code of a connection that failed (refused)
	peerGone   bool       // FI_SHUTDOWN came: the peer closed or died
	closed     bool       // Close was called
	lingerEnd  time.Time  // after Close: when the endpoint goes, copies in flight or not
	released   bool       // ep and cq are closed
	peerClosed bool       // the peer's close note came
	sendErr    int        // the FI_E* code of a send that failed
	ctxs       []byte     // contextSize bytes per slot
	ops        []msgOp
	free       []int32
	queues     map[uint32][]inMsg // messages that came before their Recv, by tag
	want       *recvWant          // the Recv waiting, if any
	wantSlot   recvWant           // what want points to while a Recv waits
	repost     []int32            // bounce receives to post again at the next poll
	sending    int                // sends posted, not completed
	pending    int                // bytes of copied sends not completed
	pool       bufPool
	nextRdv    uint32
	rdvOut     map[uint32]*msgRdv // this side's rendezvous waiting for their CTS
	rdvFin     map[uint32]bool    // the peer's FINs not yet taken
	rdvIn      map[uint32]*msgAsm // the peer's rendezvous not yet received, by id
	cqr        cqReader
	args       argv
}

var (
	_ fabric.RMAConn    = (*msgConn)(nil)
	_ fabric.Progresser = (*msgConn)(nil)
)

// msgOp is one operation the provider holds.
type msgOp struct {
	inUse  bool
	bounce bool // a bounce receive: handled and posted again by poll
	send   bool // a copied send: freed when it completes
	done   bool
	orphan bool // its waiter left: freed when it completes
	err    int
	buf    []byte
}

// inMsg is a message received before its Recv: its bytes, or a rendezvous
// header's id and length.
type inMsg struct {
	payload []byte
	rdv     bool
	id      uint32
	n       int
}

// recvWant is a Recv waiting for its message: poll copies a message of its
// tag straight into buf, or hands it a rendezvous header.
type recvWant struct {
	tag  uint32
	buf  []byte
	done bool
	got  inMsg // n is the message's length; payload is nil for a copied one
}

// msgRdv is a rendezvous this side's Send started.
type msgRdv struct {
	cts bool
	key []byte // nil: the receiver drops the message
}

// openConnLocked opens an active endpoint for info (a dialer's fi_getinfo
// or a listener's connection request) with its completion queue, binds
// both and the net's event queue, enables it and posts its bounce
// receives. Called with m.mu held.
func (m *msgFabric) openConnLocked(info uintptr, rank int) (*msgConn, error) {
	n, err := m.netLocked(info)
	if err != nil {
		return nil, err
	}
	l := m.l
	c := &msgConn{m: m, net: n, rank: rank,
		ctxs: make([]byte, msgSlots*contextSize), ops: make([]msgOp, msgSlots),
		queues: map[uint32][]inMsg{}, rdvOut: map[uint32]*msgRdv{}, rdvFin: map[uint32]bool{},
		rdvIn: map[uint32]*msgAsm{}}
	for i := msgSlots - 1; i >= 0; i-- {
		c.free = append(c.free, int32(i))
	}
	if rc := call32(n.fnEndpoint, n.domainID, info, uintptr(unsafe.Pointer(&c.ep)), 0); rc != 0 {
		return nil, l.fail("fi_endpoint", rc)
	}
	var cqAttr [cqAttrSize]byte
	*(*int32)(unsafe.Pointer(&cqAttr[cqAttrFormat])) = cqFormatTagged
	if rc := call32(n.fnCQOpen, n.domainID, uintptr(unsafe.Pointer(&cqAttr[0])), uintptr(unsafe.Pointer(&c.cq)), 0); rc != 0 {
		c.release()
		return nil, l.fail("fi_cq_open", rc)
	}
	for _, s := range []struct {
		op  string
		fid uintptr
		fl  uint64
	}{{"fi_ep_bind(cq)", c.cq, capSend | capRecv}, {"fi_ep_bind(eq)", n.eq, 0}} {
		if rc := bindFid(c.ep, s.fid, s.fl); rc != 0 {
			c.release()
			return nil, l.fail(s.op, rc)
		}
	}
	if rc := controlFid(c.ep, fiEnable, 0); rc != 0 {
		c.release()
		return nil, l.fail("fi_enable", rc)
	}
	c.fnRecv = method(c.ep, epMsg, msgOpsRecv)
	c.fnSendData = method(c.ep, epMsg, msgOpsSendData)
	c.fnInjectData = method(c.ep, epMsg, msgOpsInjectData)
	c.fnRead = method(c.ep, epRMA, rmaOpsRead)
	c.fnWrite = method(c.ep, epRMA, rmaOpsWrite)
	c.fnWriteMsg = method(c.ep, epRMA, rmaOpsWriteMsg)
	c.cqr.open(c.cq)
	c.mu.Lock()
	defer c.mu.Unlock()
	for range msgBounces {
		i := c.allocLocked(make([]byte, msgEager))
		c.ops[i].bounce = true
		if rc := c.postBounceLocked(i); rc != 0 {
			c.releaseLocked()
			return nil, l.fail("fi_recv", rc)
		}
	}
	m.conns[c.ep] = c
	return c, nil
}

// release closes c's endpoint and completion queue.
func (c *msgConn) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.releaseLocked()
}

func (c *msgConn) releaseLocked() {
	if c.released {
		return
	}
	c.released = true
	closeFid(c.ep)
	closeFid(c.cq)
}

// allocLocked takes a free slot for an operation on buf, or returns -1.
func (c *msgConn) allocLocked(buf []byte) int32 {
	if len(c.free) == 0 {
		return -1
	}
	i := c.free[len(c.free)-1]
	c.free = c.free[:len(c.free)-1]
	c.ops[i] = msgOp{inUse: true, buf: buf}
	return i
}

func (c *msgConn) freeLocked(i int32) {
	c.ops[i] = msgOp{}
	c.free = append(c.free, i)
}

func (c *msgConn) ctxPtr(i int32) uintptr {
	return uintptr(unsafe.Pointer(&c.ctxs[int(i)*contextSize]))
}

// postBounceLocked posts bounce receive i.
func (c *msgConn) postBounceLocked(i int32) int {
	b := c.ops[i].buf
	return call(c.fnRecv, c.ep, bufPtr(b), uintptr(len(b)), 0, 0, c.ctxPtr(i))
}

// eqConnected, eqShutdown and eqError take c's connection events (called
// with m.mu held).
func (c *msgConn) eqConnected(rank int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.connected = true
	if c.rank < 0 {
		c.rank = rank
	}
}

func (c *msgConn) eqShutdown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.peerGone = true
}

func (c *msgConn) eqError(code int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if code == 0 {
		code = errConnRefused
	}
	c.connErr = code
}

// awaitConnected waits for FI_CONNECTED, or the connection's failure.
func (c *msgConn) awaitConnected(ctx context.Context) error {
	var state error
	err := c.m.wait(ctx, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch {
		case c.connected:
			return true
		case c.connErr == errConnRefused:
			state = fmt.Errorf("%w: %w", ErrRefused, fabric.ErrClosed)
		case c.connErr != 0:
			state = fmt.Errorf("%w: %w", &Error{Op: "connection", Code: c.connErr, Text: c.m.l.errText(c.connErr)}, fabric.ErrClosed)
		case c.peerGone || c.closed:
			state = fmt.Errorf("the connection closed while it was set up: %w", fabric.ErrClosed)
		}
		return state != nil
	})
	if err == nil && state == nil && !c.isConnected() {
		err = fmt.Errorf("endpoint closed: %w", fabric.ErrClosed)
	}
	if err != nil {
		return fmt.Errorf("no answer: %w", err)
	}
	return state
}

func (c *msgConn) isConnected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.connected
}

// pollLocked reads c's completions and hands them to their operations.
func (c *msgConn) pollLocked() int {
	if c.released {
		return 0
	}
	if len(c.repost) > 0 {
		c.repostLocked()
	}
	return c.cqr.poll(c)
}

// repostLocked posts again the bounce receives whose messages were taken
// since the last poll: not at once, so that the call is not between a
// message's arrival and its Recv's return.
func (c *msgConn) repostLocked() {
	for len(c.repost) > 0 {
		i := c.repost[len(c.repost)-1]
		if c.closed {
			c.freeLocked(i)
		} else if rc := c.postBounceLocked(i); rc == -errAgain {
			return
		} else if rc != 0 {
			c.freeLocked(i)
		}
		c.repost = c.repost[:len(c.repost)-1]
	}
}

// completeLocked records the completion of the operation whose context is
// ctx.
func (c *msgConn) completeLocked(ctx uintptr, code, n int, _, data uint64) {
	base := uintptr(unsafe.Pointer(&c.ctxs[0]))
	if ctx < base || ctx >= base+uintptr(len(c.ctxs)) {
		return
	}
	i := int32((ctx - base) / contextSize)
	o := &c.ops[i]
	if !o.inUse {
		return
	}
	switch {
	case o.bounce:
		if code != 0 {
			// Flushed (the connection is going) or failed: the bounce
			// stays down; a peer that keeps sending finds the connection
			// closed.
			if code != errCanceled && c.sendErr == 0 {
				c.sendErr = code
			}
			c.freeLocked(i)
			return
		}
		c.incomingLocked(data, o.buf[:min(n, len(o.buf))])
		c.repost = append(c.repost, i)
	case o.send:
		c.sending--
		c.pending -= len(o.buf)
		if code != 0 && c.sendErr == 0 {
			c.sendErr = code
		}
		c.pool.putBufLocked(o.buf)
		c.freeLocked(i)
	case o.orphan:
		c.freeLocked(i)
	default:
		o.done, o.err = true, code
	}
}

// incomingLocked takes a message from a bounce buffer: to the waiting
// Recv when it is for its tag and no older one waits, else to the tag's
// queue; control messages to their rendezvous or to the close state.
func (c *msgConn) incomingLocked(data uint64, b []byte) {
	kind, id, low := splitMsgData(data)
	switch kind {
	case msgKindData, msgKindRdv:
		in := inMsg{}
		if kind == msgKindRdv {
			n, err := parseRdvHeader(b)
			if err != nil {
				return
			}
			in = inMsg{rdv: true, id: id, n: n}
			c.rdvIn[id] = &msgAsm{n: n}
		}
		if w := c.want; w != nil && !w.done && w.tag == low && len(c.queues[low]) == 0 {
			w.done = true
			if in.rdv {
				w.got = in
				return
			}
			w.got.n = len(b)
			copy(w.buf, b)
			return
		}
		if !in.rdv {
			in.payload = append([]byte(nil), b...)
		}
		c.queues[low] = append(c.queues[low], in)
	case msgKindBody:
		if a, ok := c.rdvIn[id]; ok {
			a.add(b)
		}
	case msgKindCtl:
		switch low {
		case kindClose:
			c.peerClosed = true
		case kindCTS:
			if m, err := parseCTS(b); err == nil {
				if r, ok := c.rdvOut[m.id]; ok {
					r.cts, r.key = true, m.key
				}
			}
		case kindFin:
			if rid, err := parseFin(b); err == nil {
				c.rdvFin[rid] = true
			}
		}
	}
}

// stopErrLocked reports why a blocked call on c must end: this side's
// Close, the peer's (when peerToo), or a send that failed.
func (c *msgConn) stopErrLocked(peerToo bool) error {
	switch {
	case c.closed || c.released:
		return fmt.Errorf("ofi: connection to rank %d closed: %w", c.rank, fabric.ErrClosed)
	case peerToo && (c.peerClosed || c.peerGone):
		return fmt.Errorf("ofi: rank %d closed the connection: %w", c.rank, fabric.ErrClosed)
	case peerToo && c.sendErr != 0:
		return fmt.Errorf("ofi: send to rank %d: %w: %w", c.rank,
			&Error{Op: "fi_senddata completion", Code: c.sendErr, Text: c.m.l.errText(c.sendErr)}, fabric.ErrClosed)
	}
	return nil
}

func (c *msgConn) stopErr(peerToo bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopErrLocked(peerToo)
}

// eqEvery is how many polls of its own completion queue a wait makes
// between looks at the event queues (a peer's FI_SHUTDOWN) and the other
// connections' completion queues: a look reads every queue (the tcp
// provider's progress), which a ping-pong's spin cannot afford at every
// poll.
const eqEvery = 256

// wait polls c's completion queue until ready (called with mu held) is
// true, ctx ends or stop (called with mu held, every stopEvery polls, and
// every eqEvery after a look at the event queues) reports an error.
func (c *msgConn) wait(ctx context.Context, ready func() bool, stop func() error) error {
	var p pacer
	for n := 1; ; n++ {
		c.mu.Lock()
		c.pollLocked()
		ok := ready()
		c.mu.Unlock()
		if ok {
			return nil
		}
		if n%stopEvery == 0 {
			if n%eqEvery == 0 {
				c.m.pollEQ()
			}
			c.mu.Lock()
			c.pollLocked() // what came before a FI_SHUTDOWN is taken first
			ok = ready()
			err := stop()
			c.mu.Unlock()
			if ok {
				return nil
			}
			if err != nil {
				return err
			}
		}
		if err := p.pause(ctx); err != nil {
			return err
		}
	}
}

// post runs fn, which posts an operation, with mu held, polling and trying
// again while the provider answers FI_EAGAIN, until ctx ends or stop
// (called with mu held) reports an error.
func (c *msgConn) post(ctx context.Context, what string, fn func() int, stop func() error) error {
	var p pacer
	for {
		c.mu.Lock()
		if err := stop(); err != nil {
			c.mu.Unlock()
			return err
		}
		rc := fn()
		if rc == -errAgain {
			c.pollLocked()
		}
		c.mu.Unlock()
		if rc != -errAgain {
			if rc < 0 {
				return c.m.l.fail(what, rc)
			}
			return nil
		}
		if err := p.pause(ctx); err != nil {
			return err
		}
	}
}

// injectLocked posts a message the provider takes whole (fi_injectdata).
func (c *msgConn) injectLocked(b []byte, data uint64) int {
	a := &c.args
	a[0], a[1], a[2], a[3], a[4] = c.ep, bufPtr(b), uintptr(len(b)), uintptr(data), 0
	return a.call(c.fnInjectData, 5)
}

// sendCopyLocked posts b from a copy in a buffer of c's (fi_senddata),
// freed when the send completes, or returns -FI_EAGAIN.
func (c *msgConn) sendCopyLocked(b []byte, data uint64) int {
	i := c.allocLocked(nil)
	if i < 0 {
		return -errAgain
	}
	p := c.pool.getBufLocked(len(b))
	copy(p, b)
	a := &c.args
	a[0], a[1], a[2], a[3], a[4], a[5], a[6] = c.ep, bufPtr(p), uintptr(len(p)), 0, uintptr(data), 0, c.ctxPtr(i)
	rc := a.call(c.fnSendData, 7)
	if rc != 0 {
		c.pool.putBufLocked(p)
		c.freeLocked(i)
		return rc
	}
	o := &c.ops[i]
	o.buf, o.send = p, true
	c.sending++
	c.pending += len(p)
	return 0
}

// sendSmallLocked sends b, shorter than msgEager, with data: injected when
// the provider takes it whole, else from a copy.
func (c *msgConn) sendSmallLocked(b []byte, data uint64) int {
	if len(b) <= c.net.inject {
		return c.injectLocked(b, data)
	}
	return c.sendCopyLocked(b, data)
}

// Send sends b to the peer with tag and returns once b may be reused: a
// message shorter than msgEager bytes is injected or copied and posted,
// and one of msgEager or more waits for the peer's Recv (rendezvous).
func (c *msgConn) Send(ctx context.Context, tag uint32, b []byte) error {
	if len(b) >= msgEager {
		return c.sendRendezvous(ctx, tag, b)
	}
	if len(b) > c.net.inject {
		err := c.wait(ctx, func() bool { return c.pending+len(b) <= maxPending }, func() error { return c.stopErrLocked(true) })
		if err != nil {
			return c.failSend(err)
		}
	}
	err := c.post(ctx, "fi_senddata", func() int { return c.sendSmallLocked(b, msgData(msgKindData, 0, tag)) },
		func() error { return c.stopErrLocked(true) })
	if err != nil {
		return c.failSend(err)
	}
	return nil
}

// failSend closes c after a Send that failed and returns its error.
func (c *msgConn) failSend(err error) error {
	_ = c.Close()
	if errors.Is(err, fabric.ErrClosed) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("ofi: send to rank %d: %w (%w)", c.rank, err, fabric.ErrClosed)
}

// Recv receives the oldest message with tag into b. A message longer than
// b is consumed and reported as fabric.ErrTruncated. After the peer's
// Close, the messages it sent before are still received (they came before
// its close note, on one ordered connection); then Recv reports
// fabric.ErrClosed.
func (c *msgConn) Recv(ctx context.Context, tag uint32, b []byte) (int, error) {
	c.mu.Lock()
	if err := c.stopErrLocked(false); err != nil {
		c.mu.Unlock()
		return 0, err
	}
	if q := c.queues[tag]; len(q) > 0 {
		in := q[0]
		if len(q) == 1 {
			delete(c.queues, tag)
		} else {
			c.queues[tag] = q[1:]
		}
		c.mu.Unlock()
		if in.rdv {
			return c.recvRendezvous(in.id, in.n, b)
		}
		if len(in.payload) > len(b) {
			return 0, c.truncated(len(in.payload), len(b))
		}
		return copy(b, in.payload), nil
	}
	w := &c.wantSlot // one Recv at a time: its slot is reused
	*w = recvWant{tag: tag, buf: b}
	c.want = w
	c.mu.Unlock()
	err := c.wait(ctx, func() bool { return w.done }, func() error { return c.stopErrLocked(true) })
	c.mu.Lock()
	c.want = nil
	done, got := w.done, w.got
	*w = recvWant{}
	c.mu.Unlock()
	if !done {
		return 0, err
	}
	if got.rdv {
		return c.recvRendezvous(got.id, got.n, b)
	}
	if got.n > len(b) {
		return 0, c.truncated(got.n, len(b))
	}
	return got.n, nil
}

func (c *msgConn) truncated(n, room int) error {
	return fmt.Errorf("ofi: %d-byte message from rank %d into %d bytes: %w", n, c.rank, room, fabric.ErrTruncated)
}

// Close closes the connection: blocked calls return fabric.ErrClosed and
// the peer is sent a close note after everything this side sent. The
// endpoint lingers, up to drainWait, while copies this side's Sends left
// behind are in flight (the Transport's waiters poll it); then it is shut
// down and closed.
func (c *msgConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.lingerEnd = time.Now().Add(drainWait)
	if c.connected && !c.peerGone && !c.released {
		// A send with a completion, so that the endpoint lingers until
		// it has gone; no room now (FI_EAGAIN) leaves the peer to notice
		// the shutdown instead.
		c.sendCopyLocked(nil, msgData(msgKindCtl, 0, kindClose))
	}
	linger := c.sending > 0 && !c.released
	if !linger {
		c.shutdownLocked()
	}
	c.mu.Unlock()
	if !linger {
		m := c.m
		m.mu.Lock()
		delete(m.conns, c.ep)
		m.mu.Unlock()
	}
	return nil
}

// shutdownLocked shuts the connection down (fi_shutdown: the peer's
// FI_SHUTDOWN) and closes its endpoint and completion queue.
func (c *msgConn) shutdownLocked() {
	if c.released {
		return
	}
	if c.connected && !c.peerGone {
		call32(method(c.ep, epCM, cmOpsShutdown), c.ep, 0)
	}
	c.releaseLocked()
}

// Progress polls c's completion queue once: with a provider whose
// progress is manual, a peer's one-sided operation moves when this side
// polls.
func (c *msgConn) Progress(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.stopErrLocked(false); err != nil {
		return err
	}
	c.pollLocked()
	return nil
}
