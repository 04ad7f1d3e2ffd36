package tcp

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hpcbench/hpcbench/fabric"
)

// One-sided RMA over a byte stream, as libfabric's tcp provider does it with
// manual progress: Write sends the bytes in a frame of their own, which the
// peer's read side copies straight into the exposed region when it reaches
// it, and Read sends a request that the peer's read side answers with a
// reply frame, which this side's read side copies straight into the
// caller's buffer. The peer's read side runs in its Recv and Progress calls
// (fabric.Progresser), and in a Read of its own; frames are handled in
// stream order, so a Write has landed before any message sent after it is
// received.
//
// RMA frames are told from messages by the top byte of the header's length
// word, the frame's kind; the tag field, which messages use in full, is
// zero. The payloads, after the header:
//
//	kindWrite     uint64 region, uint64 offset, the bytes
//	kindReadReq   uint64 region, uint64 offset, uint64 length, uint64 read
//	kindReadResp  uint64 status, uint64 read, then the bytes (status 0) or
//	              why not (text)
//
// where read numbers the requester's reads, so that the answer to a Read
// that gave up is never taken for the next one's.
const (
	kindMessage  uint64 = 0
	kindWrite    uint64 = 1
	kindReadReq  uint64 = 2
	kindReadResp uint64 = 3

	kindShift        = 56
	lenMask   uint64 = 1<<kindShift - 1

	writePreLen    = 16
	readReqLen     = 32
	readRespPreLen = 16
	maxReasonLen   = 4096 // the longest "why not" a read reply may carry
)

// A key is a magic, the region's number and its length, little-endian.
const (
	rmaKeyMagic = 0x6b706374 // "tcpk"
	rmaKeyLen   = 4 + 8 + 8
)

// rmaState is a connection's RMA bookkeeping.
type rmaState struct {
	mu      sync.Mutex
	regions map[uint64][]byte // exposed regions by number
	next    uint64            // the last region number given out

	// The Read in progress (one at a time): its buffer while its answer
	// may still land there, and whether the answer has started to.
	pending []byte
	seq     uint64 // the number of the last Read asked for
	filling bool
	done    chan error    // the answer's outcome, for the Read
	waiting atomic.Bool   // a Read waits for the read side or its answer
	wake    chan struct{} // the read side came free, or Close ran

	// Replies to the peer's reads, in order, written by the replier
	// goroutine so that the read side never waits to write (two peers
	// answering each other's large reads from their read sides would
	// each wait for the other to read).
	replies []readReq
	kick    chan struct{}  // replies has work
	stop    chan struct{}  // closed by Close
	wg      sync.WaitGroup // the replier
	closing bool           // Close ran: no new replier, no new replies
}

// readReq is one read the peer asked for.
type readReq struct{ region, off, n, seq uint64 }

// Expose implements fabric.RMAConn: the peer's Write and Read reach b
// through this side's read side (see Progress) until release.
func (c *conn) Expose(b []byte) ([]byte, func() error, error) {
	if c.closed.Load() {
		return nil, nil, fmt.Errorf("tcp: expose %d bytes to rank %d: %w", len(b), c.peer, fabric.ErrClosed)
	}
	c.rma.mu.Lock()
	c.rma.next++
	id := c.rma.next
	if c.rma.regions == nil {
		c.rma.regions = make(map[uint64][]byte)
	}
	c.rma.regions[id] = b
	c.rma.mu.Unlock()
	key := binary.LittleEndian.AppendUint32(make([]byte, 0, rmaKeyLen), rmaKeyMagic)
	key = binary.LittleEndian.AppendUint64(key, id)
	key = binary.LittleEndian.AppendUint64(key, uint64(len(b)))
	var once sync.Once
	release := func() error {
		once.Do(func() {
			c.rma.mu.Lock()
			delete(c.rma.regions, id)
			c.rma.mu.Unlock()
		})
		return nil
	}
	return key, release, nil
}

