package collectives

import (
	"context"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/fabric"
)

// Send sends b to rank peer as one message. The message carries this
// Comm's user tag, so it matches only a Recv or Sendrecv of this Comm on
// peer, never a collective's traffic or another communicator's; messages
// from one rank to another arrive in the order sent.
// Send may return before peer receives the message, or wait for it; b may
// be reused once Send returns. A failed Send does not abort the Comm.
func (c *Comm) Send(ctx context.Context, peer int, b []byte) error {
	if err := c.checkPeer("send to", peer); err != nil {
		return err
	}
	if err := c.send(c.watch(ctx), peer, c.userTag(), b); err != nil {
		return c.p2pError("Send", err)
	}
	return nil
}

// Recv receives the next user message from rank peer into b and returns
// its length. A message longer than b fails with an error wrapping
// fabric.ErrTruncated (the message is consumed). A failed Recv does not
// abort the Comm.
func (c *Comm) Recv(ctx context.Context, peer int, b []byte) (int, error) {
	if err := c.checkPeer("receive from", peer); err != nil {
		return 0, err
	}
	n, err := c.recvN(c.watch(ctx), peer, c.userTag(), b)
	if err != nil {
		return n, c.p2pError("Recv", err)
	}
	return n, nil
}

// Sendrecv sends sb to rank dst and receives the next user message from
// rank src into rb, at the same time, so that two ranks exchanging large
// messages cannot deadlock; it returns the received length. dst and src may
// both be this rank, which copies sb into rb.
//
// A small message is sent before receiving, in the calling goroutine: that
// is safe when the connection promises that such a Send never waits for the
// peer (fabric/pipe's EagerLimit). Otherwise the send runs in a goroutine
// of its own, which Sendrecv waits for before returning; if either half
// fails, the other is cancelled.
func (c *Comm) Sendrecv(ctx context.Context, dst int, sb []byte, src int, rb []byte) (int, error) {
	if dst == c.rank || src == c.rank {
		if dst != src {
			return 0, fmt.Errorf("collectives: rank %d: sendrecv with dst %d and src %d: only both may be this rank", c.rank, dst, src)
		}
		if len(sb) > len(rb) {
			n := copy(rb, sb)
			return n, fmt.Errorf("collectives: rank %d: sendrecv to itself: %d-byte message into %d-byte buffer: %w",
				c.rank, len(sb), len(rb), fabric.ErrTruncated)
		}
		return copy(rb, sb), nil
	}
	if err := c.checkPeer("send to", dst); err != nil {
		return 0, err
	}
	if err := c.checkPeer("receive from", src); err != nil {
		return 0, err
	}
	n, err := c.sendrecvN(c.watch(ctx), c.userTag(), dst, sb, src, rb)
	if err != nil {
		return n, c.p2pError("Sendrecv", err)
	}
	return n, nil
}

// p2pError words the error of a point-to-point call: a StallError names
// the call and says the rest itself.
func (c *Comm) p2pError(call string, err error) error {
	var se *StallError
	if errors.As(err, &se) {
		se.Call = call
		return se
	}
	return fmt.Errorf("collectives: rank %d: %w", c.rank, err)
}

// EagerLimit returns the largest message a Send to rank peer delivers
// without waiting for peer to receive it (the connection buffers it), or
// -1 when the connection makes no such promise or peer is out of range.
// Two such Sends may be posted before the matching Recvs without risk of
// deadlock, as MPI_Isend allows.
func (c *Comm) EagerLimit(peer int) int {
	if peer < 0 || peer >= c.size || peer == c.rank {
		return -1
	}
	return c.eager[peer]
}

// checkPeer validates a point-to-point peer.
func (c *Comm) checkPeer(what string, peer int) error {
	if peer < 0 || peer >= c.size {
		return fmt.Errorf("collectives: rank %d: %s rank %d: out of range [0, %d)", c.rank, what, peer, c.size)
	}
	if peer == c.rank {
		return fmt.Errorf("collectives: rank %d: %s itself: use Sendrecv, or copy", c.rank, what)
	}
	return nil
}

// onHost is " on HOST" for a rank whose host Options.HostOf names, else
// "": across hosts, the host of a peer that died matters to the user.
func (c *Comm) onHost(rank int) string {
	if c.opts.HostOf == nil {
		return ""
	}
	if h := c.opts.HostOf(rank); h != "" {
		return " on " + h
	}
	return ""
}

