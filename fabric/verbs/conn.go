package verbs

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// conn is a fabric.Conn and fabric.RMAConn over one RC queue pair.
//
// Send, Recv and the RMA calls each have their own lock (one of each may
// run at a time, as fabric.Conn allows); everything they share, and every
// call into the device, is under mu. Nothing runs in the background but
// the side channel's reader, which only watches for the peer's end: the
// completion queue is polled by whichever call is waiting (busy-polled,
// or with EventMode through the CQ's completion channel).
type conn struct {
	peer   int
	ep     *endpoint
	side   net.Conn       // the TCP side channel, kept open to see the peer go
	sideWG sync.WaitGroup // its reader
	events bool
	spin   time.Duration
	inline int // payloads of up to inline bytes (header included) go inline
	chunk  int // payload bytes per slot: the smaller ring's slot less the header

	closed   atomic.Bool // Close was called
	peerGone atomic.Bool // the side channel ended: the peer closed or died

	smu, rmu, amu sync.Mutex // one Send, one Recv, one RMA call

	mu      sync.Mutex
	flow    flow
	sfree   slotFree
	wc      [32]WorkCompletion
	broken  error // sticky: a failed completion or a protocol error
	byeSeen bool  // the peer sent kindBye: nothing more will come
	werr    error // sticky: an interrupted Send shut this side's sending down
	queued  map[uint32][]*message
	cur     *message // the message being reassembled
	want    *recvReq // the Recv waiting, if any
	rma     rmaState // the RMA call in flight
	exposed map[MR]struct{}
	closing bool // Close is tearing down: flushed completions are expected
}

// message is a received message, whole or being reassembled.
type message struct {
	tag   uint32
	total int
	got   int
	buf   []byte   // total bytes: a Recv's own buffer (direct) or the heap
	req   *recvReq // the Recv whose buffer buf is, when direct
}

// recvReq is the waiting Recv, whose buffer a matching message may be
// received into directly.
type recvReq struct {
	tag  uint32
	b    []byte
	done bool // a message was received into b
	n    int
}

var (
	_ fabric.Conn    = (*conn)(nil)
	_ fabric.RMAConn = (*conn)(nil)
)

// newConn wraps an endpoint in RTS whose peer, rank peer, has ring
// geometry remote, and starts watching the side channel.
func newConn(ep *endpoint, side net.Conn, peer int, remote Endpoint, o Options) *conn {
	c := &conn{
		peer:    peer,
		ep:      ep,
		side:    side,
		events:  o.EventMode,
		spin:    o.Spin,
		inline:  min(max(o.Inline, 0), ep.qp.qp.Cap().MaxInlineData),
		chunk:   min(o.SlotSize, int(remote.SlotSize)) - hdrLen,
		flow:    newFlow(o.Slots, int(remote.Slots)),
		sfree:   newSlotFree(ep.send.n),
		queued:  map[uint32][]*message{},
		exposed: map[MR]struct{}{},
	}
	c.sideWG.Go(c.watchSide)
	return c
}

// watchSide waits for the side channel to end (nothing is sent on it after
// the handshake) and marks the peer gone.
func (c *conn) watchSide() {
	var b [1]byte
	_, _ = c.side.Read(b[:])
	c.peerGone.Store(true)
}

// fail records the connection's first fatal error; mu is held.
func (c *conn) fail(err error) {
	if c.broken == nil {
		c.broken = err
	}
}

// closedErr is the error of a call (op, "send tag 3 to rank 1") that
// finds the connection unusable, wrapping fabric.ErrClosed, or nil. mu
// is held. gone is peerGone as read before the last poll, so that
// messages that arrived before the peer left are still received.
func (c *conn) closedErr(op string, gone bool) error {
	// The peer's going comes before a failure, which its going may have
	// caused (a credit message into a destroyed queue pair).
	switch {
	case c.closed.Load():
		return fmt.Errorf("verbs: %s: %w by this side", op, fabric.ErrClosed)
	case c.byeSeen || gone:
		return fmt.Errorf("verbs: %s: %w by the peer", op, fabric.ErrClosed)
	case c.broken != nil:
		return fmt.Errorf("verbs: %s: %w: %w", op, fabric.ErrClosed, c.broken)
	}
	return nil
}

// progress polls the completion queue once and handles what it finds,
// then sends a credit message if one is due; mu is held.
func (c *conn) progress() {
	if c.broken != nil {
		return
	}
	n, err := c.ep.cq.Poll(c.wc[:])
	if err != nil {
		c.fail(fmt.Errorf("polling the completion queue: %w", err))
		return
	}
	for i := range n {
		c.handle(&c.wc[i])
	}
	// No credits for a peer that has gone: its queue pair may be gone too.
	if c.broken == nil && !c.byeSeen && !c.peerGone.Load() && c.flow.creditDue() && c.flow.canCredit() {
		c.postControl(kindCredit)
	}
}

// handle acts on one completion; mu is held.
func (c *conn) handle(wc *WorkCompletion) {
	kind, i := splitWRID(wc.WRID)
	if wc.Status != WCSuccess {
		if c.closing && wc.Status == WCWRFlushErr {
			return
		}
		c.fail(&WCError{Op: describeWR(wc.WRID, c.peer, c.rma.op), WRID: wc.WRID, Status: wc.Status})
		if kind == wrRMA {
			c.rma.pending = false
		}
		return
	}
	switch kind {
	case wrRecv:
		if i >= uint64(c.ep.recv.n) {
			c.fail(fmt.Errorf("%w: a receive completion for slot %d of %d", errProtocol, i, c.ep.recv.n))
			return
		}
		c.onRecv(int(i), int(wc.ByteLen))
	case wrSend:
		if err := c.sfree.put(int(i)); err != nil {
			c.fail(fmt.Errorf("%w: %w", errProtocol, err))
		}
	case wrRMA:
		if i == c.rma.seq {
			c.rma.pending = false
		}
	default:
		c.fail(fmt.Errorf("%w: a completion with wr_id %#x, which this side never posted", errProtocol, wc.WRID))
	}
}

