package cliflag

import (
	"io"

	"github.com/spf13/pflag"
)

// NewFlagSet returns a flag set for a command line: errors returned, not
// printed, and flags kept in the order they are defined.
func NewFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	return fs
}
