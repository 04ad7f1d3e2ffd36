package tcp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// discardLen is the size of the buffer that skips the tail of a truncated
// message.
const discardLen = 64 << 10

// recvState is the read side's position in the byte stream. It lives across
// Recv calls, so that a Recv interrupted by its context anywhere in a message
// loses nothing: the next Recv resumes where it stopped.
type recvState struct {
	hdr  [FrameHeaderLen]byte
	hdrN int    // bytes of the current frame's header read so far
	tag  uint32 // the current frame's tag, once hdrN == FrameHeaderLen
	kind uint64 // its kind: kindMessage, or an RMA frame's (rma.go)
	size int    // its payload length
	got  int    // payload bytes read so far

	// An RMA frame's prefix, and where its bytes after the prefix go once
	// rset (nil: skipped).
	rpre [readReqLen]byte
	rdst []byte
	rset bool

	// body holds the current frame's payload when it cannot go straight into
	// a caller's buffer: its tag is not the one being received, or the Recv
	// reading it directly was interrupted (the bytes read so far are copied
	// here, because the caller's buffer is the caller's again). nil while the
	// payload can still go straight to a caller.
	body []byte

	// buf holds bytes read from the socket ahead of need, buf[bpos:bend]
	// not yet consumed: a small message's header and payload usually come
	// in one read(2) instead of two.
	buf        []byte
	bpos, bend int

	skip    int                 // bytes of a truncated message still to discard
	scratch []byte              // discard buffer, made on the first truncation
	queue   map[uint32][][]byte // unexpected messages by tag, oldest first
	err     error               // sticky: why the read side is unusable
}

// Recv receives the oldest message with tag into b. A matching message that
// is next on the wire is read straight into b; messages with other tags that
// come first are copied into a queue for later Recvs. A message longer than
// b fills b, the rest is skipped, and the error wraps fabric.ErrTruncated
// (n is len(b)). If ctx ends, Recv returns ctx's error and the connection
// stays usable, even in the middle of a message.
func (c *conn) Recv(ctx context.Context, tag uint32, b []byte) (int, error) {
	c.rmu.Lock()
	defer c.unlockRead()
	if c.closed.Load() {
		return 0, c.brokenErr(recvOp(tag), nil)
	}
	if m, ok := c.rs.pop(tag); ok {
		return c.result(tag, copy(b, m), len(m), len(b))
	}
	if c.rs.err != nil {
		return 0, c.brokenErr(recvOp(tag), c.rs.err)
	}
	n, full, err := c.recvArmed(ctx, tag, b, false)
	if err == nil {
		return c.result(tag, n, full, len(b))
	}
	return 0, c.readFailed(ctx, recvOp(tag), err)
}

// readFailed is the error of a call whose recvArmed failed with err: when
// ctx ended, ctx's, and the read side stays usable; otherwise the socket's,
// and the read side is unusable from now on.
func (c *conn) readFailed(ctx context.Context, op string, err error) error {
	if isTimeout(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if cerr := deadline.ContextErr(ctx); cerr != nil {
			err = cerr
		}
		return fmt.Errorf("tcp: %s rank %d: %w", op, c.peer, err)
	}
	c.rs.err = err
	return c.brokenErr(op, err)
}

// recvArmed is recvStream under ctx: its deadline and cancellation
// interrupt the socket reads and end the busy-poll. The caller holds rmu.
// An error is the socket's, unwrapped, or ctx's when it had ended before.
func (c *conn) recvArmed(ctx context.Context, tag uint32, b []byte, rmaOnly bool) (n, full int, err error) {
	if err := c.rd.arm(ctx); err != nil {
		c.dropIfClosed()
		return 0, 0, err
	}
	if c.spinFn != nil {
		c.sp.done = ctx.Done()
		c.sp.dl, _ = ctx.Deadline()
	}
	n, full, err = c.recvStream(tag, b, rmaOnly)
	c.sp.done = nil
	c.dropIfClosed()
	return n, full, err
}

// result is Recv's return for a message of full bytes of which n were
// stored in a bufLen-byte buffer.
func (c *conn) result(tag uint32, n, full, bufLen int) (int, error) {
	if full > bufLen {
		return n, fmt.Errorf("tcp: %s rank %d: %d-byte message into a %d-byte buffer: %w",
			recvOp(tag), c.peer, full, bufLen, fabric.ErrTruncated)
	}
	return n, nil
}

// recvOp names a Recv for errors.
func recvOp(tag uint32) string { return fmt.Sprintf("recv tag %d from", tag) }

// readBufLen is the size of the read-ahead buffer; reads at least this
// large go straight into the caller's buffer.
const readBufLen = 16 << 10

