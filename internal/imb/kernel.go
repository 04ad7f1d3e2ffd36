package imb

import (
	"bytes"
	"context"
	"fmt"

	"github.com/hpcbench/hpcbench/internal/distribution"
)

// nBarr is IMB's N_BARR: barriers at the start of every kernel call.
const nBarr = 2

// sizeRun is one benchmark at one message size on one active rank: the
// group it runs in, its buffers and its clock.
type sizeRun struct {
	ctx  context.Context
	o    *Options
	b    benchmark
	g    p2p            // the active processes
	c    Comm           // the same group as a Comm; nil for a p2pGroup
	now  func() float64 // seconds on a monotonic clock
	rank int            // this rank in g
	np   int            // g.Size()
	size int            // message size, bytes

	// rec, when not nil, records every repetition of the measured run
	// (not the warm-up's or the probes'); t0 is its phase's start on
	// now's clock, read after the kernel's barriers.
	rec *distribution.Recorder
	t0  float64

	send, recv []byte
	want       []byte // what recv must hold, for -check
	wantRoot   int    // the root want was computed for; -1 for none
	wantOK     bool   // whether this rank checks anything at wantRoot
}

// kernelFunc runs n repetitions of a benchmark and returns the mean time of
// one repetition in seconds (before the benchmark's time scale) and, when
// check is set, how many repetitions left a wrong result.
type kernelFunc func(x *sizeRun, n int, check bool) (mean float64, defects int, err error)

// barriers runs IMB's N_BARR barriers that start every kernel call.
func (x *sizeRun) barriers() error {
	for range nBarr {
		if err := x.g.Barrier(x.ctx); err != nil {
			return fmt.Errorf("barrier: %w", err)
		}
	}
	return nil
}

// rootAt returns the root of repetition i: Root (mod the process count),
// moved on by one rank per repetition with RootShift, starting again at
// every kernel call as IMB's does.
func (x *sizeRun) rootAt(i int) int {
	root := x.o.Root % x.np
	if x.o.RootShift {
		root = (root + i) % x.np
	}
	return root
}

// prepare readies recv for a checked repetition with root: it works out
// what recv must hold afterwards (once per root) and fills recv with the
// complement of that, so a call that writes nothing cannot pass. It
// reports whether this rank has a result to check.
func (x *sizeRun) prepare(root int) bool {
	if x.wantRoot != root {
		x.wantOK = x.b.want(x, root, x.want)
		x.wantRoot = root
	}
	if !x.wantOK {
		return false
	}
	for i, v := range x.want {
		x.recv[i] = ^v
	}
	return true
}

// correct reports whether recv holds what prepare said it must.
func (x *sizeRun) correct() bool { return bytes.Equal(x.recv, x.want) }

// pointToPoint times n repetitions of op as IMB times its point-to-point
// benchmarks: the whole loop at once, no barrier between repetitions. With
// check, each repetition is timed alone and verified outside its timing.
// The mean comes from the loop's span either way; a recorded run without
// check also times the repetitions distribution's sampling asks for (Due) alone.
func (x *sizeRun) pointToPoint(n int, check bool, op func() error) (float64, int, error) {
	if err := x.barriers(); err != nil {
		return 0, 0, err
	}
	if !check {
		t0 := x.now()
		x.begin(t0)
		if rec := x.rec; rec != nil {
			// distribution's sampling: the repetitions rec says are due are
			// timed alone, the others only counted. A timed repetition
			// right after another starts at that one's end reading.
			prev := int64(-1) // end of the previous repetition, if timed
			for range n {
				if !rec.Due() {
					if err := op(); err != nil {
						return 0, 0, err
					}
					rec.Skip(1)
					prev = -1
					continue
				}
				start := prev
				if start < 0 {
					start = x.ns(x.now())
				}
				if err := op(); err != nil {
					return 0, 0, err
				}
				prev = x.ns(x.now())
				rec.Op(start, prev, 1)
			}
		} else {
			for range n {
				if err := op(); err != nil {
					return 0, 0, err
				}
			}
		}
		t1 := x.now()
		x.done(t1)
		return meanSeconds(t1-t0, n), 0, nil
	}
	var sum float64
	defects := 0
	x.begin(x.now())
	for range n {
		checked := x.prepare(0)
		t0 := x.now()
		err := op()
		t1 := x.now()
		sum += t1 - t0
		if err != nil {
			return 0, 0, err
		}
		x.op(t0, t1)
		if checked && !x.correct() {
			defects++
		}
	}
	x.done(x.now())
	return meanSeconds(sum, n), defects, nil
}

