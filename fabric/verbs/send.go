package verbs

import (
	"context"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/fabric"
)

// Send sends b as one message: its first chunk names the tag and length,
// the rest follow in as many slots as it needs, each copied into a send
// slot and posted as soon as the peer has a receive posted for it (a
// credit). It returns once the last chunk is posted: b is free then. If
// ctx ends before the first chunk is posted, the connection stays usable;
// if it ends in the middle of the message, the message cannot be taken
// back, so this side sends nothing more (the peer drops the part it got
// and sees the connection closed, and later Sends fail) while its Recvs
// keep working.
func (c *conn) Send(ctx context.Context, tag uint32, b []byte) error {
	c.smu.Lock()
	defer c.smu.Unlock()
	op := fmt.Sprintf("send tag %d to rank %d", tag, c.peer)
	if uint64(len(b)) > MaxMessageSize {
		return fmt.Errorf("verbs: %s: %d-byte message: more than MaxMessageSize (%d)", op, len(b), uint64(MaxMessageSize))
	}
	c.mu.Lock()
	err := c.closedErr(op, c.peerGone.Load())
	if err == nil {
		err = c.werr
	}
	c.mu.Unlock()
	if err != nil {
		return err
	}
	off := 0
	for first := true; first || off < len(b); first = false {
		n := min(c.chunk, len(b)-off)
		h := header{kind: kindMore, tag: tag, length: uint32(len(b))}
		if first {
			h.kind = kindData
		}
		err := c.wait(ctx, func() (bool, error) {
			gone := c.peerGone.Load()
			c.progress()
			if err := c.closedErr(op, gone); err != nil {
				return false, err
			}
			if !c.flow.canData() {
				return false, nil
			}
			i, ok := c.sfree.get()
			if !ok {
				return false, nil
			}
			h.credits = c.flow.spend()
			c.post(i, h, b[off:off+n])
			return true, c.closedErr(op, false)
		})
		if err == nil {
			off += n
			continue
		}
		if first || errors.Is(err, fabric.ErrClosed) {
			return err
		}
		return c.shutSend(op, off, len(b), err)
	}
	return nil
}

// shutSend stops this side's sending after a Send was interrupted after
// sent of total bytes: later Sends fail, and the peer gets a kindBye when
// a credit allows (else it sees the side channel end at Close).
func (c *conn) shutSend(op string, sent, total int, cause error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.werr = fmt.Errorf("verbs: %s: %w: an earlier send was interrupted after %d of %d bytes", op, fabric.ErrClosed, sent, total)
	if c.flow.canBye() {
		c.postControl(kindBye)
	}
	return fmt.Errorf("verbs: %s: interrupted after %d of %d bytes, so this side sends no more: %w", op, sent, total, cause)
}
