package ioflag

import (
	"fmt"
	"strings"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/cliflag"
)

// FlagError is cliflag.FlagError for a command line that takes the options
// of reg's backends: an unknown long option whose prefix names no backend
// of reg (--mpiio.hints in a build without MPIIO) says so. unknown, if not
// nil, is asked first, as cliflag.FlagError asks it.
func FlagError(err error, reg *aiori.Registry, unknown func(name string, short bool) error) error {
	return cliflag.FlagError(err, func(name string, short bool) error {
		if unknown != nil {
			if err := unknown(name, short); err != nil {
				return err
			}
		}
		if short {
			return nil
		}
		if prefix, _, ok := strings.Cut(name, "."); ok {
			if _, known := reg.Lookup(prefix); !known {
				return fmt.Errorf("unknown option %q: no backend %q in this build (have %s)",
					"--"+name, prefix, strings.Join(reg.Names(), ", "))
			}
		}
		return nil
	})
}
