// Package imb is hpcbench's analogue of the Intel(R) MPI Benchmarks'
// IMB-MPI1: PingPong, PingPing, Sendrecv, Exchange, Allreduce, Reduce,
// Allgather, Gather, Scatter, Alltoall, Bcast and Barrier, driven over a
// Comm (collectives.Comm in a real job), measured the way IMB measures them
// and reported as a report.Result that report.WriteIMB prints in IMB's
// layout. Every rank calls Run; rank 0 gets the result; nothing prints.
//
// # How a number is made
//
// This follows IMB 2021's C sources (src_c: IMB.c, IMB_mem_manager.c
// IMB_init_buffers_iter, IMB_warm_up.c, IMB_output.c and the kernels) and
// ../shared/reference/collectives-fabric.md §2.1.
//
// Benchmarks run in the order asked for (IMB-MPI1's default order when none
// are). PingPong and PingPing run on ranks 0 and 1; the others at -npmin
// processes (default 2, capped at the job size), doubling up to the job
// size. The active processes are the first ranks; the others wait in a
// barrier of the whole job after every message size, and are named in the
// table's header.
//
// Sizes are 0, then 2^MIN … 2^MAX from -msglog MIN:MAX (default 0:22), or
// the -msglen list in file order. Reductions use float32 sums (IMB's
// MPI_FLOAT, MPI_SUM) of #bytes/4 elements: sizes are rounded up to a
// multiple of 4 as IMB does, so the default list gives 0, 4, 8, … 4 MiB;
// a listed size that rounds onto one already listed is dropped, where IMB
// would run it again. Barrier has one row and no size.
//
// For each size, on the active processes:
//
//  1. The starting count is -iter's N for size 0 or Barrier, else
//     min(N, max(1, VOL/size)), N = 1000 and VOL = 40 MiB by default
//     (-iter_policy off: N always).
//  2. Dynamic policy (default): the kernel runs once and the slowest rank's
//     time t1 is taken; it runs again with min(start, about 1/t1)
//     repetitions (1000 when t1 < 1 ms) and the slowest rank's mean t is
//     taken; the count is min(start, 1 + Time/t) and never more than the
//     previous size got (for a -msglen list: than any smaller size got, and
//     never less than any larger one). Rank 0's choice is broadcast. The
//     budget is per size and per benchmark: unlike IMB (§1.2), a slow
//     benchmark never makes later ones time out.
//  3. Warm-up: the kernel runs max(n/10, min(10, n)) repetitions.
//  4. The measured run: n repetitions. Every kernel call starts with two
//     barriers (IMB's N_BARR). Collectives time each call alone and, with
//     -sync on (default), follow it with a barrier outside the timing;
//     Barrier and the point-to-point benchmarks time the whole loop, as
//     IMB does. Each rank's figure is its mean over the repetitions, times
//     0.5 for PingPong (a repetition is a round trip).
//
// Rank 0 gathers every rank's figure. t_min, t_max and t_avg are the
// minimum, maximum and mean over the active ranks (IMB_calculate_times), so
// t_avg is the mean of per-rank means. PingPong's and PingPing's t is t_max,
// as IMB prints it. Mbytes/sec is scale × #bytes / t_max[µs], 10^6 bytes a
// second, with scale 1 for PingPong and PingPing, 2 for Sendrecv and 4 for
// Exchange.
//
// # Roots
//
// Bcast, Scatter, Gather and Reduce use root -root (default 0; mod the
// process count on fewer processes). IMB always starts at root 0 and, only
// with -root_shift on, moves it one rank per repetition; -root_shift on
// does the same here, from -root.
//
// # Checking results
//
// With -check, every send buffer is filled with data that depends on the
// sending rank, the message size and the byte's position (reductions: small
// integers as float32, whose sums are exact in any order). Before each
// measured repetition the receive buffer is filled with the complement of
// what it must hold, and afterwards compared with it byte for byte, outside
// the timed region (point-to-point benchmarks then time each repetition
// alone). A mismatch counts one defect; the table gets a "defects" column,
// and Run returns an error wrapping ErrCheck on every rank.
//
// # Results
//
// One report.Table per benchmark and process count, named by
// report.IMBTableName ("Allreduce np=4"), with IMB's columns: label #bytes
// (not for Barrier); metrics #repetitions, t (PingPong, PingPing) or t_min,
// t_max, t_avg (stored in seconds, shown in µs, each rank's figure kept in
// Row.Samples["rank"]), Mbytes/sec (MB/s) for PingPong, PingPing, Sendrecv
// and Exchange, and defects with -check. Params echo the options as IMB's
// command line spells them; Run.Env carries the transport, CPU count,
// machine, and "oversubscribed" when a host runs more ranks than CPUs.
//
// After IMB's tables come the distribution tables of every benchmark,
// process count and size (internal/distribution, report.LatencyTable, SeriesTable,
// RankTables): "latency" (percentiles of a repetition's time), "series"
// (the job's repetitions per second per --interval), and with more than
// one process "ranks" and "hosts"; dist.go says what they hold and how
// the loops IMB times as a whole sample their repetitions.
//
// # Sub-communicators
//
// Collectives on fewer processes than the job need a communicator of those
// processes, which Options.Group makes. Without it they run at the job
// size only (the result's Params say what was skipped), and the
// point-to-point benchmarks run over the job's communicator, with their
// barriers made of point-to-point messages.
package imb
