// Package plot draws charts of saved runs (archives in the report.Schema
// layout): one line, or one set of bars, per archive, so that runs compare
// at a glance. Select picks the chart from the archives' benchmark and
// tables; WritePNG, WriteSVG and WriteTerminal render it.
//
// The charts, by benchmark (Kind):
//
//   - imb (hpcbench coll) and the fabric tests (fabric-pingpong, -bw,
//     -rma_bw, -rma_pingpong), KindSize: latency (Options.Metric, by
//     default) or bandwidth against message size, from every size table:
//     one whose only label column is "bytes" (fabric's, one per test) or
//     "#bytes" (IMB's, one per benchmark and process count). Latency is
//     the first of the columns "t_avg", "t" and "usec/xfer" in seconds
//     (else the first lower-is-better column in seconds), drawn in
//     microseconds; bandwidth the first higher-is-better column in a
//     byte rate (MB/s). Fabric bw and rma_bw default to bandwidth. The x
//     axis is log 2 and the y axis log 10, so a 0-byte row, which neither
//     can place, is left out (IMB's Barrier has no sizes). One line per
//     archive and table; imb and fabric archives chart together.
//   - ior, KindSize when the archives hold more than one transfer size
//     (rows of the "ior test K results" tables), else KindPhase: the mean
//     over the iterations of the write and read bandwidth (MiB/s), against
//     transfer size (log 2), one line per archive and access; or per phase
//     as bars, one bar per archive.
//   - mdtest, KindPhase: the mean rate (ops/s) of each phase that ran,
//     from report.MdtestRateTable, one bar per archive.
//   - wireup, KindPhase: the mean time over the ranks of each phase of
//     its "phases" table, in s, ms or us as the longest reads best.
//   - any benchmark, KindTime: throughput over time, from the archive's
//     time-series tables (below), one line per archive, table and row
//     labels. Asked for with KindTime, or picked for a benchmark that has
//     no chart of its own. fabric-allpairs has none: its tables are
//     matrices of host pairs.
//
// Readability: bars whose figures span more than logRatio get a log
// axis, and each bar its figure; a time series' few points far above
// their line (clipOutliers) are drawn on the top edge with their figure
// instead of stretching the axis; log axes label 1, 2 and 5 in each
// decade where there is room, sizes in B, KiB and MiB. Series are named
// by what tells them apart (nameSeries): the file, without the
// directories the files share, the test, access or labels, and not what
// every series shares or the file's name already says.
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
