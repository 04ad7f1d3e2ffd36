package imb

import (
	"context"
	"fmt"
)

// p2pGroup is the first n ranks of the job's communicator seen as a group,
// built from point-to-point messages alone. It serves the point-to-point
// benchmarks on fewer processes than the job has when no GroupFunc makes
// real sub-communicators: their kernels only send and receive, and the
// barriers and the repetition count's gather and broadcast around them
// need no particular algorithm. Rank i of the group is rank i of the job.
type p2pGroup struct {
	world Comm
	n     int
}

func (g p2pGroup) Rank() int { return g.world.Rank() }
func (g p2pGroup) Size() int { return g.n }

func (g p2pGroup) Send(ctx context.Context, peer int, b []byte) error {
	return g.world.Send(ctx, peer, b)
}

func (g p2pGroup) Recv(ctx context.Context, peer int, b []byte) (int, error) {
	return g.world.Recv(ctx, peer, b)
}

func (g p2pGroup) Sendrecv(ctx context.Context, dst int, sb []byte, src int, rb []byte) (int, error) {
	return g.world.Sendrecv(ctx, dst, sb, src, rb)
}

// EagerLimit is the world's (see eagerLimit), -1 when it has none.
func (g p2pGroup) EagerLimit(peer int) int { return eagerLimit(g.world, peer) }

// Barrier is a dissemination barrier: in round k every rank signals the
// rank 2^k to its right and waits for the one 2^k to its left.
func (g p2pGroup) Barrier(ctx context.Context) error {
	r := g.Rank()
	var tok, got [1]byte
	for k := 1; k < g.n; k *= 2 {
		if _, err := g.world.Sendrecv(ctx, (r+k)%g.n, tok[:], (r-k+g.n)%g.n, got[:]); err != nil {
			return err
		}
	}
	return nil
}

// Bcast sends buf from root to every other rank of the group in turn.
func (g p2pGroup) Bcast(ctx context.Context, buf []byte, root int) error {
	if g.Rank() != root {
		n, err := g.world.Recv(ctx, root, buf)
		if err == nil && n != len(buf) {
			err = fmt.Errorf("bcast from rank %d: got %d bytes, want %d", root, n, len(buf))
		}
		return err
	}
	for r := range g.n {
		if r != root {
			if err := g.world.Send(ctx, r, buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// Gather collects every rank's send into the root's recv, block r from
// rank r.
func (g p2pGroup) Gather(ctx context.Context, send, recv []byte, root int) error {
	if g.Rank() != root {
		return g.world.Send(ctx, root, send)
	}
	l := len(send)
	for r := range g.n {
		block := recv[r*l : (r+1)*l]
		if r == root {
			copy(block, send)
			continue
		}
		n, err := g.world.Recv(ctx, r, block)
		if err != nil {
			return err
		}
		if n != l {
			return fmt.Errorf("gather from rank %d: got %d bytes, want %d", r, n, l)
		}
	}
	return nil
}
