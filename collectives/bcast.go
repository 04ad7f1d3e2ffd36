package collectives

import "context"

// Bcast copies root's buf into buf on every other rank. Every rank passes a
// buffer of the same length.
//
// Algorithms: binomial, a binomial tree from root (⌈log2 p⌉ steps, each
// moving the whole buffer); scatter-ring (van de Geijn), which scatters p
// parts of the buffer down a binomial tree and then circulates them around
// a ring, so each rank moves about 2n bytes whatever p is.
func (c *Comm) Bcast(ctx context.Context, buf []byte, root int) error {
	ctx, tag, err := c.begin(ctx)
	a := c.choose(collBcast, len(buf))
	if err == nil {
		err = c.checkRoot(root)
	}
	if err == nil && c.size > 1 && len(buf) > 0 {
		switch a {
		case algScatterRing:
			err = c.bcastScatterRing(ctx, tag, buf, root)
		default:
			err = c.bcastBinomial(ctx, tag, buf, root)
		}
	}
	return c.end(err, collBcast, a, len(buf))
}

// bcastBinomial: relative rank vr receives from vr minus its lowest set
// bit, then sends to vr+mask for each smaller power of two mask.
func (c *Comm) bcastBinomial(ctx context.Context, tag uint32, buf []byte, root int) error {
	p := c.size
	vr := (c.rank - root + p) % p
	mask := 1
	for ; mask < p; mask <<= 1 {
		if vr&mask != 0 {
			if err := c.recv(ctx, (c.rank-mask+p)%p, tag, buf); err != nil {
				return err
			}
			break
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if vr+mask < p {
			if err := c.send(ctx, (c.rank+mask)%p, tag, buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// bcastScatterRing splits buf into p parts, part i for relative rank i,
// scatters them down the binomial tree (a subtree's parts are contiguous),
// then runs a ring allgather over the relative ranks.
func (c *Comm) bcastScatterRing(ctx context.Context, tag uint32, buf []byte, root int) error {
	p := c.size
	vr := (c.rank - root + p) % p
	abs := func(v int) int { return (v + root) % p }
	parts := chunks{count: len(buf), k: p, esize: 1}
	scatter := tag | phaseScatter
	mask := 1
	for ; mask < p; mask <<= 1 {
		if vr&mask != 0 {
			if err := c.recv(ctx, abs(vr-mask), scatter, parts.of(buf, vr, min(vr+mask, p))); err != nil {
				return err
			}
			break
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if child := vr + mask; child < p {
			if err := c.send(ctx, abs(child), scatter, parts.of(buf, child, min(child+mask, p))); err != nil {
				return err
			}
		}
	}
	gather := tag | phaseGather
	right, left := abs(vr+1), abs(vr-1+p)
	for s := range p - 1 {
		si, ri := (vr-s+p)%p, (vr-s-1+p)%p
		if err := c.sendrecv(ctx, gather, right, parts.of(buf, si, si+1), left, parts.of(buf, ri, ri+1)); err != nil {
			return err
		}
	}
	return nil
}
