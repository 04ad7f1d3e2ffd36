package main

import (
	"context"
	"fmt"
	"io"

	"github.com/hpcbench/hpcbench/internal/version"
)

func runHelp(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		usage(stdout)
		return nil
	}
	if _, ok := commands()[args[0]]; !ok {
		return usagef("help: unknown command %q", args[0])
	}
	if args[0] == "help" || args[0] == "version" {
		usage(stdout)
		return nil
	}
	return commands()[args[0]].run(ctx, stdout, stderr, []string{"--help"})
}

func runVersion(_ context.Context, stdout, _ io.Writer, args []string) error {
	if len(args) > 0 {
		return usagef("version: takes no arguments, got %q", args[0])
	}
	fmt.Fprintln(stdout, version.String())
	return nil
}
