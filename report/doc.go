// Package report is the one result model every hpcbench benchmark emits, and
// the writers that render it.
//
// Measuring and reporting are separate: an engine (wireup, ior, mdtest,
// imb, fabtest) builds a *Result and never prints; a writer renders it and
// never measures. report imports no measuring package.
//
// # The model
//
// A Result is
//
//  1. Run: what ran and where: benchmark name, command line, hpcbench
//     version, host names, rank and host counts, start and end time, and
//     free-form Env facts (launcher, transport, backend).
//  2. Params: the echoed options as ordered name/value strings, IOR's
//     "Options:" block.
//  3. Tables: named tables of ordered Columns and Rows. A column is a label
//     (a string that identifies the row: phase, access, iteration, message
//     size) or a metric (a float64 in the column's Unit, with Better saying
//     whether lower or higher is an improvement). A row holds its labels
//     and metrics positionally, and optionally the raw Samples behind its
//     metrics (per-rank or per-iteration figures), so that a run can be
//     re-rendered or compared statistically without running it again.
//
// NaN in a metric means "not measured" (null in JSON, "-" in text, an empty
// CSV cell). Several summary columns may share one set of samples: their
// Source names the Row.Samples entry they summarise. Summarize is the one
// routine for summary statistics: min, max, mean, the sample standard
// deviation (mdtest's) and the population one (IOR's), and the p50, p90 and
// p99 percentiles; every engine takes its summaries from it.
//
// The first consumer, "hpcbench wireup", has one table:
//
//	Table{Name: "phases", Columns: []Column{
//		{Name: "phase", Kind: KindLabel},
//		{Name: "min", Kind: KindMetric, Unit: "s", Display: "ms", Better: BetterLower, Source: "rank"},
//		{Name: "mean", Kind: KindMetric, Unit: "s", Display: "ms", Better: BetterLower, Source: "rank"},
//		{Name: "max", Kind: KindMetric, Unit: "s", Display: "ms", Better: BetterLower, Source: "rank"},
//	}}
//
// with a row per phase (init, put, barrier, get, finalize) whose
// Samples["rank"] holds each rank's seconds. The other engines map the same
// way:
//
//   - IOR: per test, tables named by IORTableName (header, options,
//     parameters, results, ranks) and one "ior summary" table; the
//     conventions are spelled out beside the IOR constants (ior.go), and
//     WriteIOR, WriteIORJSON, WriteIORCSV and WriteIORRankCSV render them
//     in IOR's own layouts.
//   - mdtest: "mdtest header", "mdtest rate", "mdtest time", "mdtest
//     ranks" and optionally "mdtest errors" (mdtest.go), rendered by
//     WriteMdtest, WriteMdtestJSON, WriteMdtestCSV and WriteMdtestRankCSV.
//   - IMB: one table per benchmark and process count, named by
//     IMBTableName ("PingPong np=2"); label #bytes (shown right-aligned,
//     since every value is a number; absent for Barrier); metrics
//     #repetitions (a count, unit ""), t for PingPong and PingPing, else
//     t_min, t_max, t_avg (Unit "s", Display "us", Source "rank" with each
//     active rank's mean), Mbytes/sec (Unit "MB/s") for the point-to-point
//     benchmarks, defects when data was checked. WriteIMB prints these in
//     IMB-MPI1's own layout.
//
// # Units and display
//
// Values are stored in the unit they are measured in: seconds, bytes,
// MiB/s, ops/s. Column.Display picks another unit of the same family for
// the text writer, which multiplies by the constant factor between them;
// JSON and CSV always carry the stored Unit. Units that convert:
//
//	time        s, ms, us, ns
//	size        B, KiB, MiB, GiB, TiB (powers of 1024), kB, MB, GB, TB (of 1000)
//	bandwidth   any size unit per second: B/s, MiB/s, GB/s, ...
//
// Any unit may be displayed as itself. The text writer uses a fixed number
// of decimals per display unit, so columns line up and golden files stay
// stable: s 6, ms 3, us 2, ns 0; the size and bandwidth units 2; other
// rates such as ops/s 3; % 2; B, counts ("") and unknown units 0 when every
// value in the column is whole, else 3.
//
// # Formats
//
// WriteText is for people (header, options, one ASCII table per Table),
// WriteJSON is the archive that ReadJSON reads back ("schema":
// "hpcbench/1"), WriteCSV is the tables alone, and WriteIMB is the layout
// of Intel(R) MPI Benchmarks for results of the IMB engine; the IOR and
// mdtest writers do the same for theirs. Format and Write choose one
// by name. Every writer validates the Result first and returns the first
// write error; none of them writes partial output on a validation error.
package report
