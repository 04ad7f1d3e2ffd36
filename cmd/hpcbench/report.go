package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/exitcode"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

const reportUsage = "hpcbench report [--format NAME] FILE..."

// runReport is `hpcbench report FILE...`: each saved run rendered in turn,
// in the view --format names or else in the one its benchmark prints by
// default. Every file is read and rendered before anything is printed, so
// bad input prints nothing.
func runReport(_ context.Context, stdout, _ io.Writer, args []string) error {
	fset := newFlagSet("report")
	format := fset.String("format", "", "the view to render (default: the one the benchmark prints by default): "+
		strings.Join(report.ViewNames(), ", "))
	var formats cliflag.OneOf
	f := fset.Lookup("format")
	f.Value = formats.Value("--format", f.Value)
	if err := parseFlags(fset, args, stdout, reportUsage); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if err := formats.Err(); err != nil {
		return usagef("report: %v", err)
	}
	var unknown *report.UnknownViewError
	if _, err := report.LookupView("", *format); errors.As(err, &unknown) {
		return usagef("report: --format: %v", err)
	}
	if fset.NArg() == 0 {
		return usagef("report: want one or more archives (FILE...), got none")
	}
	var out bytes.Buffer
	for _, path := range fset.Args() {
		if err := renderArchive(&out, path, *format); err != nil {
			return &pipeline.ExitError{Code: exitcode.Usage, Msg: "report: " + oneLine(err.Error())}
		}
	}
	_, err := out.WriteTo(stdout)
	return err
}

// renderArchive reads the archive at path and appends its view format to
// out; on error out is left as it was.
func renderArchive(out *bytes.Buffer, path, format string) error {
	r, err := readArchive(path)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := report.Render(&b, r, format); err != nil {
		return fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "report: "))
	}
	out.Write(b.Bytes())
	return nil
}
