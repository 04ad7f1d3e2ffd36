package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/report"
)

// addResultFlags adds the options of a benchmark whose result goes
// through the run pipeline: --format (human, which human names), --json,
// --csv, --output FILE and --archive FILE. formats reports conflicting
// choices after the parse.
func addResultFlags(fs *pflag.FlagSet, formats *cliflag.OneOf, format *report.Format, output, archive *string, human string) {
	fs.Var(formats.Value("--format", format), "format", "output format on stdout: "+human+", json or csv")
	fs.Var(formats.Implied("--json", report.FormatJSON.String(), format), "json", "same as --format json")
	fs.Lookup("json").NoOptDefVal = "true"
	fs.Var(formats.Implied("--csv", report.FormatCSV.String(), format), "csv", "same as --format csv")
	fs.Lookup("csv").NoOptDefVal = "true"
	fs.Var(cliflag.Path{P: output}, "output", "also write the result to `FILE`, as CSV if it ends in .csv, else JSON")
	fs.Var(cliflag.Path{P: archive}, "archive", "write the run as hpcbench's archive (JSON, schema hpcbench/1) to `FILE`")
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints nothing on its own; parseFlags turns its errors into usage errors.
func newFlagSet(name string) *pflag.FlagSet { return cliflag.NewFlagSet(name) }

// errHelp means --help was asked for and the usage has been printed.
var errHelp = errors.New("help requested")

// parseFlags parses args, the command line of the command fs.Name(), whose
// synopsis is usageLine. Long options take one dash or two (see
// singleDashLong); an option helpFor lists as not supported is refused. On
// -h, -help or --help it prints the command's help (writeHelp) to stdout
// and returns errHelp; on a bad option a one-line usage error.
func parseFlags(fs *pflag.FlagSet, args []string, stdout io.Writer, usageLine string) error {
	norm, err := singleDashLong(fs, args, helpFor(fs.Name()).unsupported)
	if err == nil {
		err = fs.Parse(norm)
	}
	if err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			writeHelp(stdout, fs.Name(), usageLine, "Options:\n"+cliflag.Usages(fs))
			return errHelp
		}
		return usagef("%s: %s", fs.Name(), oneLine(strings.TrimSpace(cliflag.FlagError(err, nil).Error())))
	}
	return nil
}

// singleDashLong returns args with fs's long options, where they are spelt
// with one dash as mpiexec's and IMB's users type them (-np 4,
// -bind-to=core, -card-size 128), rewritten to pflag's two dashes. It looks
// at the options only, up to the first operand or "--": a command's own
// arguments (launch's CMD) are left alone.
//
// A one-dash word is a long option when what follows the dash, up to any
// "=", names one of fs's flags longer than one letter (or is "help"); a
// long name wins over reading the word as grouped short options (-np is
// --np, not -n p). Other one-dash words are grouped short options (-vn 4)
// when their first letter is one of fs's; otherwise the word is an error
// naming it (pflag would read -hosts as -h and print the help). The value
// of an option is skipped, so a value that starts with a dash stays as it
// is.
//
// An option in unsupported, in either spelling, is an error naming it and
// saying why.
func singleDashLong(fs *pflag.FlagSet, args []string, unsupported []notSupported) ([]string, error) {
	out := make([]string, len(args))
	copy(out, args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			break // an operand: the options end here
		}
		body := strings.TrimPrefix(a[1:], "-")
		name, _, hasValue := strings.Cut(body, "=")
		if why, ok := refused(name, unsupported); ok {
			return nil, fmt.Errorf("%s: %s", a[:len(a)-len(body)]+name, why)
		}
		long := strings.HasPrefix(a, "--")
		if !long && len(name) > 1 {
			if fs.Lookup(name) != nil || name == "help" {
				out[i] = "-" + a
				long = true
			} else if fs.ShorthandLookup(name[:1]) == nil {
				return nil, fmt.Errorf("unknown option %q", a)
			}
		}
		if long {
			if f := fs.Lookup(name); f != nil && f.NoOptDefVal == "" && !hasValue {
				i++ // skip the value
			}
			continue
		}
		// Grouped short options: the first that takes a value takes the
		// rest of the word, or the next argument when it ends the word.
		for j := 1; j < len(a); j++ {
			f := fs.ShorthandLookup(a[j : j+1])
			if f == nil || f.NoOptDefVal != "" {
				continue
			}
			if j == len(a)-1 {
				i++
			}
			break
		}
	}
	return out, nil
}

// refused returns why the option name (without its dashes) is not
// supported, if unsupported lists it.
func refused(name string, unsupported []notSupported) (string, bool) {
	for _, u := range unsupported {
		for _, n := range u.names {
			if strings.TrimLeft(n, "-") == name {
				return u.why, true
			}
		}
	}
	return "", false
}

// oneLine escapes control characters, so that an error quoting what the user
// typed stays one line.
func oneLine(s string) string { return cliflag.OneLineError{Err: errors.New(s)}.Error() }
