// Package mdtest is hpcbench's mdtest engine: metadata rates (create, stat,
// read, rename, remove of files and directories in a tree) over any aiori
// backend with the Metadata capability, measured as mdtest 4 measures them.
//
// # Timing model
//
// Every phase runs between barriers: each rank reads the clock after the
// first barrier, does its items, reads the clock ("before barrier"), runs
// the optional sync (-Y), waits at the second barrier and reads the clock
// again. A rank's rate is its items over the time to the second reading;
// the iteration's rate is the slowest rank's rate times the number of
// ranks, as mdtest's. The tree rows are rank 0's own rates (directories
// over elapsed time). Max, Min, Mean and the sample standard deviation
// (n−1, as mdtest) are taken over iterations; per-rank statistics come
// from the rates before the barrier.
//
// # Layout
//
// Each iteration works in <dir>/test-dir.<iter>-0 (-0, -1 … with -n and
// -I), in a tree of directories mdtest_tree.0/mdtest_tree.1/...
// (mdtest_tree.<rank>.0/mdtest_tree.<rank>.1/... per rank with -u) of
// depth -z and branching factor -b; items are named
// file.mdtest.<rank>.<i> and dir.mdtest.<rank>.<i>, -I of them per
// directory (only the leaves with -L), numbered across the tree's
// directories as mdtest numbers them. With -N, the phases after create
// work on the items of rank+N.
//
// As mdtest, the runner keeps no list of paths: the timed loop derives
// each item's path from its number as it reaches it, in one reused buffer
// (a backend that keeps no path is handed a view of it, so the loop
// allocates nothing), and -R's random order is a permutation computed per
// item rather than a shuffled array. A rank's memory is the same at -n
// 1000 as at -n 1e10.
//
// # Task counts, -c, per-operation files
//
// Sweep runs the whole test once per task count of -f/-l/-s on the
// communicator of the job's first n ranks (collectives.Comm.Sub), the
// others waiting, and returns one Result per count. With -c rank 0 does
// every rank's creates and removes (for files, every rank then opens and
// writes its own), each rank counting its own items as mdtest's does.
// --savePerOpDataCSV wraps a file phase's operation with two clock
// readings and writes each rank's PREFIX-PHASE-RANK.csv after the phase.
//
// # Distributions, -W and --until-steady
//
// Each item's end is read once on a monotonic clock (Env.Tick) and
// recorded in a dist.Recorder: its latency from the previous item's end
// and the items per --interval. After each phase the ranks reduce their
// Recorders (dist.Reduce), and rank 0's Result carries the "latency",
// "series" and, with more than one rank, "ranks" and "hosts" tables per
// phase and iteration; mdtest's own views ignore them. The creation
// phases may end early on a rank: -W's seconds passed on that clock, or
// --until-steady's test passed on its Recorder (one predicate,
// loop.stop). The ranks then agree on the most items any rank created and
// catch up to it (stonewall), so that stat, read and removal work on
// exactly the items created, as mdtest's -W does.
//
// # Failures
//
// A failed operation does not stop the phase: failures are counted per
// phase with the first failing path and its error, reported, and the run
// ends with ErrOps (the command exits 1). The tree is removed at the end of
// a failed iteration as far as it can be, so a failure leaves nothing
// behind.
package mdtest
