package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/mdtest"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
)

// runMdtest is `hpcbench mdtest`: mdtest's command line, phases (for each
// task count of a -f/-l/-s sweep) and SUMMARY tables, plus JSON and CSV
// summaries.
func runMdtest(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	reg, err := backends()
	if err != nil {
		return fmt.Errorf("mdtest: %w", err)
	}
	var pt cliflag.PhaseTimeout
	mdArgs, err := cliflag.SplitPhaseTimeout(args, &pt)
	if err != nil {
		return usagef("mdtest: %v", err)
	}
	o, err := config.Parse(mdArgs, reg)
	if err != nil {
		if errors.Is(err, config.ErrHelp) {
			writeHelp(stdout, "mdtest", "hpcbench mdtest [-a API] [-n N | -I N -z DEPTH -b BRANCH] [-d DIR] [-F|-D] [-u] [-i N] [OPTION...]",
				config.Usage(reg)+"\n"+cliflag.PhaseTimeoutHelp(true))
			return nil
		}
		return usagef("mdtest: %v", err)
	}
	return pipeline.Main(ctx, &mdtest.Benchmark{Options: o, Args: args, PhaseTimeout: pt, Stdout: stdout},
		pipeline.IO{Stdout: stdout, Stderr: stderr})
}
