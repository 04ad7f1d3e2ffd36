// Package ior is hpcbench's IOR engine: it runs the tests that
// internal/ior/config parsed, over an aiori backend, on every rank of a job,
// and measures them as IOR 4 does, so that figures are comparable with
// IOR's own.
//
// # Timing model
//
// Every phase (write, read) of every repetition runs between barriers. Each
// rank records six clock readings: open start and stop, transfer start and
// stop, close start and stop. The job reduces the start readings with MIN
// and the stop readings with MAX, and rank 0 reports
//
//	open, wr/rd, close  latest stop − earliest start of that part
//	total               latest close stop − earliest open start
//	bw                  bytes moved by all ranks / total (open and close included)
//	IOPS                transfers / wr/rd time (open and close excluded)
//	latency             the smallest per-rank wr/rd time / transfers of that rank
//
// IOR computes the smallest per-rank latency but prints rank 0's own; this
// engine reports the smallest, as IOR meant to. The summary's OPs use the
// total time, as IOR's do (hpc/ior#478), so they differ from the rows' IOPS.
// -e (fsync) runs inside the transfer window; -W verification is an untimed
// pass after the write; -R verification runs inside the timed read.
//
// The clock is Env.Clock: wall-clock seconds, comparable between processes
// of one host (and, as with IOR's MPI_Wtime, only as good as the hosts'
// clock synchronisation across hosts).
//
// # Distributions
//
// Beyond IOR's figures, the timed loop reads the monotonic clock once per
// transfer and records it in an internal/distribution Recorder: the archive gets,
// per write and read phase and repetition, the transfers' latency
// percentiles (LatencyTable), MiB/s per --interval (SeriesTable) and, with
// more than one rank, each rank's and host's bytes and end (RanksTable,
// HostsTable). --until-steady ends a rank's phase once its Recorder finds
// the throughput steady; the phase then ends as a -D deadline ends it.
//
// # Deliberate differences from IOR
//
//   - -C on one node reads another rank's data (IOR computes a shift of
//     zero there and silently reads its own); -Z -Z is a permutation.
//   - -l random verifies (IOR's writer and verifier used different seeds),
//     and -l incompressible data is incompressible.
//   - -i 0 is rejected by the parser instead of crashing at exit.
//   - The timed loop does nothing but the transfers (and, for data types
//     that need it, stamping the offset into the buffer, which IOR does
//     too): no allocation, no formatting, no locks.
package ior
