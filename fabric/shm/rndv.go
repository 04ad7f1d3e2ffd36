//go:build linux

package shm

import (
	"context"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
)

// Rendezvous protocol, per direction, at most one message at a time:
//
//  1. The sender stores state = posted(seq) and publishes a rndv record
//     (tag, size, its buffer's address, seq).
//  2. The receiver, on reaching the record, writes the destination
//     (params) and moves state posted(seq) → claimed(seq) with a CAS. If the
//     CAS fails the sender has cancelled (posted(seq) → cancelled(seq)),
//     and the receiver skips the record.
//  3. Both sides take chunk numbers from next with CAS and count each
//     finished chunk in done. The receiver reads: with a plain copy
//     through its mapping of the sender's arena when the sender's buffer
//     is in it, else with process_vm_readv. The sender, when permitted
//     and awake, writes: through its mapping of the receiver's arena when
//     the destination is in it, else with process_vm_writev.
//  4. Both return when done reaches params.end; from then on nothing
//     touches either buffer.
//
// next and done are free-running counters, equal between messages, so a
// message's chunks are [base, end) with base = next at claim time, and a
// side that lost the race for the last chunk of the previous message sees
// next >= its own end and stops without touching the counters. A failed
// copy sets state = failed(seq), after which the direction is broken.
const (
	stPosted    = 1
	stClaimed   = 2
	stCancelled = 3
	stFailed    = 4
	stBits      = 3
)

// rndvState packs a sequence number and a state.
func rndvState(seq, st uint32) uint32 { return seq<<stBits | st }

// addrOf is the virtual address of b's first byte (0 for an empty b).
func addrOf(b []byte) uint64 { return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }

// sendRndv posts b's address and waits until the receiver (and this side,
// if it may) has copied it.
func (c *Conn) sendRndv(ctx context.Context, tag uint32, b []byte) error {
	s := &c.snd
	ctl := s.ctl
	if err := c.waitRoom(ctx, rndvSize); err != nil {
		return err
	}
	s.seq++
	seq := s.seq
	s.pin = b // b must be a heap object: the peer reads it by address
	defer func() { s.pin = nil }()
	posted := rndvState(seq, stPosted)
	ctl.state.v.Store(posted)
	s.p.putRecord(record{kind: kindRndv, tag: tag, size: uint64(len(b)), addr: addrOf(b), seq: seq})
	s.p.publish(rndvSize)
	c.peerDoors[bellRecv].notify()

	bell := c.myDoors[bellSend]
	claimed := func() bool { return ctl.state.v.Load() != posted }
	if err := c.snd.w.await(ctx, bell, claimed, c.ctxStop(ctx, "send")); err != nil {
		if ctl.state.v.CompareAndSwap(posted, rndvState(seq, stCancelled)) || c.gone.Load() {
			return err // the receiver will skip the record, or is gone
		}
		// The receiver claimed the message meanwhile and is reading b:
		// finish it, whatever ctx says.
	}
	if ctl.state.v.Load() != rndvState(seq, stClaimed) {
		s.err = fmt.Errorf("shm: send: the receiver failed to copy a %d-byte message", len(b))
		return s.err
	}
	size, dst := ctl.params.size.Load(), ctl.params.dst.Load()
	base, end := ctl.params.base.Load(), ctl.params.end.Load()
	// The receiver copies when it can read b: through this side's arena,
	// or by cross-memory attach. This side must copy when it cannot, and
	// helps when it may.
	recvCopies := c.peerMapsArena && c.arena.owns(b) || c.peerCanAccess
	var dstMem []byte
	if size <= uint64(len(b)) {
		dstMem = c.peerArena.window(dst, int(size))
	}
	if (dstMem != nil || c.canAccess) && (c.opts.SenderHelps || !recvCopies) && size <= uint64(len(b)) {
		if err := c.copyChunks("send", ctl, seq, b[:size], dst, dstMem, base, end, bell, c.peerDoors[bellRecv]); err != nil {
			s.err = err
			return err
		}
	}
	err := c.waitChunks(&c.snd.w, "send", ctl, seq, end, bell)
	runtime.KeepAlive(b)
	if err != nil {
		s.err = err
	}
	return err
}

