package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/internal/units"
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
	return pipeline.Main(ctx, &wireup.Benchmark{Options: wa.opts, Args: args, Format: wa.format, Output: wa.output, Archive: wa.archive, Stdout: stdout},
		pipeline.IO{Stdout: stdout, Stderr: stderr})
}

// parseWireup parses and validates wireup's flags.
func parseWireup(args []string, stdout io.Writer) (wireupArgs, error) {
	fs := newFlagSet("wireup")
	var wa wireupArgs
	var formats cliflag.OneOf
	cardSize := int64(wireup.DefaultCardSize)
	fs.Var((*units.SizeFlag)(&cardSize), "card-size", fmt.Sprintf("bytes in each rank's business card (hex-encoded and segmented like MPICH's), 1 to %s", units.FormatFlag(wireup.MaxCardSize)))
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
	if cardSize < 1 || cardSize > wireup.MaxCardSize {
		return wa, usagef("wireup: --card-size %s: want 1 to %s", units.FormatFlag(cardSize), units.FormatFlag(wireup.MaxCardSize))
	}
	wa.opts.CardSize = int(cardSize)
	if err := wa.opts.Validate(); err != nil {
		return wa, usagef("wireup: %v", err)
	}
	return wa, nil
}
