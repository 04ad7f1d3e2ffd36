// Package plot draws charts of saved runs (archives in the report.Schema
// layout): one line, or one set of bars, per archive, so that runs compare
// at a glance. Select picks the chart from the archives' benchmark and
// tables; WritePNG, WriteSVG and WriteTerminal render it.
//
// The charts, by benchmark (Kind):
//
//   - imb (hpcbench coll), KindSize: latency against message size, from
//     every table named by report.IMBTableName that has a "#bytes" label
//     and a "t_avg" or "t" metric (Barrier has no sizes and is left out).
//     The x axis is log 2 and the y axis log 10, so a 0-byte row, which
//     neither can place, is left out. One line per archive, or per archive
//     and benchmark when the archives hold several.
//   - ior, KindSize when the archives hold more than one transfer size
//     (rows of the "ior test K results" tables), else KindPhase: the mean
//     over the iterations of the write and read bandwidth (MiB/s), against
//     transfer size (log 2), one line per archive and access; or per phase
//     as bars, one bar per archive.
//   - mdtest, KindPhase: the mean rate (ops/s) of each phase that ran,
//     from report.MdtestRateTable, one bar per archive.
//   - any benchmark, KindTime: throughput over time, from the archive's
//     time-series tables (below), one line per archive, table and row
//     labels. Asked for with KindTime, or picked for a benchmark that has
//     no chart of its own.
//
// A time-series table is one whose first metric column is named "elapsed"
// and has Unit "s": each row is one interval, elapsed holds the seconds
// from the start of the phase to the end of the interval, and the first
// later metric column whose Better is report.BetterHigher is the
// throughput over that interval (its Unit labels the y axis, "MiB/s" or
// "ops/s"). Rows are in time order. Label columns, when there are any,
// name the phase: rows with the same labels make one line.
//
// Nothing here is linked from gonum.org/v1/plot: its package init parses
// twelve TrueType fonts and pulls in a PDF and a LaTeX renderer, about
// 1 ms of start-up in every process of the one hpcbench binary, every
// rank of every job. The PNG writer rasterises with the standard library
// and draws text with golang.org/x/image's 7x13 bitmap font (static data,
// no init work); the SVG writer writes the XML itself.
package plot
