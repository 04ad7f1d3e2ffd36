package collectives

import "context"

// Scatter sends block i of root's send buffer to rank i's recv, for every
// rank including root. Every rank passes a recv of the same length n; send
// is size×n bytes at root and ignored elsewhere (it may be nil).
//
// Algorithms: binomial (root hands each subtree of the binomial tree its
// blocks, ⌈log2 p⌉ steps); linear (root sends each rank its block in turn).
func (c *Comm) Scatter(ctx context.Context, send, recv []byte, root int) error {
	ctx, tag, err := c.begin(ctx)
	n := len(recv)
	a := c.choose(collScatter, n)
	if err == nil {
		err = c.checkRoot(root)
	}
	if err == nil && c.rank == root {
		err = c.checkBlocks("send", len(send), "recv", n)
	}
	if err == nil && n > 0 {
		switch {
		case c.size == 1:
			copy(recv, send)
		case a == algLinear:
			err = c.scatterLinear(ctx, tag, send, recv, root)
		default:
			err = c.scatterBinomial(ctx, tag, send, recv, root)
		}
	}
	return c.end(err, collScatter, a, n)
}

func (c *Comm) scatterLinear(ctx context.Context, tag uint32, send, recv []byte, root int) error {
	n := len(recv)
	if c.rank != root {
		return c.recv(ctx, root, tag, recv)
	}
	for i := range c.size {
		if i == root {
			copy(recv, block(send, i, n))
		} else if err := c.send(ctx, i, tag, block(send, i, n)); err != nil {
			return err
		}
	}
	return nil
}

// scatterBinomial: relative rank vr's subtree is relative ranks [vr,
// vr+lowbit(vr)) (clipped to p), and their blocks travel together as one
// message, kept in tmp in relative order starting with vr's own.
func (c *Comm) scatterBinomial(ctx context.Context, tag uint32, send, recv []byte, root int) error {
	p, n := c.size, len(recv)
	vr := (c.rank - root + p) % p
	var tmp []byte // this subtree's blocks, relative order; nil for a leaf that received straight into recv
	if vr == 0 {
		tmp = send
		if root != 0 {
			tmp = c.buf(0, p*n)
			rotateTo(tmp, send, root, n)
		}
	}
	mask := 1
	for ; mask < p; mask <<= 1 {
		if vr&mask != 0 {
			count := min(mask, p-vr)
			dst := recv
			if count > 1 {
				tmp = c.buf(0, count*n)
				dst = tmp
			}
			if err := c.recv(ctx, (c.rank-mask+p)%p, tag, dst); err != nil {
				return err
			}
			break
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if child := vr + mask; child < p {
			if err := c.send(ctx, (c.rank+mask)%p, tag, blocks(tmp, mask, mask+min(mask, p-child), n)); err != nil {
				return err
			}
		}
	}
	if tmp != nil {
		copy(recv, tmp[:n])
	}
	return nil
}
