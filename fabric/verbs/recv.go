package verbs

import (
	"context"
	"fmt"

	"github.com/hpcbench/hpcbench/fabric"
)

// Recv receives the oldest message with tag into b. Messages of other
// tags that arrive meanwhile are kept, in order, on the heap; a message
// of tag that begins while Recv waits, and fits b, is received straight
// into b. If ctx ends while such a message is half received, what came
// is moved to the heap and the rest follows it there, for a later Recv.
func (c *conn) Recv(ctx context.Context, tag uint32, b []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	op := fmt.Sprintf("receive tag %d from rank %d", tag, c.peer)
	c.mu.Lock()
	if c.closed.Load() {
		c.mu.Unlock()
		return 0, c.closedErr(op, false)
	}
	if m := c.dequeue(tag); m != nil {
		c.mu.Unlock()
		return take(op, m, b)
	}
	req := &recvReq{tag: tag, b: b}
	c.want = req
	c.mu.Unlock()

	var got *message
	err := c.wait(ctx, func() (bool, error) {
		gone := c.peerGone.Load()
		c.progress()
		if req.done {
			return true, nil
		}
		if got = c.dequeue(tag); got != nil {
			return true, nil
		}
		return false, c.closedErr(op, gone)
	})

	c.mu.Lock()
	c.want = nil
	done := req.done
	if !done && c.cur != nil && c.cur.req == req {
		// Interrupted mid-message: the rest goes to the heap.
		m := c.cur
		buf := make([]byte, m.total)
		copy(buf, m.buf[:m.got])
		m.buf, m.req = buf, nil
	}
	c.mu.Unlock()
	switch {
	case done:
		return req.n, nil
	case got != nil:
		return take(op, got, b)
	}
	return 0, err
}

// dequeue removes and returns the oldest whole message of tag, or nil;
// mu is held.
func (c *conn) dequeue(tag uint32) *message {
	q := c.queued[tag]
	if len(q) == 0 {
		return nil
	}
	m := q[0]
	q[0] = nil
	if len(q) == 1 {
		delete(c.queued, tag)
	} else {
		c.queued[tag] = q[1:]
	}
	return m
}

// take copies a queued message into b.
func take(op string, m *message, b []byte) (int, error) {
	n := copy(b, m.buf)
	if m.total > len(b) {
		return n, fmt.Errorf("verbs: %s: %d-byte message into a %d-byte buffer: %w", op, m.total, len(b), fabric.ErrTruncated)
	}
	return n, nil
}
