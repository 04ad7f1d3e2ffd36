package collectives

import (
	"context"
	"fmt"
)

// Reduce combines every rank's send vector element by element with op and
// leaves the result in root's recv. Every rank passes a send of the same
// length, a whole number of dt elements; recv is as long at root and
// ignored elsewhere (it may be nil). At root send and recv may be the same
// slice (in place); otherwise they must not overlap.
//
// Algorithms: binomial (partial results flow up a binomial tree, ⌈log2 p⌉
// steps each moving the whole vector); rabenseifner (a reduce-scatter by
// recursive halving, then a binomial gather of the reduced parts to root,
// moving about 2n bytes per rank for large vectors; non-power-of-two p
// first folds the extra ranks in, see fold).
func (c *Comm) Reduce(ctx context.Context, send, recv []byte, dt Datatype, op Op, root int) error {
	ctx, tag, err := c.begin(ctx)
	n := len(send)
	a := c.choose(collReduce, n)
	if err == nil {
		err = checkReduce(dt, op, n)
	}
	if err == nil {
		err = c.checkRoot(root)
	}
	if err == nil && c.rank == root && len(recv) != n {
		err = fmt.Errorf("recv is %d bytes; want %d like send", len(recv), n)
	}
	if err == nil && n > 0 {
		switch {
		case c.size == 1:
			copy(recv, send)
		case a == algRabenseifner:
			err = c.reduceRabenseifner(ctx, tag, send, recv, dt, op, root)
		default:
			err = c.reduceBinomial(ctx, tag, send, recv, dt, op, root)
		}
	}
	return c.end(err, collReduce, a, n)
}

// reduceBinomial: relative rank vr receives and reduces the vectors of
// its children vr|mask for each mask below its lowest set bit, then sends
// the sum to its parent.
func (c *Comm) reduceBinomial(ctx context.Context, tag uint32, send, recv []byte, dt Datatype, op Op, root int) error {
	p, n := c.size, len(send)
	vr := (c.rank - root + p) % p
	acc := recv
	if c.rank != root {
		acc = c.buf(0, n)
	}
	if !sameMemory(acc, send) {
		copy(acc, send)
	}
	tmp := c.buf(1, n)
	for mask := 1; mask < p; mask <<= 1 {
		if vr&mask != 0 {
			return c.send(ctx, (c.rank-mask+p)%p, tag, acc)
		}
		if vr|mask < p {
			if err := c.recv(ctx, (c.rank+mask)%p, tag, tmp); err != nil {
				return err
			}
			reduceLocal(dt, op, acc, tmp)
		}
	}
	return nil
}

// reduceRabenseifner: fold, reduce-scatter by recursive halving, then
// gather the parts to root's newrank by recursive doubling in reverse
// (at distance d the rank on the far side of bit d from the destination
// sends its d parts and stops); a root that sat out the fold gets the
// result from its odd neighbour.
func (c *Comm) reduceRabenseifner(ctx context.Context, tag uint32, send, recv []byte, dt Datatype, op Op, root int) error {
	n, es := len(send), dt.Size()
	acc := recv
	if c.rank != root {
		acc = c.buf(1, n)
	}
	if !sameMemory(acc, send) {
		copy(acc, send)
	}
	tmp := c.buf(0, n)
	f := c.fold()
	if err := c.foldIn(ctx, f, tag, acc, tmp, dt, op); err != nil {
		return err
	}
	if f.newrank < 0 {
		if c.rank == root {
			return c.recv(ctx, c.rank+1, tag|phaseUnfold, recv)
		}
		return nil
	}
	parts := chunks{count: n / es, k: f.p2, esize: es}
	if err := c.reduceScatterHalving(ctx, f, tag, parts, acc, tmp, nil, dt, op); err != nil {
		return err
	}
	rootNR := root - f.rem
	if root < 2*f.rem {
		rootNR = root / 2
	}
	for d := 1; d < f.p2; d <<= 1 {
		pn := f.newrank ^ d
		if (f.newrank^rootNR)&d != 0 {
			mine := f.newrank &^ (d - 1)
			return c.send(ctx, f.rank(pn), tag|phaseGather, parts.of(acc, mine, mine+d))
		}
		theirs := pn &^ (d - 1)
		if err := c.recv(ctx, f.rank(pn), tag|phaseGather, parts.of(acc, theirs, theirs+d)); err != nil {
			return err
		}
	}
	// This rank is root's newrank: root itself, or its odd neighbour.
	if c.rank != root {
		return c.send(ctx, root, tag|phaseUnfold, acc)
	}
	if !sameMemory(acc, recv) {
		copy(recv, acc)
	}
	return nil
}
