//go:build linux

package shm

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
)

// Send sends b as one message with tag. Messages up to EagerLimit are
// copied into the ring at once; larger ones are pipelined through it, so
// Send returns once the last piece is in the ring, or, from ArenaThreshold
// on when b is an arena buffer (see Transport.Alloc) and from CMAThreshold
// on otherwise, move with a single copy by rendezvous, and Send returns
// once the receiver has them. Either way b may be reused as soon as Send returns. b escapes to
// the heap.
func (c *Conn) Send(ctx context.Context, tag uint32, b []byte) error {
	s := &c.snd
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case c.closed.Load() || c.peerClosed():
		return c.errClosed("send")
	case s.err != nil:
		return s.err
	case len(b) <= c.opts.EagerLimit:
		return c.sendEager(ctx, tag, b)
	case c.useRndv(b):
		return c.sendRndv(ctx, tag, b)
	default:
		return c.sendPipe(ctx, tag, b)
	}
}

// useRndv reports whether b goes by rendezvous: from the arena, or by
// cross-memory attach.
func (c *Conn) useRndv(b []byte) bool {
	return c.fromArena(b) || c.useCMA(len(b))
}

// fromArena reports whether b goes by rendezvous from this side's arena,
// which the peer maps and copies from.
func (c *Conn) fromArena(b []byte) bool {
	return len(b) >= c.opts.ArenaThreshold && c.peerMapsArena && c.arena.owns(b)
}

// useCMA reports whether a message of n bytes goes by cross-memory attach.
func (c *Conn) useCMA(n int) bool {
	return c.opts.CMAThreshold > 0 && n >= c.opts.CMAThreshold && (c.canAccess || c.peerCanAccess)
}

// waitRoom waits until n bytes of the ring are free.
func (c *Conn) waitRoom(ctx context.Context, n uint32) error {
	p := &c.snd.p
	if p.room(n) {
		return nil
	}
	return c.snd.w.await(ctx, c.myDoors[bellSend], func() bool { return p.room(n) }, c.ctxStop(ctx, "send"))
}

// sendEager copies the header and b into the ring and publishes them at
// once.
func (c *Conn) sendEager(ctx context.Context, tag uint32, b []byte) error {
	p := &c.snd.p
	need := recLen(len(b))
	if err := c.waitRoom(ctx, need); err != nil {
		return err
	}
	p.putRecord(record{kind: kindEager, tag: tag, size: uint64(len(b))})
	p.put(hdrSize, b)
	p.publish(need)
	c.peerDoors[bellRecv].notify()
	c.snd.last.Store(need)
	return nil
}

// sendPipe streams the header and b through the ring PipeChunk bytes at a
// time. If it is interrupted after publishing part of the record, the
// direction is marked aborted (see the package doc).
func (c *Conn) sendPipe(ctx context.Context, tag uint32, b []byte) error {
	s := &c.snd
	total := recSize(len(b))
	for sent := 0; sent < total; {
		want := min(total-sent, c.opts.PipeChunk)
		if err := c.waitRoom(ctx, uint32(want)); err != nil {
			if sent > 0 {
				s.ctl.abort.v.Store(1)
				c.peerDoors[bellRecv].ring()
				s.err = fmt.Errorf("shm: send: an earlier send was interrupted half way through a message: %w", fabric.ErrClosed)
			}
			return err
		}
		if sent == 0 {
			s.p.putRecord(record{kind: kindPipe, tag: tag, size: uint64(len(b))})
		}
		// Record bytes [sent, sent+want) hold payload bytes [lo, hi).
		lo := max(sent, hdrSize) - hdrSize
		hi := min(sent+want, hdrSize+len(b)) - hdrSize
		if hi > lo {
			s.p.put(uint32(hdrSize+lo-sent), b[lo:hi])
		}
		s.p.publish(uint32(want))
		c.peerDoors[bellRecv].notify()
		sent += want
	}
	return nil
}

// warmLimit bounds the ring bytes warmSend prefetches.
const warmLimit = 4 << 10

// warmSend asks, without waiting, for the ring lines that the next eager
// record takes if it is as long as the last one (at most warmLimit bytes),
// in a state this core may write. Recv calls it before it waits for data:
// in a request and reply, or a barrier followed by a Bcast, the lines then
// come over from the peer's core, which read them last, while this side
// has nothing else to do, instead of in the next Send, which otherwise
// waits for them at the store that publishes its record (2 ranks bound,
// 1 KiB Bcast root: 0.32-0.33 -> 0.22-0.23 µs). The lines lie past head,
// which the peer does not read; a prefetch changes no data.
func (c *Conn) warmSend() {
	n := min(c.snd.last.Load(), warmLimit)
	if n == 0 || !c.snd.warm {
		return
	}
	data := c.snd.p.data
	mask := uint32(len(data) - 1)
	pos := c.snd.ctl.head.v.Load() & mask
	first := min(n, uint32(len(data))-pos)
	prefetchLines(unsafe.Pointer(&data[pos]), int((first+cacheLine-1)/cacheLine))
	if rest := n - first; rest > 0 {
		prefetchLines(unsafe.Pointer(&data[0]), int((rest+cacheLine-1)/cacheLine))
	}
}
