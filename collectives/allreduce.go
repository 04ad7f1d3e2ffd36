package collectives

import (
	"context"
	"fmt"
)

// Allreduce combines every rank's send vector element by element with op
// and leaves the result in every rank's recv. send and recv have the same
// length, a whole number of dt elements; they may be the same slice (in
// place) but must not otherwise overlap.
//
// Every rank ends with the same bits, floating point included: ring,
// rabenseifner and reduce-bcast compute each element once, on one rank,
// and copy it to the others; recursive-doubling has both partners of each
// exchange compute the same expression with the lower rank's operand
// first (see ReduceLocal for why the order matters only to Min and Max).
//
// Algorithms: recursive-doubling (log2 p exchanges of the whole vector:
// best for short vectors); rabenseifner (reduce-scatter by recursive
// halving, then allgather by recursive doubling: 2·log2 p steps moving
// about 2n bytes per rank); ring (reduce-scatter and allgather around a
// ring: 2(p−1) steps, 2n(p−1)/p bytes per rank for any p); reduce-bcast
// (a binomial reduce to rank 0, then a binomial bcast from it: 2(p−1)
// messages in all, the fewest, for hosts with many more ranks than CPUs,
// where every message costs a process wake-up). For p not a power of two,
// recursive-doubling and rabenseifner fold the extra ranks in first (see
// fold).
func (c *Comm) Allreduce(ctx context.Context, send, recv []byte, dt Datatype, op Op) error {
	ctx, tag, err := c.begin(ctx)
	n := len(send)
	a := c.choose(collAllreduce, n)
	if err == nil {
		err = checkReduce(dt, op, n)
	}
	if err == nil && len(recv) != n {
		err = fmt.Errorf("recv is %d bytes; want %d like send", len(recv), n)
	}
	if err == nil && n > 0 {
		// Rabenseifner on a power of two reads send itself in its first
		// step (see reduceScatterHalving); everything else works on recv.
		var src []byte
		if a == algRabenseifner && c.size > 1 && pof2(c.size) == c.size && !sameMemory(send, recv) {
			src = send
		} else if !sameMemory(send, recv) {
			copy(recv, send)
		}
		switch {
		case c.size == 1:
		case a == algRing:
			err = c.allreduceRing(ctx, tag, recv, dt, op)
		case a == algRabenseifner:
			err = c.allreduceRabenseifner(ctx, tag, recv, src, dt, op)
		case a == algReduceBcast:
			err = c.allreduceReduceBcast(ctx, tag, recv, dt, op)
		default:
			err = c.allreduceRecursiveDoubling(ctx, tag, recv, dt, op)
		}
	}
	return c.end(err, collAllreduce, a, n)
}

// allreduceReduceBcast reduces recv in place to rank 0 up a binomial tree
// and broadcasts the result down the same tree: 2(p−1) messages in all,
// where recursive-doubling sends p·log2 p. Every rank accumulates in recv,
// which the broadcast overwrites, so only the ranks with children (the
// even ones) take a scratch vector: at 256 ranks on one host and 4 MiB,
// binomial reduce's two per rank would be 2 GiB of shared memory.
func (c *Comm) allreduceReduceBcast(ctx context.Context, tag uint32, recv []byte, dt Datatype, op Op) error {
	p := c.size
	var tmp []byte
	for mask := 1; mask < p; mask <<= 1 {
		if c.rank&mask != 0 {
			if err := c.send(ctx, c.rank-mask, tag|phaseGather, recv); err != nil {
				return err
			}
			break
		}
		if c.rank|mask < p {
			if tmp == nil {
				tmp = c.buf(1, len(recv))
			}
			if err := c.recv(ctx, c.rank|mask, tag|phaseGather, tmp); err != nil {
				return err
			}
			reduceLocal(dt, op, recv, tmp)
		}
	}
	return c.bcastBinomial(ctx, tag|phaseScatter, recv, 0)
}

