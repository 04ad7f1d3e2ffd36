package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
)

// The headings of mdtest's summary tables, verbatim.
const (
	mdtestHeading      = "   Operation                     Max            Min           Mean        Std Dev"
	mdtestRule         = "   ---------                     ---            ---           ----        -------"
	mdtestRankHeading  = "   Operation     per Rank: Max            Min           Mean      per Iteration: Max            Min           Mean        Std Dev"
	mdtestRankRule     = "   ---------               ---            ---           ----                      ---            ---           ----        -------"
	mdtestRateTitle    = "rate (in ops/sec)"
	mdtestTimeTitle    = "time (in ms/op)" // mdtest's label; the figures are seconds, as mdtest's
	mdtestBannerPrefix = "mdtest-"
)

// WriteMdtest writes r, built by the mdtest conventions (see
// MdtestHeaderTable), in mdtest's human-readable layout, line for line as
// mdtest 4 prints it, so that scripts which parse mdtest's output read
// hpcbench's:
//
//   - "-- started at MM/DD/YYYY HH:MM:SS --" and a blank line (when
//     Run.Start is set);
//   - "mdtest-hpcbench-0.1.0 was launched with N total task(s) on M
//     node(s)": the program name is one word that starts with "mdtest-" as
//     mdtest's "mdtest-4.1.0+dev" does, so the words after it keep their
//     positions, but it names hpcbench and its release (see WriteIOR);
//   - "Command line used: " with the program, then each argument
//     single-quoted as mdtest prints them ("hpcbench mdtest" counts as the
//     program); a single quote inside an argument is escaped as a POSIX
//     shell needs it, so the line can be pasted back (mdtest prints it
//     bare);
//   - each "WARNING: " row, "Nodemap: ", "Path" and "FS" lines as
//     20-character keys, and "N tasks, M files/directories";
//   - "ERROR: N operations failed in PHASE; first: OP PATH: ERROR" for
//     each row of the errors table (mdtest has no such line: it aborts on
//     most failures);
//   - "SUMMARY rate (in ops/sec): (of K iterations)", or with -P that and
//     "SUMMARY time (in ms/op)", or with -Z the time table alone, each
//     after a blank line, with mdtest's column widths (%14.3f), its
//     "per Rank" columns when --showRankStatistics was given (where mdtest
//     shifts the tree rows 4 characters right of the others), "0.000" for
//     a figure not measured, and no Directory read row, as mdtest;
//   - "-- finished at ... --" (when Run.End is set) and a blank line.
//
// The time table keeps mdtest's label "(in ms/op)" so that parsers which
// look for it still match, and holds what mdtest's holds: each phase's
// duration in seconds. WriteMdtestJSON and WriteMdtestCSV name the unit
// correctly. Anything the layout needs that r lacks is an error naming the
// table, row or column, and nothing is written.
func WriteMdtest(w io.Writer, r *Result) error {
	return WriteMdtestSweep(w, []*Result{r})
}

// WriteMdtestSweep writes the Results of an mdtest -f/-l/-s sweep, one per
// number of tasks in order, as mdtest prints a sweep: the lines above "N
// tasks, M files" of the first (the start date, the banner, the command
// line, the warnings, Nodemap, Path and FS), then for each Result its "N
// tasks, M files" line, errors and SUMMARY tables, then the finish date of
// the last. One Result is WriteMdtest's layout. Anything the layout needs
// that a Result lacks is an error naming the table, row or column, and
// nothing is written.
func WriteMdtestSweep(w io.Writer, rs []*Result) error {
	if len(rs) == 0 {
		return fmt.Errorf("report: mdtest sweep: no results")
	}
	runs := make([]*mdtestRun, len(rs))
	for i, r := range rs {
		run, err := decodeMdtest(r, mdtestNeeds{header: true, summary: true})
		if err == nil && run.header.allProcs {
			run, err = decodeMdtest(r, mdtestNeeds{header: true, summary: true, ranks: true})
		}
		if err != nil {
			if len(rs) > 1 {
				return fmt.Errorf("report: mdtest sweep, run %d of %d: %w", i+1, len(rs), err)
			}
			return err
		}
		runs[i] = run
	}
	var b bytes.Buffer
	first := runs[0]
	h := &first.header
	if !first.run.Start.IsZero() {
		fmt.Fprintf(&b, "-- started at %s --\n\n", MdtestTime(first.run.Start))
	}
	fmt.Fprintf(&b, "%s was launched with %d total task(s) on %d node(s)\n",
		mdtestBannerPrefix+iorBanner(first.run.Version), first.run.Ranks, first.run.Hosts)
	fmt.Fprintf(&b, "Command line used: %s\n", mdtestCommandLine(first.run.Command))
	for _, warning := range h.warnings {
		fmt.Fprintf(&b, "WARNING: %s\n", printable(warning))
	}
	if h.nodemap != "" {
		fmt.Fprintf(&b, "Nodemap: %s\n", printable(h.nodemap))
	}
	writeKeyValue(&b, MdtestPath, h.path)
	if h.hasFS {
		writeKeyValue(&b, "FS", fmt.Sprintf("%s   Used FS: %s   Inodes: %s   Used Inodes: %s",
			h.capacity, h.usedCapacity, h.inodes, h.usedInodes))
	}
	for _, run := range runs {
		writeMdtestTasks(&b, run)
	}
	if last := runs[len(runs)-1]; !last.run.End.IsZero() {
		fmt.Fprintf(&b, "-- finished at %s --\n", MdtestTime(last.run.End))
	}
	writeNotes(&b, rs...)
	b.WriteByte('\n')
	if _, err := b.WriteTo(w); err != nil {
		return fmt.Errorf("report: writing mdtest output: %w", err)
	}
	return nil
}

