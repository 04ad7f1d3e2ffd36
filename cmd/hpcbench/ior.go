package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/dfs"
	"github.com/hpcbench/hpcbench/aiori/dummy"
	"github.com/hpcbench/hpcbench/aiori/mmap"
	"github.com/hpcbench/hpcbench/aiori/posix"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/ior"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
)

// backends is the registry of I/O backends this build offers, the default
// first, as IOR's default is its first compiled-in backend.
func backends() (*aiori.Registry, error) {
	return aiori.NewRegistry(posix.Entry(), mmap.Entry(), dummy.Entry(), dfs.Entry())
}

// runIOR is `hpcbench ior`: IOR's command line, measurement and output.
func runIOR(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	reg, err := backends()
	if err != nil {
		return fmt.Errorf("ior: %w", err)
	}
	var pt cliflag.PhaseTimeout
	iorArgs, err := cliflag.SplitPhaseTimeout(args, &pt)
	if err != nil {
		return usagef("ior: %v", err)
	}
	cfg, err := config.Parse(iorArgs, reg)
	if err != nil {
		if errors.Is(err, config.ErrHelp) {
			writeHelp(stdout, "ior", "hpcbench ior [-a API] [-b SIZE] [-t SIZE] [-s N] [-F] [-w] [-r] [-W] [-R] [-o FILE] [OPTION...]",
				config.Usage(reg)+"\n"+cliflag.PhaseTimeoutHelp(true))
			return nil
		}
		return usagef("ior: %v", err)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "WARNING: "+w)
	}
	return pipeline.Main(ctx, &ior.Benchmark{Tests: cfg.Tests, Args: args, PhaseTimeout: pt, Stdout: stdout, Stderr: stderr},
		pipeline.IO{Stdout: stdout, Stderr: stderr})
}
