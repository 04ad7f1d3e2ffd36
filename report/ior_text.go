package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
)

// The headings of IOR's tables, verbatim.
const (
	iorResultsHeading = "access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter"
	iorResultsRule    = "------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   --------   ----"
	iorSummaryHeading = "Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev    Mean(s)" +
		" Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum"
)

// mebibytesPerMB converts MiB/s to MB/s (10^6 bytes), for "Max Write".
const mebibytesPerMB = 1 << 20 / 1e6

// WriteIOR writes r, built by the IOR conventions (see IORTableName), in
// IOR's human-readable layout, line for line as IOR 4 prints it, so that
// scripts which parse IOR's output read hpcbench's:
//
//   - a banner naming hpcbench, "hpcbench-0.1.0 IOR: MPI Coordinated Test
//     of Parallel I/O" (IOR's is "IOR-4.1.0+dev: MPI Coordinated Test of
//     Parallel I/O");
//   - "Began", "Command line", "Machine" as 20-character keys, then per
//     test "TestID", "StartTime", "Path", "FS" (when the capacity is
//     known), "Options: " and the options, "Results: " and IOR's table:
//     numbers left-justified in 10 characters with 6 decimals below 1, 2
//     below 3600 and none above, "-" for a negative value or one not
//     measured, and the trailing spaces IOR leaves after the iteration;
//   - at verbosity 1 or more (the IORParamVerbose parameter) a "remove" row
//     after each iteration whose files were removed, and "Max Write:" and
//     "Max Read:" lines after the table;
//   - "WARNING: Incorrect data on write (N errors found)." after the write
//     row whose -W check found errors, and the same "on read" before the
//     read row whose -R check did, where IOR prints them;
//   - "Summary of all tests:" and IOR's long summary, NA for stonewalling
//     figures not measured, then "Finished".
//
// Dates are C's asctime layout in the times' own location. Anything the
// layout needs that r lacks is an error naming the table or column, and
// nothing is written.
func WriteIOR(w io.Writer, r *Result) error {
	return writeIOR(w, r, true)
}

// WriteIORProgress writes the part of WriteIOR's layout that a run still
// in progress has: the header, every test so far with the rows of the
// phases done, but not the last test's "Max Write"/"Max Read" lines, the
// summary or "Finished". As long as the engine only adds rows and tests,
// what it writes is a prefix of what it writes next, and of WriteIOR's
// output for the finished run, so a command can print IOR's report as the
// run goes, as IOR does, and the rest at the end. r needs no summary
// table.
func WriteIORProgress(w io.Writer, r *Result) error {
	return writeIOR(w, r, false)
}

// writeIOR is WriteIOR, or WriteIORProgress when final is false.
func writeIOR(w io.Writer, r *Result, final bool) error {
	run, err := decodeIOR(r, iorNeeds{kinds: []string{IORHeader, IOROptions, IORParameters, IORResults}, summary: final})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s IOR: MPI Coordinated Test of Parallel I/O\n", iorBanner(run.run.Version))
	if !run.run.Start.IsZero() {
		writeKeyValue(&b, "Began", IORTime(run.run.Start))
	}
	writeKeyValue(&b, "Command line", strings.Join(run.run.Command, " "))
	if m, ok := run.run.Env[EnvMachine]; ok {
		writeKeyValue(&b, "Machine", m)
	}
	for i := range run.tests {
		writeIORTest(&b, &run.tests[i], final || i < len(run.tests)-1)
	}
	if !final {
		_, err := b.WriteTo(w)
		if err != nil {
			return fmt.Errorf("report: writing IOR output: %w", err)
		}
		return nil
	}
	b.WriteString("\nSummary of all tests:\n")
	b.WriteString(iorSummaryHeading + "\n")
	for i := range run.summary {
		writeIORSummaryRow(&b, &run.summary[i])
	}
	if !run.run.End.IsZero() {
		writeKeyValue(&b, "Finished", IORTime(run.run.End))
	}
	writeNotes(&b, r)
	if _, err := b.WriteTo(w); err != nil {
		return fmt.Errorf("report: writing IOR output: %w", err)
	}
	return nil
}

// iorBanner returns the program name of the banner line: "hpcbench-" and
// the release, the first word of version after a leading "hpcbench "
// ("hpcbench 0.1.0 commit 0123abcd" gives "hpcbench-0.1.0"), or plain
// "hpcbench" without a version.
func iorBanner(version string) string {
	f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(version), "hpcbench "))
	if len(f) == 0 {
		return "hpcbench"
	}
	return "hpcbench-" + printable(f[0])
}