// readSome reads into p: first what the read-ahead buffer holds, then,
// for a short p, by filling the buffer with one read(2) and copying, and
// for a long one straight from the socket.
func (c *conn) readSome(p []byte) (int, error) {
	r := &c.rs
	if r.bpos < r.bend {
		n := copy(p, r.buf[r.bpos:r.bend])
		r.bpos += n
		return n, nil
	}
	if len(p) >= readBufLen {
		return c.read(p)
	}
	if r.buf == nil {
		r.buf = make([]byte, readBufLen)
	}
	k, err := c.read(r.buf)
	n := copy(p, r.buf[:k])
	r.bpos, r.bend = n, k
	return n, err
}

// recvStream reads frames until one with tag is complete, queueing the
// other messages and carrying out the RMA frames among them. It returns how
// many bytes it stored in b and the message's full length; errors are the
// socket's, unwrapped. With rmaOnly, it queues every message and returns
// after the first RMA frame.
func (c *conn) recvStream(tag uint32, b []byte, rmaOnly bool) (n, full int, err error) {
	r := &c.rs
	for {
		if r.skip > 0 {
			if err := c.discard(); err != nil {
				return 0, 0, err
			}
		}
		if r.hdrN < FrameHeaderLen {
			k, err := c.readSome(r.hdr[r.hdrN:])
			r.hdrN += k
			if r.hdrN < FrameHeaderLen {
				if err == nil {
					continue
				}
				if r.hdrN > 0 {
					err = midFrame(err)
				}
				return 0, 0, err
			}
			word := binary.LittleEndian.Uint64(r.hdr[4:])
			size, kind := word&lenMask, word>>kindShift
			limit := uint64(MaxMessageSize)
			if kind != kindMessage {
				limit += readReqLen // the longest RMA prefix
			}
			if size > limit {
				return 0, 0, fmt.Errorf("%w: a frame header announces %d bytes, more than MaxMessageSize (%d)", errProtocol, size, uint64(MaxMessageSize))
			}
			r.tag, r.kind, r.size, r.got, r.body = binary.LittleEndian.Uint32(r.hdr[0:]), kind, int(size), 0, nil
		}
		if r.kind != kindMessage {
			if err := c.rmaFrame(); err != nil {
				return 0, 0, err
			}
			if rmaOnly {
				return 0, 0, nil
			}
			continue
		}
		if r.body == nil && r.tag == tag && !rmaOnly {
			return c.recvDirect(b)
		}
		if r.body == nil {
			r.body = make([]byte, r.size)
		}
		for r.got < r.size {
			k, err := c.readSome(r.body[r.got:])
			r.got += k
			if err != nil && r.got < r.size {
				return 0, 0, midFrame(err)
			}
		}
		m, mtag := r.body, r.tag
		r.next()
		if mtag == tag && !rmaOnly {
			return copy(b, m), len(m), nil
		}
		r.push(mtag, m)
	}
}

// recvDirect reads the current frame's payload straight into b, up to
// len(b) bytes; the tail of a longer message is left in skip.
func (c *conn) recvDirect(b []byte) (n, full int, err error) {
	r := &c.rs
	dst := b
	if r.size < len(dst) {
		dst = dst[:r.size]
	}
	for r.got < len(dst) {
		k, err := c.readSome(dst[r.got:])
		r.got += k
		if err != nil && r.got < len(dst) {
			if r.got > 0 {
				r.body = make([]byte, r.size)
				copy(r.body, dst[:r.got])
			}
			return 0, 0, midFrame(err)
		}
	}
	full = r.size
	r.skip = r.size - len(dst)
	r.next()
	return len(dst), full, nil
}

// discard reads and drops the skip bytes left of a truncated message.
func (c *conn) discard() error {
	r := &c.rs
	if r.scratch == nil {
		r.scratch = make([]byte, discardLen)
	}
	for r.skip > 0 {
		k, err := c.readSome(r.scratch[:min(r.skip, len(r.scratch))])
		r.skip -= k
		if err != nil && r.skip > 0 {
			return midFrame(err)
		}
	}
	return nil
}

// midFrame turns io.EOF into io.ErrUnexpectedEOF: the stream ended inside a
// message.
func midFrame(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// next forgets the frame just consumed; the next read starts a header.
func (r *recvState) next() {
	r.hdrN, r.got, r.body = 0, 0, nil
	r.kind, r.rdst, r.rset = kindMessage, nil, false
}

// push queues an unexpected message.
func (r *recvState) push(tag uint32, m []byte) {
	if r.queue == nil {
		r.queue = make(map[uint32][][]byte)
	}
	r.queue[tag] = append(r.queue[tag], m)
}

// pop takes the oldest queued message with tag.
func (r *recvState) pop(tag uint32) ([]byte, bool) {
	q := r.queue[tag]
	if len(q) == 0 {
		return nil, false
	}
	m := q[0]
	if len(q) == 1 {
		delete(r.queue, tag)
	} else {
		q[0] = nil
		r.queue[tag] = q[1:]
	}
	return m, true
}
