// Package collectives is MPI-style communication among the ranks of a job
// over fabric connections: a Comm per rank with point-to-point messages
// (Send, Recv, Sendrecv) and the collectives Barrier, Bcast, Scatter,
// Gather, Allgather, Alltoall, Reduce and Allreduce, each with several
// algorithms, all correct for any number of ranks. It also holds the local
// reduction kernels (ReduceLocal) and the data patterns benchmarks use to
// verify results (Pattern).
//
// # Using a Comm
//
// internal/job builds one Comm per rank from the fabric connections to
// every peer (tests use fabric/pipe's Mesh). Every rank makes the same
// collective calls in the same order with matching arguments, from one
// goroutine, as with an MPI communicator. Every call takes a context and
// returns an error rather than hanging: a peer that closes or dies surfaces
// as an error wrapping fabric.ErrClosed, an ended context as its error. A
// failed collective aborts the Comm (it closes its connections, so the
// failure reaches every rank at once instead of at each rank's deadline;
// see Comm).
//
// # Tags
//
// User point-to-point messages carry tag 0. Every collective call takes
// the next value of a per-Comm sequence number, which all ranks agree on
// because they make the same calls, and its messages carry the tag
// 1<<31 | seq<<4 | phase (27 bits of sequence, wrapping; 4 bits of phase
// for algorithms of several steps). So consecutive collectives, and
// collectives and user traffic, never take each other's messages, even when
// a fast rank runs ahead into the next call.
//
// # Sendrecv and goroutines
//
// The exchanges inside the algorithms (and Comm.Sendrecv) send and
// receive at the same time so that two ranks exchanging large messages
// cannot deadlock, even over a transport whose Send waits for the matching
// Recv (the algorithms are tested over such pipes). When the connection
// says that a Send of that size never waits for the peer (an EagerLimit()
// method, as fabric/pipe's connections have), the send runs first in the
// calling goroutine; otherwise it runs in a goroutine that the call waits
// for before it returns, cancelled if the receive fails.
//
// # Algorithms and their selection
//
// Every collective has the algorithms listed by Algorithms. Options can
// force one per collective (ParseAlgorithms reads a flag such as
// "allreduce=ring,bcast=binomial"); otherwise Comm.Algorithm chooses by
// message size and number of ranks p from one table, Thresholds, whose
// defaults (DefaultThresholds) follow the intra-node choices of MPICH 4.0.2:
//
//	collective  algorithms                                default choice
//	barrier     dissemination, gather-release             gather-release if p = 2 on shared memory, else dissemination
//	bcast       binomial, scatter-ring (van de Geijn)     binomial if p < 8 or n <= 12288, else scatter-ring
//	scatter     binomial, linear                          binomial
//	gather      binomial, linear                          binomial
//	allgather   recursive-doubling (p = 2^k), bruck, ring p = 2^k: recursive-doubling if n·p < 512 KiB, else ring
//	                                                      other p: bruck if n·p < 80 KiB, else ring
//	alltoall    bruck, scattered, pairwise                bruck if p >= 8 and n <= 256; scattered if n <= 32 KiB;
//	                                                      else pairwise
//	reduce      binomial, rabenseifner                    binomial if n <= 2048 or n/8 < pof2(p), else rabenseifner
//	allreduce   recursive-doubling, rabenseifner, ring    recursive-doubling if n <= 2048 or n/8 < pof2(p),
//	                                                      else rabenseifner
//
// Where this differs from MPICH: bcast's large-message algorithm is always
// scatter followed by a ring allgather (MPICH uses a recursive-doubling
// allgather for power-of-two p up to 512 KiB); MPICH's element count is
// taken as n/8; allreduce uses MPICH's classic 2048-byte threshold (its
// JSON tree says 8 bytes). The ring allreduce is never chosen by default,
// as in MPICH, though Thresholds.AllreduceLongMsg can enable it for p not a
// power of two: measured in process on two CPUs it was no faster than
// Rabenseifner (within 10% either way for p = 3, 5 and 6 at 256 KiB to
// 4 MiB). MPICH's shared-memory layer uses its release/gather barrier for
// any p on one node, dissemination otherwise; here gather-release is the
// default only for p = 2 over shared memory, where it costs one message
// latency more than dissemination but makes rank 0 leave first (see
// Comm.Barrier), and dissemination, with half the steps, for every larger
// p and over TCP. All thresholds
// should be revisited with measurements on real fabrics.
//
// # Stall deadlines
//
// A rank that stops (SIGSTOP, a hung file system call) would leave every
// rank waiting for it forever. With Options.StallTimeout, a wait for a peer
// during which no message of the Comm moves for that long fails with a
// *StallError wrapping ErrStalled that names both ranks, the call and,
// after SetPhase, the phase: "collectives: rank 0 waited 2s for rank 2 in
// Barrier (dissemination, 0 bytes, 4 ranks), 1.2s into phase "write"
// (iteration 0): no 0-byte message came from rank 2". A collective that
// stalls aborts the Comm like any failed collective, closing its
// connections, so the ranks waiting on this one fail at once. The rank
// named may itself be waiting for the stopped one; that rank's own error
// names it. Options.StallScale lengthens the deadline at a barrier after a
// phase in proportion to how long the phase took this rank; a wait for one
// message of a MiB or more gets at least the time it takes at 10 MiB/s.
// The cost on the fast path is two uncontended atomic additions per
// message (and two stores for a message of a MiB or more).
//
// # Reductions
//
// Reduction buffers hold elements of a Datatype in native byte order.
// ReduceLocal reduces them in place with loops over the reinterpreted
// slices (unrolled, no per-element calls): about 12 GB/s for float32 sums
// of 4 MiB on the development VM. Allreduce leaves identical bits on every
// rank for every algorithm and op.
//
// # Verifying results
//
// Pattern gives each collective call deterministic inputs per rank (Fill)
// and the result each rank must then hold (Expected, Verify), computed in
// time proportional to the buffer, not to the number of ranks, so a
// benchmark's -check can afford to verify every result.
package collectives