// writeIORTest writes one test: its header lines, options and results,
// and, when done is set, the lines that follow its last row.
func writeIORTest(b *bytes.Buffer, test *iorTest, done bool) {
	writeKeyValue(b, IORTestID, test.header[IORTestID])
	writeKeyValue(b, IORStartTime, test.startTime())
	writeKeyValue(b, IORPath, test.header[IORPath])
	if c, ok := test.header[IORCapacity]; ok {
		writeKeyValue(b, "FS", fmt.Sprintf("%s   Used FS: %s   Inodes: %s   Used Inodes: %s",
			c, test.header[IORUsedCapacity], test.header[IORInodes], test.header[IORUsedInodes]))
	}
	b.WriteString("\nOptions: \n")
	for _, o := range test.options {
		writeKeyValue(b, o.name, o.value)
	}
	b.WriteString("\nResults: \n\n")
	b.WriteString(iorResultsHeading + "\n")
	b.WriteString(iorResultsRule + "\n")
	for _, p := range test.results {
		switch {
		case p.access == IORRemove && test.verbose < 1:
			continue
		case p.access == IORRead && p.errors > 0:
			writeIORWarning(b, p)
		}
		writeIORRow(b, p)
		if p.access == IORWrite && p.errors > 0 {
			writeIORWarning(b, p)
		}
	}
	if done && test.verbose >= 1 {
		if bw, ok := test.maxBW(IORWrite); ok {
			fmt.Fprintf(b, "Max Write: %.2f MiB/sec (%.2f MB/sec)\n", bw, bw*mebibytesPerMB)
		}
		if bw, ok := test.maxBW(IORRead); ok {
			fmt.Fprintf(b, "Max Read:  %.2f MiB/sec (%.2f MB/sec)\n", bw, bw*mebibytesPerMB)
		}
	}
}

// writeIORWarning writes IOR's line for a verification that found errors.
func writeIORWarning(b *bytes.Buffer, p iorPhaseRow) {
	fmt.Fprintf(b, "WARNING: Incorrect data on %s (%d errors found).\n", printable(p.access), int64(p.errors))
}

// writeIORRow writes one row of the Results table as IOR's
// PrintReducedResult and PrintRemoveTiming do.
func writeIORRow(b *bytes.Buffer, p iorPhaseRow) {
	fmt.Fprintf(b, "%-10s", printable(p.access))
	ppDouble(b, p.bw, " ")
	ppDouble(b, p.iops, " ")
	ppDouble(b, p.latency, "  ")
	ppDouble(b, p.blockKiB, " ")
	ppDouble(b, p.xferKiB, " ")
	ppDouble(b, p.open, " ")
	ppDouble(b, p.wrrd, " ")
	ppDouble(b, p.close, " ")
	ppDouble(b, p.total, " ")
	fmt.Fprintf(b, "%-4d\n", p.iter)
}

// ppDouble writes v as IOR's PPDouble does: left-justified in 10
// characters, 6 decimals below 1, 2 below 3600, none from there, then
// sep. A negative value prints IOR's "   -      "; a value not measured
// prints "-" left-justified, as IOR's remove rows do.
func ppDouble(b *bytes.Buffer, v float64, sep string) {
	switch {
	case math.IsNaN(v):
		fmt.Fprintf(b, "%-10s%s", "-", sep)
	case v < 0:
		fmt.Fprintf(b, "   -      %s", sep)
	default:
		prec := 0
		if v < 1 {
			prec = 6
		} else if v < 3600 {
			prec = 2
		}
		fmt.Fprintf(b, "%-10.*f%s", prec, v, sep)
	}
}

// writeIORSummaryRow writes one row of IOR's long summary, with IOR's
// field widths (the stonewalling fields are narrower than their headings,
// as in IOR).
func writeIORSummaryRow(b *bytes.Buffer, s *iorSummaryRow) {
	num := func(width, prec int, v float64) {
		if math.IsNaN(v) {
			fmt.Fprintf(b, "%*s ", width, "NA")
			return
		}
		fmt.Fprintf(b, "%*.*f ", width, prec, v)
	}
	fmt.Fprintf(b, "%-9s ", printable(s.operation))
	for _, v := range s.m[:8] {
		num(10, 2, v)
	}
	num(10, 5, s.m[8])  // Mean(s)
	num(10, 2, s.m[9])  // Stonewall(s)
	num(13, 2, s.m[10]) // Stonewall(MiB)
	n := s.ints
	fmt.Fprintf(b, "%5d %6d %3d %4d %3d %5d %8d %9d %4d %6d %8d %8d ",
		n[iorSumTest], n[iorSumTasks], n[iorSumTPN], n[iorSumReps], n[iorSumFPP], n[iorSumReord],
		n[iorSumReordOff], n[iorSumReordRand], n[iorSumSeed], n[iorSumSegments], n[iorSumBlock], n[iorSumXfer])
	num(9, 1, s.m[11]) // aggs(MiB)
	fmt.Fprintf(b, "%3s %6d\n", printable(s.api), n[iorSumRefNum])
}