// collective times n repetitions of op as IMB times collectives: each call
// alone, then a barrier outside the timed region when Sync is set.
func (x *sizeRun) collective(n int, check bool, op func(root int) error) (float64, int, error) {
	if err := x.barriers(); err != nil {
		return 0, 0, err
	}
	var sum float64
	defects := 0
	x.begin(x.now())
	for i := range n {
		root := x.rootAt(i)
		checked := check && x.prepare(root)
		t0 := x.now()
		err := op(root)
		t1 := x.now()
		sum += t1 - t0
		if err != nil {
			return 0, 0, err
		}
		x.op(t0, t1)
		if checked && !x.correct() {
			defects++
		}
		if x.o.Sync {
			if err := x.g.Barrier(x.ctx); err != nil {
				return 0, 0, fmt.Errorf("barrier: %w", err)
			}
		}
	}
	x.done(x.now())
	return meanSeconds(sum, n), defects, nil
}

// recvFull receives exactly len(b) bytes from peer.
func (x *sizeRun) recvFull(peer int, b []byte) error {
	n, err := x.g.Recv(x.ctx, peer, b)
	if err != nil {
		return fmt.Errorf("receive from rank %d: %w", peer, err)
	}
	if n != len(b) {
		return fmt.Errorf("receive from rank %d: got %d bytes, want %d", peer, n, len(b))
	}
	return nil
}

// sendrecvFull exchanges sb and rb, requiring a message of exactly len(rb).
func (x *sizeRun) sendrecvFull(dst int, sb []byte, src int, rb []byte) error {
	n, err := x.g.Sendrecv(x.ctx, dst, sb, src, rb)
	if err != nil {
		return fmt.Errorf("sendrecv to rank %d from rank %d: %w", dst, src, err)
	}
	if n != len(rb) {
		return fmt.Errorf("sendrecv from rank %d: got %d bytes, want %d", src, n, len(rb))
	}
	return nil
}

// pingPong: rank 0 sends and waits for the answer, rank 1 answers
// (IMB_pingpong).
func pingPong(x *sizeRun, n int, check bool) (float64, int, error) {
	return x.pointToPoint(n, check, func() error {
		if x.rank == 0 {
			if err := x.g.Send(x.ctx, 1, x.send); err != nil {
				return fmt.Errorf("send to rank 1: %w", err)
			}
			return x.recvFull(1, x.recv)
		}
		if err := x.recvFull(0, x.recv); err != nil {
			return err
		}
		if err := x.g.Send(x.ctx, 0, x.send); err != nil {
			return fmt.Errorf("send to rank 0: %w", err)
		}
		return nil
	})
}

// pingPing: both ranks send to each other at once (IMB_pingping).
func pingPing(x *sizeRun, n int, check bool) (float64, int, error) {
	peer := 1 - x.rank
	return x.pointToPoint(n, check, func() error {
		return x.sendrecvFull(peer, x.send, peer, x.recv)
	})
}

// sendrecv: every rank sends right and receives from the left in a ring
// (IMB_sendrecv).
func sendrecv(x *sizeRun, n int, check bool) (float64, int, error) {
	right, left := (x.rank+1)%x.np, (x.rank+x.np-1)%x.np
	return x.pointToPoint(n, check, func() error {
		return x.sendrecvFull(right, x.send, left, x.recv)
	})
}

