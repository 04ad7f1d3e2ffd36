//go:build linux

package shm

import (
	"context"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/fabric"
)

// maxMessage bounds the size a record may claim, so that a corrupt ring
// cannot make Recv allocate without limit.
const maxMessage = 1 << 40

// partial is a pipelined message whose Recv was interrupted half way; the
// next Recv finishes reading it into data and queues it.
type partial struct {
	tag  uint32
	data []byte // the whole message
	got  int    // bytes of data received
	pad  uint32 // record padding still to release after the payload
}

// Recv receives the oldest message with tag into b and returns its length.
// A message longer than b fills b, is consumed, and returns an error
// wrapping fabric.ErrTruncated. b escapes to the heap.
func (c *Conn) Recv(ctx context.Context, tag uint32, b []byte) (int, error) {
	return c.recv(ctx, tag, b, false)
}

// RecvLong is Recv for a message that is not expected within microseconds
// (fabric.LongReceiver): its waits sleep at once instead of spinning and
// yielding first (see waiter.wait).
func (c *Conn) RecvLong(ctx context.Context, tag uint32, b []byte) (int, error) {
	return c.recv(ctx, tag, b, true)
}

func (c *Conn) recv(ctx context.Context, tag uint32, b []byte, long bool) (int, error) {
	r := &c.rcv
	r.mu.Lock()
	defer r.mu.Unlock()
	r.long = long
	if c.closed.Load() {
		return 0, c.errClosed("recv")
	}
	if r.part != nil {
		if err := c.finishPartial(ctx); err != nil {
			return 0, err
		}
	}
	if r.q.len() > 0 {
		if m, ok := r.q.take(tag); ok {
			return deliver(tag, b, m.data)
		}
	}
	if r.err != nil {
		return 0, r.err
	}
	for {
		if err := c.waitData(ctx, hdrSize); err != nil {
			return 0, err
		}
		rec := r.c.record()
		n, matched, err := c.take(ctx, rec, tag, b)
		if err != nil && !errors.Is(err, fabric.ErrTruncated) && ctx.Err() == nil {
			r.err = err // the stream cannot be followed any more
		}
		if matched || err != nil {
			return n, err
		}
	}
}

// deliver copies a queued message into b.
func deliver(tag uint32, b, m []byte) (int, error) {
	n := copy(b, m)
	if n < len(m) {
		return n, truncated(tag, len(m), len(b))
	}
	return n, nil
}

func truncated(tag uint32, size, buf int) error {
	return fmt.Errorf("shm: recv tag %d: %d-byte message, %d-byte buffer: %w", tag, size, buf, fabric.ErrTruncated)
}

func (c *Conn) corrupt(format string, args ...any) error {
	return fmt.Errorf("shm: recv: corrupt ring: "+format, args...)
}

// recvStop ends a wait for data when ctx ends, this side closes, the peer
// is gone, or the peer abandoned a message half way.
func (c *Conn) recvStop(ctx context.Context) func() error {
	return func() error {
		switch {
		case c.closed.Load() || c.peerClosed():
			return c.errClosed("recv")
		case c.rcv.ctl.abort.v.Load() != 0:
			return fmt.Errorf("shm: recv: the peer abandoned a message half way: %w", fabric.ErrClosed)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("shm: recv: %w", err)
		}
		return nil
	}
}

// waitData waits until n bytes are published past tail.
func (c *Conn) waitData(ctx context.Context, n uint32) error {
	q := &c.rcv.c
	if q.has(n) {
		return nil
	}
	c.warmSend()
	return c.rcv.w.wait(ctx, c.myDoors[bellRecv], func() bool { return q.has(n) }, c.recvStop(ctx), c.rcv.long)
}

// release returns n ring bytes to the sender.
func (c *Conn) release(n uint32) {
	c.rcv.c.release(n)
	c.peerDoors[bellSend].notify()
}

// take consumes the record rec, whose header is published. A record with
// the wanted tag goes into b (matched is true); any other is queued.
func (c *Conn) take(ctx context.Context, rec record, tag uint32, b []byte) (n int, matched bool, err error) {
	r := &c.rcv
	if rec.size > maxMessage {
		return 0, false, c.corrupt("record of kind %d claims %d bytes", rec.kind, rec.size)
	}
	size := int(rec.size)
	matched = rec.tag == tag
	switch rec.kind {
	case kindEager:
		if size > len(r.c.data) || !r.c.has(recLen(size)) {
			return 0, false, c.corrupt("eager record of %d bytes, %d published", size, r.c.avail())
		}
		if !matched {
			m := make([]byte, size)
			r.c.get(hdrSize, m)
			c.release(recLen(size))
			r.q.push(rec.tag, m)
			return 0, false, nil
		}
		n = min(size, len(b))
		r.c.get(hdrSize, b[:n])
		c.release(recLen(size))
		if n < size {
			return n, true, truncated(tag, size, len(b))
		}
		return n, true, nil

	case kindPipe:
		c.release(hdrSize)
		p := &partial{tag: rec.tag, pad: uint32(recSize(size) - hdrSize - size)}
		intoB := matched && len(b) >= size
		if intoB {
			p.data = b[:size]
		} else {
			p.data = make([]byte, size)
		}
		if err := c.pump(ctx, p); err != nil {
			if ctx.Err() != nil && !c.closed.Load() {
				if intoB { // b is the caller's: keep a copy to finish later
					p.data = append(make([]byte, 0, size), p.data[:p.got]...)[:size]
				}
				r.part = p
			}
			return 0, false, err
		}
		if !matched {
			r.q.push(rec.tag, p.data)
			return 0, false, nil
		}
		n, err = deliver(tag, b, p.data)
		return n, true, err

	case kindRndv:
		if !r.c.has(rndvSize) {
			return 0, false, c.corrupt("rendezvous record not published whole")
		}
		c.release(rndvSize)
		dst := b
		if !matched {
			dst = make([]byte, size)
		}
		n, skipped, err := c.recvRndv(rec, dst)
		switch {
		case err != nil:
			return 0, false, err
		case skipped:
			return 0, false, nil
		case !matched:
			r.q.push(rec.tag, dst)
			return 0, false, nil
		case n < size:
			return n, true, truncated(tag, size, len(b))
		}
		return n, true, nil
	}
	return 0, false, c.corrupt("record kind %d", rec.kind)
}

// pump reads the rest of the pipelined message p from the ring, releasing
// space as it goes so that the sender can keep writing.
func (c *Conn) pump(ctx context.Context, p *partial) error {
	q := &c.rcv.c
	chunk := c.opts.PipeChunk
	for p.got < len(p.data) {
		if err := c.waitData(ctx, 1); err != nil {
			return err
		}
		k := min(int(q.avail()), len(p.data)-p.got, chunk)
		q.get(0, p.data[p.got:p.got+k])
		c.release(uint32(k))
		p.got += k
	}
	if p.pad > 0 {
		if err := c.waitData(ctx, p.pad); err != nil {
			return err
		}
		c.release(p.pad)
		p.pad = 0
	}
	return nil
}

// finishPartial completes an interrupted pipelined message and queues it.
func (c *Conn) finishPartial(ctx context.Context) error {
	r := &c.rcv
	if err := c.pump(ctx, r.part); err != nil {
		if ctx.Err() == nil {
			r.err = err
			r.part = nil
		}
		return err
	}
	r.q.push(r.part.tag, r.part.data)
	r.part = nil
	return nil
}
