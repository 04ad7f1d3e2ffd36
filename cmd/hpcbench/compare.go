package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/exitcode"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

const compareUsage = "hpcbench compare [--threshold PCT] [--alpha A] [--format human|csv|json] [--width COLS] OLD NEW | OLD... -- NEW..."

// The widths of compare's human view: the view's width when stdout is no
// terminal and --width is not given, and the range --width takes (or 0,
// no limit).
const (
	compareWidth    = 80
	compareMinWidth = 40
	compareMaxWidth = 1000
)

// compareArgs is compare's parsed command line.
type compareArgs struct {
	old, new  []string // archives or directories of archives
	opts      report.CompareOptions
	threshold string // as typed, for the failure message
	format    report.Format
	width     int  // the human view's width, 0 for no limit
	widthSet  bool // --width was given; else the terminal's
}

// runCompare compares the archives of two sets of runs, benchstat-style.
// Every input is read and checked before anything is printed.
func runCompare(_ context.Context, stdout, stderr io.Writer, args []string) error {
	ca, err := parseCompare(args, stdout)
	if err != nil {
		if err == errHelp {
			return nil
		}
		return err
	}
	oldSide, err := readArchives(ca.old)
	if err != nil {
		return &pipeline.ExitError{Code: exitcode.Usage, Msg: "compare: " + err.Error()}
	}
	newSide, err := readArchives(ca.new)
	if err != nil {
		return &pipeline.ExitError{Code: exitcode.Usage, Msg: "compare: " + err.Error()}
	}
	c, err := report.Compare(oldSide, newSide, ca.opts)
	if err != nil {
		return &pipeline.ExitError{Code: exitcode.Usage, Msg: "compare: " + oneLine(err.Error())}
	}
	width := ca.width
	if !ca.widthSet {
		width = terminalWidth(stdout, compareWidth)
	}
	if err := report.WriteCompare(stdout, c, ca.format, width); err != nil {
		return err
	}
	if ca.format != report.FormatText {
		// The human view prints its notes; CSV and JSON keep stdout
		// for data.
		for _, n := range c.Notes() {
			fmt.Fprintf(stderr, "hpcbench: compare: %s\n", n)
		}
	}
	if fails := c.Failures(); len(fails) > 0 {
		missing := 0
		for _, m := range fails {
			if m.Verdict == report.VerdictOldOnly {
				missing++
			}
		}
		msg := fmt.Sprintf("compare: %d metric(s) regressed significantly (p < %s) by more than %s",
			len(fails)-missing, strconv.FormatFloat(ca.opts.Alpha, 'g', -1, 64), ca.threshold)
		if missing > 0 {
			msg += fmt.Sprintf("; %d metric(s) of OLD are missing from NEW", missing)
		}
		return &pipeline.ExitError{Code: exitcode.Failed, Msg: msg}
	}
	return nil
}

// parseCompare parses and validates compare's flags and operands.
func parseCompare(args []string, stdout io.Writer) (compareArgs, error) {
	fs := newFlagSet("compare")
	var ca compareArgs
	threshold := fs.String("threshold", "5%", "a significant regression of the median smaller than `PCT` (5% or 5) does not fail")
	fs.Float64Var(&ca.opts.Alpha, "alpha", 0.05, "significance level of the Mann-Whitney U test, in (0, 1)")
	var formats cliflag.OneOf
	fs.Var(formats.Value("--format", &ca.format), "format", "output format on stdout: human, csv or json")
	width := fs.String("width", "", fmt.Sprintf("fit the human view in `COLS` columns, %d to %d, or 0 for no limit "+
		"(default: the terminal's width, or %d when stdout is not a terminal)", compareMinWidth, compareMaxWidth, compareWidth))
	if err := parseFlags(fs, args, stdout, compareUsage); err != nil {
		return ca, err
	}
	if err := formats.Err(); err != nil {
		return ca, usagef("compare: %v", err)
	}
	if ca.widthSet = fs.Changed("width"); ca.widthSet {
		w, err := strconv.Atoi(strings.TrimSpace(*width))
		if err != nil || w != 0 && (w < compareMinWidth || w > compareMaxWidth) {
			return ca, usagef("compare: --width %q: want 0 (no limit) or %d to %d columns", *width, compareMinWidth, compareMaxWidth)
		}
		if ca.format != report.FormatText {
			return ca, usagef("compare: --width shapes the human view only, not --format %v", ca.format)
		}
		ca.width = w
	}
	t, err := parsePercent(*threshold)
	if err != nil {
		return ca, usagef("compare: --threshold %q: %v", *threshold, err)
	}
	ca.opts.Threshold, ca.threshold = t, *threshold
	if !(ca.opts.Alpha > 0 && ca.opts.Alpha < 1) {
		return ca, usagef("compare: --alpha %v: want a number in (0, 1)", ca.opts.Alpha)
	}
	ops := fs.Args()
	if dash := fs.ArgsLenAtDash(); dash >= 0 {
		ca.old, ca.new = ops[:dash], ops[dash:]
		if len(ca.old) == 0 || len(ca.new) == 0 {
			return ca, usagef("compare: want OLD... -- NEW... with at least one archive on each side")
		}
		return ca, nil
	}
	if len(ops) != 2 {
		return ca, usagef("compare: want two operands, OLD and NEW (or OLD... -- NEW...), got %d", len(ops))
	}
	ca.old, ca.new = ops[:1], ops[1:]
	return ca, nil
}

// terminalWidth returns the columns of the terminal w is, or def when w is
// not a terminal.
func terminalWidth(w io.Writer, def int) int {
	if f, ok := w.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	return def
}

// parsePercent reads a percentage, "5%" or "5", as a fraction.
func parsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("want a percentage >= 0 such as 5%%")
	}
	return v / 100, nil
}

// readArchives reads every archive named by paths: a file, or a directory
// whose *.json files are read in name order. The first unreadable one is
// an error naming it.
func readArchives(paths []string) ([]report.CompareInput, error) {
	var out []report.CompareInput
	for _, p := range paths {
		files := []string{p}
		if st, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s: %w", p, unwrapPath(err))
		} else if st.IsDir() {
			files, err = filepath.Glob(filepath.Join(p, "*.json"))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("%s: no *.json archives in this directory", p)
			}
			sort.Strings(files)
		}
		for _, f := range files {
			r, err := readArchive(f)
			if err != nil {
				return nil, err
			}
			if why := r.Run.Env[pipeline.FailedEnv]; why != "" {
				// Its figures are those of a run that failed
				// verification or operations: no sample of either side.
				return nil, fmt.Errorf("%s: run.env.%s: the run failed (%s): leave it out", f, pipeline.FailedEnv, oneLine(why))
			}
			out = append(out, report.CompareInput{File: f, Result: r})
		}
	}
	return out, nil
}
