package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/internal/wireup"
	"github.com/hpcbench/hpcbench/report"
)

const wireupUsage = "hpcbench wireup [--card-size BYTES] [--pattern all|ring] [--pipeline=false] [--timeout D] [--format human|json|csv | --json | --csv] [--output FILE] [--archive FILE]"

// wireupArgs is what wireup's command line asks for.
type wireupArgs struct {
	opts    wireup.Options
	format  report.Format
	output  string
	archive string
}

func runWireup(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	wa, err := parseWireup(args, stdout)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	o, format, output := wa.opts, wa.format, wa.output
	// wireup measures the bootstrap itself: it connects to PMI on its
	// own, and the ranks send their host names to rank 0 with their
	// times.
	return pipeline.Main(ctx, pipeline.Spec{
		Name: "wireup", Args: args, NoJob: true, Stdout: stdout, Stderr: stderr, Archive: wa.archive, ArchiveFlag: "--archive",
		Outputs: optionalOutput("--output", output),
		Engine: func(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
			o.Phase = e.Phase
			o.Host = e.Record.RankHosts[0]
			start := time.Now()
			out, err := wireup.Run(ctx, o)
			if err != nil || out.Rank != 0 {
				return nil, err
			}
			base := e.Record.BaseRun()
			return wireup.Result(out, o, wireup.Meta{Run: base, Start: start, End: time.Now()}), nil
		},
		Render: func(res *report.Result) error {
			if output != "" {
				f := report.FormatJSON
				if len(output) > 4 && output[len(output)-4:] == ".csv" {
					f = report.FormatCSV
				}
				if err := writeFileAtomic(output, func(w io.Writer) error { return report.Write(w, res, f) }); err != nil {
					return err
				}
			}
			return report.Write(stdout, res, format)
		},
	})
}

// parseWireup parses and validates wireup's flags.
func parseWireup(args []string, stdout io.Writer) (wireupArgs, error) {
	fs := newFlagSet("wireup")
	var wa wireupArgs
	var formats cliflag.OneOf
	fs.IntVar(&wa.opts.CardSize, "card-size", wireup.DefaultCardSize, "bytes in each rank's business card (hex-encoded and segmented like MPICH's)")
	fs.StringVar(&wa.opts.Pattern, "pattern", wireup.PatternAll, "get phase: all (each rank gets all N cards) or ring (each gets its successor's)")
	fs.BoolVar(&wa.opts.Pipeline, "pipeline", true, "under hpcbench launch, send the get phase's requests 64 at a time instead of one per round trip (--pipeline=false: as MPICH's clients do)")
	fs.DurationVar(&wa.opts.Timeout, "timeout", wireup.DefaultTimeout, "bound on every PMI wait and on collecting the results")
	addResultFlags(fs, &formats, &wa.format, &wa.output, &wa.archive, "human")
	if err := parseFlags(fs, args, stdout, wireupUsage); err != nil {
		return wa, err
	}
	if fs.NArg() > 0 {
		return wa, usagef("wireup: unexpected argument %q", fs.Arg(0))
	}
	if err := formats.Err(); err != nil {
		return wa, usagef("wireup: %v", err)
	}
	if err := wa.opts.Validate(); err != nil {
		return wa, usagef("wireup: %v", err)
	}
	return wa, nil
}

// optionalOutput is the pipeline's list of one output file named by
// flag, or none when path is empty.
func optionalOutput(flag, path string) []pipeline.Output {
	if path == "" {
		return nil
	}
	return []pipeline.Output{{Flag: flag, Path: path}}
}

// writeFileAtomic writes through a temporary file in the same directory and
// renames it into place, so a failed run never leaves a half-written file
// (pipeline.WriteFile).
func writeFileAtomic(path string, write func(io.Writer) error) error {
	return pipeline.WriteFile(path, write)
}