// rmaTarget checks key, off and n against each other and returns the
// peer's region number.
func (c *conn) rmaTarget(op string, key []byte, off, n int) (uint64, error) {
	if c.closed.Load() {
		return 0, c.brokenErr("RMA "+op+" to", nil)
	}
	if len(key) != rmaKeyLen || binary.LittleEndian.Uint32(key) != rmaKeyMagic {
		return 0, fmt.Errorf("tcp: RMA %s to rank %d: a key of %d bytes that Expose did not make", op, c.peer, len(key))
	}
	id, size := binary.LittleEndian.Uint64(key[4:]), binary.LittleEndian.Uint64(key[12:])
	if off < 0 || uint64(off)+uint64(n) > size {
		return 0, fmt.Errorf("tcp: RMA %s of %d bytes at offset %d to rank %d: past the end of the peer's %d-byte region", op, n, off, c.peer, size)
	}
	if uint64(n) > MaxMessageSize {
		return 0, fmt.Errorf("tcp: RMA %s of %d bytes to rank %d: more than MaxMessageSize (%d)", op, n, c.peer, uint64(MaxMessageSize))
	}
	return id, nil
}

// Write implements fabric.RMAConn. It returns once b is in the socket; the
// bytes are in the peer's region once its read side has reached them
// (fabric.Progresser), and always before any message sent after the Write.
// A write into a region the peer has released meanwhile is dropped there.
func (c *conn) Write(ctx context.Context, key []byte, off int, b []byte) error {
	id, err := c.rmaTarget("write", key, off, len(b))
	if err != nil {
		return err
	}
	var pre [writePreLen]byte
	binary.LittleEndian.PutUint64(pre[0:], id)
	binary.LittleEndian.PutUint64(pre[8:], uint64(off))
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeFrame(ctx, frameOp{kind: kindWrite}, 0, kindWrite<<kindShift|uint64(writePreLen+len(b)), pre[:], b)
}

// Read implements fabric.RMAConn: it asks the peer for the bytes and waits
// for the answer, reading this side's stream itself unless a Recv or
// Progress is already doing so (their frames are handled as usual; the
// messages among them wait for their Recvs). The peer answers from its
// read side, so it must be in Recv, Progress or a Read of its own.
func (c *conn) Read(ctx context.Context, key []byte, off int, b []byte) error {
	id, err := c.rmaTarget("read", key, off, len(b))
	if err != nil || len(b) == 0 {
		return err
	}
	c.rma.mu.Lock()
	c.rma.seq++
	seq := c.rma.seq
	c.rma.pending, c.rma.filling = b, false
	select {
	case <-c.rma.done: // an abandoned Read's late outcome
	default:
	}
	c.rma.mu.Unlock()
	c.rma.waiting.Store(true)
	defer c.rma.waiting.Store(false)

	var req [readReqLen]byte
	binary.LittleEndian.PutUint64(req[0:], id)
	binary.LittleEndian.PutUint64(req[8:], uint64(off))
	binary.LittleEndian.PutUint64(req[16:], uint64(len(b)))
	binary.LittleEndian.PutUint64(req[24:], seq)
	c.wmu.Lock()
	err = c.writeFrame(ctx, frameOp{kind: kindReadReq}, 0, kindReadReq<<kindShift|readReqLen, req[:], nil)
	c.wmu.Unlock()
	if err != nil {
		c.abandonRead()
		return err
	}
	cancelled := ctx.Done()
	for {
		if c.rmu.TryLock() {
			err := c.driveRead(ctx)
			c.rmu.Unlock()
			return err
		}
		select {
		case err := <-c.rma.done:
			return err
		case <-c.rma.wake:
		case <-cancelled:
			if c.abandonRead() {
				return fmt.Errorf("tcp: RMA read from rank %d: %w", c.peer, ctx.Err())
			}
			// The answer is landing in b under another goroutine's
			// Recv: wait for it to end, or to leave the read side to
			// this Read, whose driveRead then takes b back.
			cancelled = nil
		}
	}
}

// abandonRead gives up the Read in progress, unless its answer has started
// to land in its buffer; it reports whether it did.
func (c *conn) abandonRead() bool {
	c.rma.mu.Lock()
	defer c.rma.mu.Unlock()
	if c.rma.filling {
		return false
	}
	c.rma.pending = nil
	return true
}

// driveRead reads this side's stream for the Read in progress, with the
// read side's lock held, until its answer is in or ctx ends.
func (c *conn) driveRead(ctx context.Context) error {
	for {
		select {
		case err := <-c.rma.done:
			return err
		default:
		}
		if err := c.progress(ctx, "RMA read from"); err != nil {
			if c.abandonRead() {
				return err
			}
			// Interrupted inside the answer: the rest of it is the
			// stream's to skip, not the caller's buffer's to take.
			c.rs.rdst = nil
			c.rma.mu.Lock()
			c.rma.pending, c.rma.filling = nil, false
			c.rma.mu.Unlock()
			return err
		}
	}
}

