package collectives

import "context"

// Gather collects every rank's send buffer at root: rank i's send becomes
// block i of root's recv. Every rank passes a send of the same length n;
// recv is size×n bytes at root and ignored elsewhere (it may be nil).
//
// Algorithms: binomial (each subtree's blocks travel up the binomial tree
// as one message, ⌈log2 p⌉ steps); linear (root receives from each rank in
// turn).
func (c *Comm) Gather(ctx context.Context, send, recv []byte, root int) error {
	ctx, tag, err := c.begin(ctx)
	n := len(send)
	a := c.choose(collGather, n)
	if err == nil {
		err = c.checkRoot(root)
	}
	if err == nil && c.rank == root {
		err = c.checkBlocks("recv", len(recv), "send", n)
	}
	if err == nil && n > 0 {
		switch {
		case c.size == 1:
			copy(recv, send)
		case a == algLinear:
			err = c.gatherLinear(ctx, tag, send, recv, root)
		default:
			err = c.gatherBinomial(ctx, tag, send, recv, root)
		}
	}
	return c.end(err, collGather, a, n)
}

func (c *Comm) gatherLinear(ctx context.Context, tag uint32, send, recv []byte, root int) error {
	n := len(send)
	if c.rank != root {
		return c.send(ctx, root, tag, send)
	}
	for i := range c.size {
		if i == root {
			copy(block(recv, i, n), send)
		} else if err := c.recv(ctx, i, tag, block(recv, i, n)); err != nil {
			return err
		}
	}
	return nil
}

// gatherBinomial mirrors scatterBinomial: relative rank vr collects its
// subtree's blocks [vr, vr+lowbit(vr)) in tmp, in relative order, from its
// children in increasing distance, then sends them to its parent as one
// message.
func (c *Comm) gatherBinomial(ctx context.Context, tag uint32, send, recv []byte, root int) error {
	p, n := c.size, len(send)
	vr := (c.rank - root + p) % p
	count := p // blocks in this subtree
	if vr != 0 {
		count = min(vr&-vr, p-vr)
	}
	tmp := send // a leaf sends its own block
	if count > 1 {
		if vr == 0 && root == 0 {
			tmp = recv
		} else {
			tmp = c.buf(0, count*n)
		}
		copy(tmp, send)
	}
	for mask := 1; mask < p; mask <<= 1 {
		if vr&mask != 0 {
			return c.send(ctx, (c.rank-mask+p)%p, tag, tmp)
		}
		if child := vr + mask; child < p {
			if err := c.recv(ctx, (c.rank+mask)%p, tag, blocks(tmp, mask, mask+min(mask, p-child), n)); err != nil {
				return err
			}
		}
	}
	// Only root gets here, with all p blocks in tmp.
	if root != 0 {
		rotateFrom(recv, tmp, root, n)
	}
	return nil
}