// exchange: every rank sends one message to each neighbour and receives one
// from each. Messages the connections deliver without waiting go as
// IMB_exchange's do: both sends, then both receives; larger ones as two
// sendrecvs, which cannot deadlock whatever the transport.
func exchange(x *sizeRun, n int, check bool) (float64, int, error) {
	right, left := (x.rank+1)%x.np, (x.rank+x.np-1)%x.np
	s := x.size
	if s <= eagerLimit(x.g, right) && s <= eagerLimit(x.g, left) {
		return x.pointToPoint(n, check, func() error {
			if err := x.g.Send(x.ctx, right, x.send[:s]); err != nil {
				return fmt.Errorf("send to rank %d: %w", right, err)
			}
			if err := x.g.Send(x.ctx, left, x.send[s:]); err != nil {
				return fmt.Errorf("send to rank %d: %w", left, err)
			}
			if err := x.recvFull(left, x.recv[:s]); err != nil {
				return err
			}
			return x.recvFull(right, x.recv[s:])
		})
	}
	return x.pointToPoint(n, check, func() error {
		if err := x.sendrecvFull(right, x.send[:s], left, x.recv[:s]); err != nil {
			return err
		}
		return x.sendrecvFull(left, x.send[s:], right, x.recv[s:])
	})
}

// allreduce: MPI_Allreduce of float32 sums.
func allreduce(x *sizeRun, n int, check bool) (float64, int, error) {
	return x.collective(n, check, func(int) error {
		return x.c.Allreduce(x.ctx, x.send, x.recv, Float32, Sum)
	})
}

// reduce: MPI_Reduce of float32 sums to the root.
func reduce(x *sizeRun, n int, check bool) (float64, int, error) {
	return x.collective(n, check, func(root int) error {
		return x.c.Reduce(x.ctx, x.send, x.recv, Float32, Sum, root)
	})
}

// allgather: MPI_Allgather of size bytes per rank.
func allgather(x *sizeRun, n int, check bool) (float64, int, error) {
	return x.collective(n, check, func(int) error {
		return x.c.Allgather(x.ctx, x.send, x.recv)
	})
}

// gather: MPI_Gather of size bytes per rank to the root.
func gather(x *sizeRun, n int, check bool) (float64, int, error) {
	return x.collective(n, check, func(root int) error {
		return x.c.Gather(x.ctx, x.send, x.recv, root)
	})
}

// scatter: MPI_Scatter of size bytes per rank from the root.
func scatter(x *sizeRun, n int, check bool) (float64, int, error) {
	return x.collective(n, check, func(root int) error {
		return x.c.Scatter(x.ctx, x.send, x.recv, root)
	})
}

// alltoall: MPI_Alltoall of size bytes per pair of ranks.
func alltoall(x *sizeRun, n int, check bool) (float64, int, error) {
	return x.collective(n, check, func(int) error {
		return x.c.Alltoall(x.ctx, x.send, x.recv)
	})
}

// bcast: MPI_Bcast from the root's send buffer into the others' receive
// buffers (IMB_bcast keeps the root's data intact the same way).
func bcast(x *sizeRun, n int, check bool) (float64, int, error) {
	return x.collective(n, check, func(root int) error {
		buf := x.recv
		if x.rank == root {
			buf = x.send
		}
		return x.c.Bcast(x.ctx, buf, root)
	})
}

// barrier: MPI_Barrier, the loop timed as a whole (IMB_barrier), as the
// point-to-point benchmarks are.
func barrier(x *sizeRun, n int, _ bool) (float64, int, error) {
	return x.pointToPoint(n, false, func() error {
		if err := x.g.Barrier(x.ctx); err != nil {
			return fmt.Errorf("barrier: %w", err)
		}
		return nil
	})
}
