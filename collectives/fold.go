package collectives

import "context"

// fold places this rank in the power-of-two group that recursive doubling
// and Rabenseifner's algorithm run on, for any number of ranks p (MPICH's
// scheme): with p2 the largest power of two not above p and rem = p − p2,
// each even rank below 2·rem hands its vector to the odd rank above it and
// sits out (newrank −1); the odd ones become newrank rank/2 and the ranks
// from 2·rem on become rank − rem. At the end the odd ranks hand the result
// back.
type fold struct {
	p2, rem int
	newrank int // −1 for a rank that sits out
}

func (c *Comm) fold() fold {
	f := fold{p2: pof2(c.size)}
	f.rem = c.size - f.p2
	switch {
	case c.rank >= 2*f.rem:
		f.newrank = c.rank - f.rem
	case c.rank%2 == 1:
		f.newrank = c.rank / 2
	default:
		f.newrank = -1
	}
	return f
}

// rank returns the real rank of newrank nr.
func (f fold) rank(nr int) int {
	if nr < f.rem {
		return 2*nr + 1
	}
	return nr + f.rem
}

// foldIn runs the fold step for this rank: a rank that sits out sends acc
// to its odd neighbour; an odd rank below 2·rem receives its even
// neighbour's vector into tmp and reduces it into acc, lower rank's
// operand first.
func (c *Comm) foldIn(ctx context.Context, f fold, tag uint32, acc, tmp []byte, dt Datatype, op Op) error {
	switch {
	case f.newrank < 0:
		return c.send(ctx, c.rank+1, tag|phaseFold, acc)
	case c.rank < 2*f.rem:
		if err := c.recv(ctx, c.rank-1, tag|phaseFold, tmp); err != nil {
			return err
		}
		reduceLocalRev(dt, op, acc, tmp)
	}
	return nil
}

// foldOut hands the result back: an odd rank below 2·rem sends acc to its
// even neighbour, which receives it into recv.
func (c *Comm) foldOut(ctx context.Context, f fold, tag uint32, acc, recv []byte) error {
	switch {
	case f.newrank < 0:
		return c.recv(ctx, c.rank+1, tag|phaseUnfold, recv)
	case c.rank < 2*f.rem:
		return c.send(ctx, c.rank-1, tag|phaseUnfold, acc)
	}
	return nil
}

// reduceScatterHalving is the reduce-scatter half of Rabenseifner's
// algorithm, on the p2 ranks of f (recursive halving): acc is split into
// p2 parts, and in the step with distance d a rank keeps the half of its
// current range on its side of bit d, sends the other half to newrank^d and
// reduces what that partner sends for its own half. Afterwards newrank i
// holds part i reduced over all ranks. tmp needs half of acc.
//
// If src is not nil, acc does not hold this rank's vector yet and src does:
// the first step sends its half straight from src and copies only the
// half it keeps into acc, which saves copying the half given away (an
// Allreduce of 1 MiB on two ranks spent a fifth of its time copying).
func (c *Comm) reduceScatterHalving(ctx context.Context, f fold, tag uint32, parts chunks, acc, tmp, src []byte, dt Datatype, op Op) error {
	lo, hi := 0, f.p2
	for d := f.p2 / 2; d >= 1; d >>= 1 {
		partner := f.rank(f.newrank ^ d)
		keepLo, keepHi, giveLo, giveHi := lo, lo+d, lo+d, hi
		if f.newrank&d != 0 {
			keepLo, keepHi, giveLo, giveHi = lo+d, hi, lo, lo+d
		}
		keep := parts.of(acc, keepLo, keepHi)
		give := parts.of(acc, giveLo, giveHi)
		if src != nil {
			give = parts.of(src, giveLo, giveHi)
			copy(keep, parts.of(src, keepLo, keepHi))
			src = nil
		}
		in := tmp[:len(keep)]
		if err := c.sendrecv(ctx, tag|phaseScatter, partner, give, partner, in); err != nil {
			return err
		}
		reduceLocal(dt, op, keep, in)
		lo, hi = keepLo, keepHi
	}
	return nil
}
