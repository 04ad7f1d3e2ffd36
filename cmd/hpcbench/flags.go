package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints nothing on its own; parseFlags turns its errors into usage errors.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	return fs
}

// errHelp means --help was asked for and the usage has been printed.
var errHelp = errors.New("help requested")

// parseFlags parses args; on --help it prints usage and the flag defaults to
// stdout and returns errHelp, on a bad flag a one-line usage error.
func parseFlags(fs *pflag.FlagSet, args []string, stdout io.Writer, usageLine string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: %s\n\nflags:\n%s", usageLine, fs.FlagUsages())
			return errHelp
		}
		return usagef("%s: %s", fs.Name(), oneLine(strings.TrimSpace(err.Error())))
	}
	return nil
}

// oneLine escapes control characters, so that an error quoting what the user
// typed stays one line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}
