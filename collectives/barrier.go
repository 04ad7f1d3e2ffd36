package collectives

import "context"

// Barrier returns once every rank has called it: no rank leaves before the
// last one enters.
//
// Algorithms: dissemination (Hensgen, Finkel and Manber), in which in round
// k every rank signals rank+2^k and waits for rank−2^k, ⌈log2 p⌉ rounds of
// empty messages for any p; gather-release, in which empty messages climb
// a binomial tree to rank 0 and rank 0 then releases the others down the
// same tree (2⌈log2 p⌉ steps), as MPICH's shared-memory barrier does.
//
// Which rank leaves first differs, and decides how long a collective timed
// right after the barrier seems to take (IMB's loop: each call timed alone,
// a barrier between calls). Under dissemination the rank that arrives last
// leaves first, one message latency before the others; under
// gather-release rank 0 leaves first and the others one latency later. On
// two ranks joined by shared memory the automatic choice is gather-release:
// rank 1 then leaves when a message rank 0 sends on leaving (a Bcast from
// root 0) is already on its way, instead of a latency before rank 0 has
// even left. Over TCP, where a latency is tens of microseconds, the
// barrier's own cost decides and dissemination, one latency instead of
// two, is kept.
func (c *Comm) Barrier(ctx context.Context) error {
	ctx, tag, err := c.begin(ctx)
	a := c.choose(collBarrier, 0)
	if err == nil && c.size > 1 {
		switch a {
		case algGatherRelease:
			err = c.barrierGatherRelease(ctx, tag)
		default:
			err = c.barrierDissemination(ctx, tag)
		}
	}
	return c.end(err, collBarrier, a, 0)
}

func (c *Comm) barrierDissemination(ctx context.Context, tag uint32) error {
	p := c.size
	for k := 1; k < p; k <<= 1 {
		if err := c.sendrecv(ctx, tag, (c.rank+k)%p, nil, (c.rank-k+p)%p, nil); err != nil {
			return err
		}
	}
	return nil
}

// barrierGatherRelease: rank r waits for its children r+mask (every power
// of two mask below r's lowest set bit), signals its parent r minus that
// bit, and once released by the parent releases the children, as
// bcastBinomial from root 0 does.
func (c *Comm) barrierGatherRelease(ctx context.Context, tag uint32) error {
	p := c.size
	gather := tag | phaseGather
	for mask := 1; mask < p; mask <<= 1 {
		if c.rank&mask != 0 {
			if err := c.send(ctx, c.rank-mask, gather, nil); err != nil {
				return err
			}
			break
		}
		if c.rank+mask < p {
			if err := c.recv(ctx, c.rank+mask, gather, nil); err != nil {
				return err
			}
		}
	}
	return c.bcastBinomial(ctx, tag|phaseScatter, nil, 0)
}