// writeMdtestTasks writes what mdtest prints for one number of tasks: "N
// tasks, M files", the errors, the SUMMARY tables (each after the
// per-process figures with --print-all-procs).
func writeMdtestTasks(b *bytes.Buffer, run *mdtestRun) {
	h := &run.header
	fmt.Fprintf(b, "%d tasks, %d %s\n", h.tasks, h.items, h.itemKind)
	for _, e := range run.errors {
		b.WriteString(mdtestErrorLine(e) + "\n")
	}
	rate := func() {
		writeMdtestAllProcs(b, run, false)
		writeMdtestSummary(b, mdtestRateTitle, h, run.rate)
	}
	tm := func() {
		writeMdtestAllProcs(b, run, true)
		writeMdtestSummary(b, mdtestTimeTitle, h, run.time)
	}
	switch {
	case h.rateAndTime:
		rate()
		tm()
	case h.timeOnly:
		tm()
	default:
		rate()
	}
}

// mdtestCommandLine returns argv as mdtest's "Command line used:" prints
// it: the program bare, each argument in single quotes.
func mdtestCommandLine(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	n := 1
	if len(argv) > 1 && filepath.Base(argv[0]) == "hpcbench" && argv[1] == "mdtest" {
		n = 2
	}
	parts := make([]string, 0, len(argv)-n+1)
	parts = append(parts, printable(strings.Join(argv[:n], " ")))
	for _, a := range argv[n:] {
		parts = append(parts, "'"+strings.ReplaceAll(printable(a), "'", `'\''`)+"'")
	}
	return strings.Join(parts, " ")
}

// mdtestErrorLine returns the human line for one row of the errors table:
// "ERROR: 3 operations failed in File stat; first: stat /d/f: no such file
// or directory".
func mdtestErrorLine(e mdtestErrorRow) string {
	var count string
	switch {
	case math.IsNaN(e.count):
		count = "operations"
	case e.count == 1:
		count = "1 operation"
	default:
		count = fmt.Sprintf("%d operations", int64(e.count))
	}
	line := fmt.Sprintf("ERROR: %s failed in %s", count, printable(e.phase))
	var first string
	if e.op != "" {
		first = e.op
	}
	if e.path != "" {
		first = strings.TrimSpace(first + " " + e.path)
	}
	if e.err != "" {
		if first != "" {
			first += ": "
		}
		first += e.err
	}
	if first != "" {
		line += "; first: " + printable(first)
	}
	return line
}

// writeMdtestAllProcs writes, with --print-all-procs, what mdtest's
// summarize_results prints above a SUMMARY table: "Per process result
// (rate):" (or time), then for each iteration "iteration: I" and a line
// "Test OP r0,r1,..." per phase with each rank's figure before the
// barrier in C's %e, 0 where there is none. The phases are all of
// MdtestOperations, from File creation with -F alone, as mdtest's loop
// runs; the tree rows hold rank 0's figures, where mdtest, which keeps
// none per rank for the tree, prints 0.
func writeMdtestAllProcs(b *bytes.Buffer, run *mdtestRun, time bool) {
	h := &run.header
	if !h.allProcs {
		return
	}
	ops := MdtestOperations()
	if h.itemKind == MdtestFiles {
		ops = ops[mdtestOpIndex(MdtestFileCreate):]
	}
	type key struct {
		iter, rank int64
		op         string
	}
	figure := map[key]float64{}
	for _, k := range run.ranks {
		v := k.rate
		if time {
			v = k.time
		}
		if k.rank >= 0 && !math.IsNaN(v) {
			figure[key{k.iter, k.rank, k.op}] = v
		}
	}
	what := "rate"
	if time {
		what = "time"
	}
	fmt.Fprintf(b, "\nPer process result (%s):\n", what)
	for it := range h.iterations {
		fmt.Fprintf(b, "iteration: %d\n", it)
		for _, op := range ops {
			b.WriteString("Test " + op)
			for k := range h.tasks {
				sep := byte(',')
				if k == 0 {
					sep = ' '
				}
				b.WriteByte(sep)
				fmt.Fprintf(b, "%e", figure[key{it, k, op}])
			}
			b.WriteByte('\n')
		}
	}
}

// writeMdtestSummary writes one "SUMMARY" block as mdtest's
// summarize_results does.
func writeMdtestSummary(b *bytes.Buffer, title string, h *mdtestHeader, rows []mdtestSummaryRow) {
	fmt.Fprintf(b, "\nSUMMARY %s: (of %d iterations)\n", title, h.iterations)
	if h.rankStats {
		b.WriteString(mdtestRankHeading + "\n" + mdtestRankRule + "\n")
	} else {
		b.WriteString(mdtestHeading + "\n" + mdtestRule + "\n")
	}
	for _, s := range rows {
		if s.op == MdtestDirRead {
			continue // measured, never printed, as in mdtest
		}
		var v [7]float64
		for i, x := range s.m {
			if !math.IsNaN(x) {
				v[i] = x // a figure not measured prints as mdtest's 0.000
			}
		}
		switch {
		case !h.rankStats:
			fmt.Fprintf(b, "   %-22s %14.3f %14.3f %14.3f %14.3f\n", s.op, v[0], v[1], v[2], v[3])
		case s.op == MdtestTreeCreate || s.op == MdtestTreeRemove:
			fmt.Fprintf(b, "   %-22s %14.3f %14.3f %14.3f     %14.3f %14.3f %14.3f %14.3f\n",
				s.op, v[4], v[5], v[6], v[0], v[1], v[2], v[3])
		default:
			fmt.Fprintf(b, "   %-18s %14.3f %14.3f %14.3f         %14.3f %14.3f %14.3f %14.3f\n",
				s.op, v[4], v[5], v[6], v[0], v[1], v[2], v[3])
		}
	}
}