// allreduceRecursiveDoubling reduces recv in place: at distance d,
// newranks nr and nr^d swap whole vectors and both compute lower ⊕ higher.
func (c *Comm) allreduceRecursiveDoubling(ctx context.Context, tag uint32, recv []byte, dt Datatype, op Op) error {
	f := c.fold()
	tmp := c.buf(0, len(recv))
	if err := c.foldIn(ctx, f, tag, recv, tmp, dt, op); err != nil || f.newrank < 0 {
		if err == nil {
			err = c.foldOut(ctx, f, tag, recv, recv)
		}
		return err
	}
	for d := 1; d < f.p2; d <<= 1 {
		pn := f.newrank ^ d
		partner := f.rank(pn)
		if err := c.sendrecv(ctx, tag, partner, recv, partner, tmp); err != nil {
			return err
		}
		if pn < f.newrank {
			reduceLocalRev(dt, op, recv, tmp)
		} else {
			reduceLocal(dt, op, recv, tmp)
		}
	}
	return c.foldOut(ctx, f, tag, recv, recv)
}

// allreduceRabenseifner reduces recv in place: fold, reduce-scatter by
// recursive halving, allgather by recursive doubling, unfold.
//
// src, if not nil, holds this rank's vector in place of recv (p a power
// of two, so there is nothing to fold).
func (c *Comm) allreduceRabenseifner(ctx context.Context, tag uint32, recv, src []byte, dt Datatype, op Op) error {
	f := c.fold()
	tmp := c.buf(0, len(recv))
	if err := c.foldIn(ctx, f, tag, recv, tmp, dt, op); err != nil || f.newrank < 0 {
		if err == nil {
			err = c.foldOut(ctx, f, tag, recv, recv)
		}
		return err
	}
	acc := recv
	es := dt.Size()
	parts := chunks{count: len(recv) / es, k: f.p2, esize: es}
	if err := c.reduceScatterHalving(ctx, f, tag, parts, acc, tmp, src, dt, op); err != nil {
		return err
	}
	for d := 1; d < f.p2; d <<= 1 {
		pn := f.newrank ^ d
		partner := f.rank(pn)
		mine, theirs := f.newrank&^(d-1), pn&^(d-1)
		if err := c.sendrecv(ctx, tag|phaseGather, partner, parts.of(acc, mine, mine+d), partner, parts.of(acc, theirs, theirs+d)); err != nil {
			return err
		}
	}
	return c.foldOut(ctx, f, tag, acc, recv)
}

// allreduceRing reduces recv in place in p parts: in reduce-scatter step s
// rank r passes part r−s right and adds part r−s−1 from the left into its
// own, so that after p−1 steps it owns part r+1 fully reduced; the
// allgather steps then pass the finished parts around the ring.
func (c *Comm) allreduceRing(ctx context.Context, tag uint32, recv []byte, dt Datatype, op Op) error {
	p, r, es := c.size, c.rank, dt.Size()
	count := len(recv) / es
	parts := chunks{count: count, k: p, esize: es}
	tmp := c.buf(0, (count/p+1)*es)
	right, left := (r+1)%p, (r-1+p)%p
	for s := range p - 1 {
		si, ri := (r-s+p)%p, (r-s-1+p)%p
		dst := parts.of(recv, ri, ri+1)
		in := tmp[:len(dst)]
		if err := c.sendrecv(ctx, tag|phaseScatter, right, parts.of(recv, si, si+1), left, in); err != nil {
			return err
		}
		reduceLocal(dt, op, dst, in)
	}
	for s := range p - 1 {
		si, ri := (r+1-s+p)%p, (r-s+p)%p
		if err := c.sendrecv(ctx, tag|phaseGather, right, parts.of(recv, si, si+1), left, parts.of(recv, ri, ri+1)); err != nil {
			return err
		}
	}
	return nil
}