// recvRndv claims the rendezvous message r for dst (which it may shorten),
// copies it, and returns the bytes stored. skipped is true when the sender
// had cancelled the message.
func (c *Conn) recvRndv(r record, dst []byte) (n int, skipped bool, err error) {
	ctl := c.rcv.ctl
	n = int(min(uint64(len(dst)), r.size))
	dst = dst[:n]
	c.rcv.pin = dst // dst must be a heap object: the peer writes it by address
	defer func() { c.rcv.pin = nil }()
	chunk := int(c.lay.hdr.cmaChunk)
	base := ctl.next.v.Load()
	end := base + uint32((n+chunk-1)/chunk)
	ctl.params.dst.Store(addrOf(dst))
	ctl.params.size.Store(uint64(n))
	ctl.params.base.Store(base)
	ctl.params.end.Store(end)
	if !ctl.state.v.CompareAndSwap(rndvState(r.seq, stPosted), rndvState(r.seq, stClaimed)) {
		return 0, true, nil
	}
	peerBell, bell := c.peerDoors[bellSend], c.myDoors[bellRecv]
	peerBell.notify()
	if srcMem := c.peerArena.window(r.addr, n); srcMem != nil || c.canAccess {
		if err := c.copyChunks("recv", ctl, r.seq, dst, r.addr, srcMem, base, end, bell, peerBell); err != nil {
			return 0, false, err
		}
	}
	err = c.waitChunks(&c.rcv.w, "recv", ctl, r.seq, end, bell)
	runtime.KeepAlive(dst)
	return n, false, err
}

// copyChunks takes chunks of the current message until none is left and
// copies each between local (this side's buffer) and remote (the peer's
// address of the same byte 0): the receiver reads, the sender writes. mem,
// when not nil, is remote's bytes in this process's mapping of the peer's
// arena, and the copy is a plain one; otherwise it is a cross-memory one.
// Finishing the last chunk wakes both sides.
func (c *Conn) copyChunks(op string, ctl *ringCtl, seq uint32, local []byte, remote uint64, mem []byte, base, end uint32, mine, theirs door) error {
	chunk := int(c.lay.hdr.cmaChunk)
	for {
		x := ctl.next.v.Load()
		if int32(x-end) >= 0 {
			return nil
		}
		if !ctl.next.v.CompareAndSwap(x, x+1) {
			continue
		}
		off := int(x-base) * chunk
		part := local[off:min(off+chunk, len(local))]
		switch {
		case mem != nil && op == "send":
			copy(mem[off:], part)
		case mem != nil:
			copy(part, mem[off:])
		default:
			if err := cmaCopy(c.peerPid, part, remote+uint64(off), op == "send"); err != nil {
				ctl.state.v.Store(rndvState(seq, stFailed))
				mine.ring()
				theirs.ring()
				return c.cmaErr(op, err)
			}
		}
		if ctl.done.v.Add(1) == end {
			mine.notify()
			theirs.notify()
		}
	}
}

// waitChunks waits until every chunk of the current message is done. It
// ignores the caller's context and Close, since the peer may be copying
// into or out of this side's buffer; it ends early only if the peer's
// process is gone or a copy failed.
func (c *Conn) waitChunks(w *waiter, op string, ctl *ringCtl, seq, end uint32, b door) error {
	done := func() bool { return int32(ctl.done.v.Load()-end) >= 0 }
	stop := func() error {
		if ctl.state.v.Load() == rndvState(seq, stFailed) {
			return fmt.Errorf("shm: %s: the peer's cross-memory copy failed: %w", op, fabric.ErrClosed)
		}
		if c.gone.Load() {
			return c.errClosed(op)
		}
		return nil
	}
	return w.await(nil, b, done, stop)
}