// send sends b to peer with tag. ctx is the call's, from begin or watch:
// a wait the stall watch ends fails with a *StallError.
func (c *Comm) send(ctx context.Context, peer int, tag uint32, b []byte) error {
	w := c.stall
	if w != nil {
		w.begin(len(b))
	}
	err := c.conns[peer].Send(ctx, tag, b)
	if w != nil {
		w.end(len(b))
	}
	if err != nil {
		if se := c.stalled(ctx, peer, true, len(b)); se != nil {
			return se
		}
		return fmt.Errorf("send %d bytes to rank %d%s: %w", len(b), peer, c.onHost(peer), err)
	}
	return nil
}

// recvN receives a tag message from peer into b and returns its length.
// ctx is as for send.
func (c *Comm) recvN(ctx context.Context, peer int, tag uint32, b []byte) (int, error) {
	w := c.stall
	if w != nil {
		w.begin(len(b))
	}
	n, err := c.conns[peer].Recv(ctx, tag, b)
	if w != nil {
		w.end(len(b))
	}
	if err != nil {
		if se := c.stalled(ctx, peer, false, len(b)); se != nil {
			return n, se
		}
		return n, fmt.Errorf("receive %d bytes from rank %d%s: %w", len(b), peer, c.onHost(peer), err)
	}
	return n, nil
}

// recv receives a tag message from peer that must fill b exactly.
func (c *Comm) recv(ctx context.Context, peer int, tag uint32, b []byte) error {
	n, err := c.recvN(ctx, peer, tag, b)
	if err == nil && n != len(b) {
		err = fmt.Errorf("receive from rank %d: got %d bytes, want %d: %w", peer, n, len(b), ErrSizeMismatch)
	}
	return err
}

// sendrecv is Sendrecv for a collective: the received message must fill rb
// exactly.
//
// An exchange with a single partner (dst == src) that is too large to send
// eagerly is done in turn rather than at once: the lower rank sends first,
// the higher one receives first. Inside a collective the partner makes the
// mirror call, so this cannot deadlock, and it keeps one goroutine per
// process busy instead of two: on shared memory both halves spin while they
// wait, and four spinning threads on two CPUs made a 4 MiB exchange ten
// times slower than a ping-pong.
func (c *Comm) sendrecv(ctx context.Context, tag uint32, dst int, sb []byte, src int, rb []byte) error {
	var n int
	var err error
	if dst == src && dst != c.rank && len(sb) > c.eager[dst] {
		if c.rank < dst {
			if err = c.send(ctx, dst, tag, sb); err == nil {
				n, err = c.recvN(ctx, src, tag, rb)
			}
		} else if n, err = c.recvN(ctx, src, tag, rb); err == nil {
			err = c.send(ctx, dst, tag, sb)
		}
	} else {
		n, err = c.sendrecvN(ctx, tag, dst, sb, src, rb)
	}
	if err == nil && n != len(rb) {
		err = fmt.Errorf("receive from rank %d: got %d bytes, want %d: %w", src, n, len(rb), ErrSizeMismatch)
	}
	return err
}

// sendrecvN sends sb to dst and receives a tag message from src into rb,
// concurrently unless the send is known not to wait (see Sendrecv).
func (c *Comm) sendrecvN(ctx context.Context, tag uint32, dst int, sb []byte, src int, rb []byte) (int, error) {
	if len(sb) <= c.eager[dst] {
		if err := c.send(ctx, dst, tag, sb); err != nil {
			return 0, err
		}
		return c.recvN(ctx, src, tag, rb)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sent := make(chan error, 1)
	go func() {
		err := c.send(ctx, dst, tag, sb)
		if err != nil {
			cancel()
		}
		sent <- err
	}()
	n, rerr := c.recvN(ctx, src, tag, rb)
	if rerr != nil {
		cancel()
	}
	serr := <-sent
	switch {
	case rerr == nil:
		return n, serr
	case serr == nil:
		return n, rerr
	case errors.Is(rerr, context.Canceled) && !errors.Is(serr, context.Canceled):
		// The send failed first and cancelled the receive.
		return n, serr
	}
	return n, rerr
}