// Progress implements fabric.Progresser: it reads the stream until one RMA
// frame from the peer has been handled (its write applied, its read
// answered, or this side's read answered), keeping the messages that come
// first for their Recvs, or until ctx ends.
func (c *conn) Progress(ctx context.Context) error {
	c.rmu.Lock()
	defer c.unlockRead()
	return c.progress(ctx, "RMA progress with")
}

// progress is Progress with the read side's lock held.
func (c *conn) progress(ctx context.Context, op string) error {
	if c.closed.Load() {
		return c.brokenErr(op, nil)
	}
	if c.rs.err != nil {
		return c.brokenErr(op, c.rs.err)
	}
	if _, _, err := c.recvArmed(ctx, 0, nil, true); err != nil {
		return c.readFailed(ctx, op, err)
	}
	return nil
}

// unlockRead releases the read side and hands it to a Read that waits for
// it.
func (c *conn) unlockRead() {
	c.rmu.Unlock()
	if c.rma.waiting.Load() {
		select {
		case c.rma.wake <- struct{}{}:
		default:
		}
	}
}

// rmaPrefixLen is how many payload bytes come before an RMA frame's data.
func rmaPrefixLen(kind uint64) (int, error) {
	switch kind {
	case kindWrite:
		return writePreLen, nil
	case kindReadReq:
		return readReqLen, nil
	case kindReadResp:
		return readRespPreLen, nil
	}
	return 0, fmt.Errorf("%w: a frame of unknown kind %d", errProtocol, kind)
}

// rmaFrame reads the current frame, an RMA one, and carries it out: a
// write's bytes go straight into the exposed region, a read request is
// queued for the replier, a read reply's bytes go straight into the
// waiting Read's buffer. Like recvStream, it keeps its place when the
// socket read is interrupted.
func (c *conn) rmaFrame() error {
	r := &c.rs
	pre, err := rmaPrefixLen(r.kind)
	if err != nil {
		return err
	}
	if r.size < pre || (r.kind == kindReadReq && r.size != pre) {
		return fmt.Errorf("%w: an RMA frame of kind %d with %d bytes", errProtocol, r.kind, r.size)
	}
	for r.got < pre {
		k, err := c.readSome(r.rpre[r.got:pre])
		r.got += k
		if err != nil && r.got < pre {
			return midFrame(err)
		}
	}
	if !r.rset {
		if r.rdst, err = c.rmaDest(pre, r.size-pre); err != nil {
			return err
		}
		r.rset = true
	}
	for r.got < r.size {
		var p []byte
		if r.rdst != nil {
			p = r.rdst[r.got-pre:]
		} else {
			if r.scratch == nil {
				r.scratch = make([]byte, discardLen)
			}
			p = r.scratch[:min(r.size-r.got, len(r.scratch))]
		}
		k, err := c.readSome(p)
		r.got += k
		if err != nil && r.got < r.size {
			return midFrame(err)
		}
	}
	c.rmaDone()
	r.next()
	return nil
}

// rmaDest is where the current RMA frame's n bytes after its prefix go:
// the exposed region for a write (nil, to skip them, when the region is
// gone or too small: the writer checked its key, so the region was
// released meanwhile), the waiting Read's buffer for a reply, a buffer of
// its own for a reply's reason.
func (c *conn) rmaDest(pre, n int) ([]byte, error) {
	r := &c.rs
	switch r.kind {
	case kindWrite:
		id, off := binary.LittleEndian.Uint64(r.rpre[0:]), binary.LittleEndian.Uint64(r.rpre[8:])
		c.rma.mu.Lock()
		region, ok := c.rma.regions[id]
		c.rma.mu.Unlock()
		if !ok || off > uint64(len(region)) || uint64(n) > uint64(len(region))-off {
			return nil, nil
		}
		return region[off : off+uint64(n)], nil
	case kindReadResp:
		if binary.LittleEndian.Uint64(r.rpre[0:]) != 0 {
			if n > maxReasonLen {
				return nil, fmt.Errorf("%w: a read reply's reason of %d bytes", errProtocol, n)
			}
			return make([]byte, n), nil
		}
		c.rma.mu.Lock()
		defer c.rma.mu.Unlock()
		if c.rma.pending == nil || binary.LittleEndian.Uint64(r.rpre[8:]) != c.rma.seq || len(c.rma.pending) != n {
			return nil, nil // the Read gave up before its answer came
		}
		c.rma.filling = true
		return c.rma.pending, nil
	}
	return nil, nil
}

