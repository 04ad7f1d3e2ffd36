package collectives

import "context"

// Alltoall sends block j of every rank's send buffer to rank j, where it
// becomes block i (i the sender) of recv. send and recv have the same
// length, size blocks of len(send)/size bytes; they must not overlap.
//
// Algorithms: bruck (⌈log2 p⌉ steps, each moving about half the blocks,
// with local rotations and packing: best for tiny blocks and many ranks);
// scattered (all sends posted at once, at most Thresholds.AlltoallThrottle
// in flight, while the blocks are received in turn); pairwise (p−1 steps,
// each a Sendrecv with one partner: r^i when p is a power of two, else
// r+i and r−i).
func (c *Comm) Alltoall(ctx context.Context, send, recv []byte) error {
	ctx, tag, err := c.begin(ctx)
	n := len(send) / c.size
	a := c.choose(collAlltoall, n)
	if err == nil {
		err = c.checkBlocks("send", len(send), "block", n)
	}
	if err == nil {
		err = c.checkBlocks("recv", len(recv), "block", n)
	}
	if err == nil && n > 0 {
		switch a {
		case algBruck:
			err = c.alltoallBruck(ctx, tag, send, recv)
		case algScattered:
			err = c.alltoallScattered(ctx, tag, send, recv)
		default:
			err = c.alltoallPairwise(ctx, tag, send, recv)
		}
	}
	return c.end(err, collAlltoall, a, n)
}

func (c *Comm) alltoallPairwise(ctx context.Context, tag uint32, send, recv []byte) error {
	p, r, n := c.size, c.rank, len(send)/c.size
	pow2 := p&(p-1) == 0
	for i := 1; i < p; i++ {
		dst, src := r^i, r^i
		if !pow2 {
			dst, src = (r+i)%p, (r-i+p)%p
		}
		if err := c.sendrecv(ctx, tag, dst, block(send, dst, n), src, block(recv, src, n)); err != nil {
			return err
		}
	}
	// This rank's own block last: copied first, it pushed the blocks the
	// exchanges need out of the cache (1 MiB blocks on two ranks).
	copy(block(recv, r, n), block(send, r, n))
	return nil
}

// alltoallScattered sends to r+1, r+2, … and receives from r−1, r−2, … in
// batches of AlltoallThrottle peers. Sends that the connection delivers
// without waiting run inline; the others run in goroutines, while this
// goroutine receives the batch's blocks in turn.
func (c *Comm) alltoallScattered(ctx context.Context, tag uint32, send, recv []byte) error {
	p, r, n := c.size, c.rank, len(send)/c.size
	copy(block(recv, r, n), block(send, r, n))
	throttle := max(c.th.AlltoallThrottle, 1)
	for start := 1; start < p; start += throttle {
		end := min(start+throttle, p)
		var g *group
		gctx := ctx
		for i := start; i < end; i++ {
			dst := (r + i) % p
			b := block(send, dst, n)
			if n <= c.eager[dst] {
				if err := c.send(ctx, dst, tag, b); err != nil {
					return waitFirst(g, err)
				}
				continue
			}
			if g == nil {
				g = newGroup(ctx)
				gctx = g.ctx
			}
			g.do(func(ctx context.Context) error { return c.send(ctx, dst, tag, b) })
		}
		for i := start; i < end; i++ {
			src := (r - i + p) % p
			if err := c.recv(gctx, src, tag, block(recv, src, n)); err != nil {
				return waitFirst(g, err)
			}
		}
		if g != nil {
			if err := g.wait(); err != nil {
				return err
			}
		}
	}
	return nil
}

// waitFirst fails g (if any) with err, waits for its goroutines and
// returns the first failure: err, or an earlier one of g's.
func waitFirst(g *group, err error) error {
	if g == nil {
		return err
	}
	g.fail(err)
	return g.wait()
}

// alltoallBruck (Bruck et al.; MPICH's short-message algorithm): rotate so
// that tmp's block i is the one for rank r+i; in the step with distance d,
// send every block whose index has bit d set to r+d and take the ones r−d
// sends into the same slots; finally tmp's block i came from rank r−i.
func (c *Comm) alltoallBruck(ctx context.Context, tag uint32, send, recv []byte) error {
	p, r, n := c.size, c.rank, len(send)/c.size
	tmp := c.buf(0, p*n)
	rotateTo(tmp, send, r, n)
	half := (p + 1) / 2
	out, in := c.buf(1, half*n), c.buf(2, half*n)
	for d := 1; d < p; d <<= 1 {
		k := 0
		for i := d; i < p; i++ {
			if i&d != 0 {
				copy(block(out, k, n), block(tmp, i, n))
				k++
			}
		}
		if err := c.sendrecv(ctx, tag, (r+d)%p, out[:k*n], (r-d+p)%p, in[:k*n]); err != nil {
			return err
		}
		k = 0
		for i := d; i < p; i++ {
			if i&d != 0 {
				copy(block(tmp, i, n), block(in, k, n))
				k++
			}
		}
	}
	for i := range p {
		copy(block(recv, (r-i+p)%p, n), block(tmp, i, n))
	}
	return nil
}
