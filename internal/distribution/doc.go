// Package distribution records distributions while a benchmark measures: the
// latency of every operation in a log-linear histogram (Hist), the amount
// done per interval of time (Recorder's series), and the steady-state test
// behind --until-steady (Steady). Recording allocates nothing and costs a
// few nanoseconds per operation, so the engines keep it on in their timed
// loops; job-wide figures come from one reduction per phase (Reduce).
//
// The engines turn the reduced figures into the archive's tables with
// report.LatencyTable, report.SeriesTable and report.RankTables.
package distribution