// rmaDone finishes the RMA frame just read.
func (c *conn) rmaDone() {
	r := &c.rs
	switch r.kind {
	case kindReadReq:
		c.queueReply(readReq{
			region: binary.LittleEndian.Uint64(r.rpre[0:]),
			off:    binary.LittleEndian.Uint64(r.rpre[8:]),
			n:      binary.LittleEndian.Uint64(r.rpre[16:]),
			seq:    binary.LittleEndian.Uint64(r.rpre[24:]),
		})
	case kindReadResp:
		var err error
		if binary.LittleEndian.Uint64(r.rpre[0:]) != 0 {
			err = fmt.Errorf("tcp: RMA read from rank %d: the peer refused it: %s", c.peer, r.rdst)
		}
		c.rma.mu.Lock()
		ours := c.rma.pending != nil && binary.LittleEndian.Uint64(r.rpre[8:]) == c.rma.seq
		if c.rma.filling || (err != nil && ours) {
			c.rma.done <- err // cap 1, and drained before each Read
		}
		if c.rma.filling || ours {
			c.rma.pending, c.rma.filling = nil, false
		}
		c.rma.mu.Unlock()
	}
}

// queueReply queues the answer to a peer's read for the replier, starting
// it on the first.
func (c *conn) queueReply(q readReq) {
	c.rma.mu.Lock()
	if c.rma.closing {
		c.rma.mu.Unlock()
		return
	}
	c.rma.replies = append(c.rma.replies, q)
	if c.rma.kick == nil {
		c.rma.kick, c.rma.stop = make(chan struct{}, 1), make(chan struct{})
		c.rma.wg.Add(1)
		go c.replier()
	}
	c.rma.mu.Unlock()
	select {
	case c.rma.kick <- struct{}{}:
	default:
	}
}

// replier writes the answers to the peer's reads, in order, until Close.
// An answer that cannot be written ends it: the write side is then broken,
// and the peer's Read fails as its stream ends.
func (c *conn) replier() {
	defer c.rma.wg.Done()
	for {
		select {
		case <-c.rma.stop:
			return
		case <-c.rma.kick:
		}
		for {
			c.rma.mu.Lock()
			if len(c.rma.replies) == 0 {
				c.rma.mu.Unlock()
				break
			}
			q := c.rma.replies[0]
			c.rma.replies = c.rma.replies[1:]
			region, ok := c.rma.regions[q.region]
			c.rma.mu.Unlock()
			if err := c.reply(q, region, ok); err != nil {
				return
			}
		}
	}
}

// reply writes one read's answer: the bytes, or why not.
func (c *conn) reply(q readReq, region []byte, ok bool) error {
	var pre [readRespPreLen]byte
	binary.LittleEndian.PutUint64(pre[8:], q.seq)
	var body []byte
	switch {
	case !ok:
		body = fmt.Appendf(nil, "region %d is not exposed (released, or never)", q.region)
	case q.off > uint64(len(region)) || q.n > uint64(len(region))-q.off:
		body = fmt.Appendf(nil, "%d bytes at offset %d: past the end of the %d-byte region", q.n, q.off, len(region))
	}
	if body != nil {
		binary.LittleEndian.PutUint64(pre[0:], 1)
	} else {
		body = region[q.off : q.off+q.n]
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeFrame(context.Background(), frameOp{kind: kindReadResp}, 0, kindReadResp<<kindShift|uint64(readRespPreLen+len(body)), pre[:], body)
}

// closeRMA stops the replier and wakes a waiting Read; Close calls it after
// closing the socket, which ends the replier's write.
func (c *conn) closeRMA() {
	c.rma.mu.Lock()
	c.rma.closing = true
	stop := c.rma.stop
	c.rma.mu.Unlock()
	if stop != nil {
		close(stop)
		c.rma.wg.Wait()
	}
	select {
	case c.rma.wake <- struct{}{}:
	default:
	}
}

var (
	_ fabric.RMAConn    = (*conn)(nil)
	_ fabric.Progresser = (*conn)(nil)
)
