package imb

import "context"

// Comm is what the engine needs from a communicator: the subset of
// collectives.Comm's methods the benchmarks drive. *collectives.Comm
// satisfies it; tests use an in-process fake.
//
// Every method is blocking and collective calls must be made by every rank
// of the communicator in the same order, as in MPI. Buffers follow MPI's
// conventions: Scatter's send and Gather's, Allgather's and Alltoall's
// receive hold Size() blocks of the per-rank length; Reduce and Allreduce
// combine len(send)/dt.Size() elements.
type Comm interface {
	Rank() int
	Size() int

	Send(ctx context.Context, peer int, b []byte) error
	Recv(ctx context.Context, peer int, b []byte) (int, error)
	Sendrecv(ctx context.Context, dst int, sb []byte, src int, rb []byte) (int, error)

	Barrier(ctx context.Context) error
	Bcast(ctx context.Context, buf []byte, root int) error
	Scatter(ctx context.Context, send, recv []byte, root int) error
	Gather(ctx context.Context, send, recv []byte, root int) error
	Allgather(ctx context.Context, send, recv []byte) error
	Alltoall(ctx context.Context, send, recv []byte) error
	Reduce(ctx context.Context, send, recv []byte, dt Datatype, op Op, root int) error
	Allreduce(ctx context.Context, send, recv []byte, dt Datatype, op Op) error
}

// eagerLimit is c's EagerLimit(peer) when it has one (collectives.Comm
// does): the largest message a Send delivers without waiting for the
// receiver. -1 otherwise.
func eagerLimit(c any, peer int) int {
	if e, ok := c.(interface{ EagerLimit(peer int) int }); ok {
		return e.EagerLimit(peer)
	}
	return -1
}

// GroupFunc makes the communicator of the first n ranks of the job, for
// running a benchmark on fewer processes than the job has (-npmin). It is
// collective: every rank of the job calls it with the same n, in the same
// order. Rank i of the job is rank i of the group; ranks n and above get
// (nil, nil) and wait, as IMB's idle processes wait in MPI_Barrier.
type GroupFunc func(ctx context.Context, n int) (Comm, error)

// p2p is what the point-to-point benchmarks (PingPong, PingPing, Sendrecv,
// Exchange) and the repetition schedule need from a group of ranks. A Comm
// is one; so is a p2pGroup built over the job's Comm when no GroupFunc is
// given.
type p2p interface {
	Rank() int
	Size() int
	Send(ctx context.Context, peer int, b []byte) error
	Recv(ctx context.Context, peer int, b []byte) (int, error)
	Sendrecv(ctx context.Context, dst int, sb []byte, src int, rb []byte) (int, error)
	Barrier(ctx context.Context) error
	Bcast(ctx context.Context, buf []byte, root int) error
	Gather(ctx context.Context, send, recv []byte, root int) error
}