// onRecv consumes received slot i of n bytes and posts it again; mu is
// held.
func (c *conn) onRecv(i, n int) {
	slot := c.ep.recv.slot(i)[:n]
	if err := c.consume(slot); err != nil {
		c.fail(fmt.Errorf("receive from rank %d: %w", c.peer, err))
		return
	}
	if err := c.ep.qp.qp.PostRecv(RecvWR{WRID: wrID(wrRecv, uint64(i)), SGE: c.ep.recv.sge(i, c.ep.recv.size)}); err != nil {
		c.fail(fmt.Errorf("posting receive slot %d again: %w", i, err))
		return
	}
	c.flow.reposted()
}

// consume handles a received slot's header and payload; mu is held.
func (c *conn) consume(slot []byte) error {
	h, err := parseHeader(slot)
	if err != nil {
		return err
	}
	if err := c.flow.returned(h.credits); err != nil {
		return err
	}
	payload := slot[hdrLen:]
	switch h.kind {
	case kindCredit:
		return nil
	case kindBye:
		c.byeSeen, c.cur = true, nil // a message cut short is dropped
		return nil
	case kindData:
		if c.cur != nil {
			return fmt.Errorf("%w: a message (tag %d) began before the last one (tag %d, %d of %d bytes) ended", errProtocol, h.tag, c.cur.tag, c.cur.got, c.cur.total)
		}
		m := &message{tag: h.tag, total: int(h.length)}
		if r := c.want; r != nil && !r.done && r.tag == h.tag && len(c.queued[h.tag]) == 0 && m.total <= len(r.b) {
			m.buf, m.req = r.b[:m.total], r
		} else {
			m.buf = make([]byte, m.total)
		}
		c.cur = m
	case kindMore:
		if c.cur == nil || c.cur.tag != h.tag || c.cur.total != int(h.length) {
			return fmt.Errorf("%w: a continuation (tag %d, length %d) of no message being received", errProtocol, h.tag, h.length)
		}
	}
	m := c.cur
	if want := min(c.chunk, m.total-m.got); len(payload) != want {
		return fmt.Errorf("%w: a chunk of %d bytes at byte %d of a %d-byte message (tag %d); want %d", errProtocol, len(payload), m.got, m.total, m.tag, want)
	}
	m.got += copy(m.buf[m.got:], payload)
	if m.got == m.total {
		c.cur = nil
		if m.req != nil {
			m.req.done, m.req.n = true, m.total
		} else {
			c.queued[m.tag] = append(c.queued[m.tag], m)
		}
	}
	return nil
}

// postControl sends a message without payload (kindCredit, kindBye) if a
// send slot is free; mu is held.
func (c *conn) postControl(kind uint8) bool {
	i, ok := c.sfree.get()
	if !ok {
		return false
	}
	c.post(i, header{kind: kind, credits: c.flow.spend()}, nil)
	return true
}

// post sends h and payload from send slot i; mu is held, a credit is
// spent and h carries the credits returned.
func (c *conn) post(i int, h header, payload []byte) {
	s := c.ep.send.slot(i)
	putHeader(s, h)
	n := hdrLen + copy(s[hdrLen:], payload)
	wr := SendWR{WRID: wrID(wrSend, uint64(i)), Opcode: WRSend, Flags: SendSignaled, SGE: c.ep.send.sge(i, n)}
	if n <= c.inline {
		wr.Flags |= SendInline
	}
	if err := c.ep.qp.qp.PostSend(wr); err != nil {
		_ = c.sfree.put(i)
		c.fail(fmt.Errorf("send to rank %d: %w", c.peer, err))
	}
}

// Close ends the connection: blocked calls return errors wrapping
// fabric.ErrClosed, the peer is told (a kindBye when a credit allows,
// and the side channel's end), and the queue pair, its completion queue
// and memory are released. A second Close returns an error wrapping
// ErrClosed.
func (c *conn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return fmt.Errorf("verbs: close connection to rank %d: %w already", c.peer, fabric.ErrClosed)
	}
	// The calls in progress see closed and leave.
	c.smu.Lock()
	defer c.smu.Unlock()
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.amu.Lock()
	defer c.amu.Unlock()

	c.mu.Lock()
	c.goodbye()
	c.closing = true
	var errs []error
	for mr := range c.exposed {
		errs = append(errs, mr.Close())
	}
	c.exposed = nil
	c.mu.Unlock()

	errs = append(errs, c.side.Close())
	c.sideWG.Wait()
	errs = append(errs, c.ep.close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("verbs: close connection to rank %d: %w", c.peer, err)
	}
	return nil
}

// byeWait bounds how long Close waits for a send slot for its kindBye and
// for the sends in flight to complete.
const byeWait = 100 * time.Millisecond

// goodbye sends kindBye if the connection is healthy and waits, briefly,
// for every send in flight to complete, so that the peer has them before
// the side channel ends; mu is held.
func (c *conn) goodbye() {
	if c.broken != nil || c.byeSeen || c.peerGone.Load() {
		return
	}
	stop := time.Now().Add(byeWait)
	sent := false
	for time.Now().Before(stop) && c.broken == nil {
		if !sent && c.flow.canBye() {
			sent = c.postControl(kindBye)
		}
		if (sent || !c.flow.canBye()) && c.sfree.idle() {
			return
		}
		c.progress()
		c.mu.Unlock()
		time.Sleep(10 * time.Microsecond)
		c.mu.Lock()
	}
}
