package collectives

import "context"

// Barrier returns once every rank has called it: no rank leaves before the
// last one enters. It uses the dissemination algorithm (Hensgen, Finkel
// and Manber): in round k every rank signals rank+2^k and waits for
// rank−2^k, ⌈log2 p⌉ rounds of empty messages for any p.
func (c *Comm) Barrier(ctx context.Context) error {
	tag, err := c.begin(ctx)
	if err == nil {
		err = c.barrierDissemination(ctx, tag)
	}
	return c.end(err, collBarrier, algDissemination, 0)
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
