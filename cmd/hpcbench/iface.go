package main

import (
	"fmt"
	"os"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/internal/cliflag"
)

// ifaceFlag is --iface NAME|ADDR, which the commands that run ranks or
// engines take (command.iface): Hydra's -iface, spelt as the commands
// spell their long options.
const ifaceFlag = "iface"

// ifaceHelp is the help section of --iface.
const ifaceHelp = `Across hosts:
      --iface NAME|ADDR   the interface (or one of this host's addresses) every
                          rank listens on and publishes, and the object store's
                          engines too: what HPCBENCH_IFACE sets (Hydra's -iface);
                          the run record keeps it as iface
`

// splitIface removes --iface from args (also -iface, --iface=V) and, when
// it is given, checks that it names an interface or an address of this
// host and sets fabric.IfaceEnv to it for this process and what it
// starts, as a user who exported the variable would: every transport,
// the engines and the run record read it there. The last one given wins.
// A bad value is a usage error naming the option, before any work.
func splitIface(name string, args []string) ([]string, error) {
	var v string
	given := false
	rest, err := cliflag.SplitValue(args, ifaceFlag, "an interface name or an address of this host", func(s string) error {
		v, given = s, true
		return nil
	})
	if err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	if !given {
		return rest, nil
	}
	if _, err := fabric.LocalIP(v); err != nil {
		return nil, usagef("%s: --%s %q: %v", name, ifaceFlag, v, err)
	}
	if err := os.Setenv(fabric.IfaceEnv, v); err != nil {
		return nil, fmt.Errorf("%s: --%s: set %s: %w", name, ifaceFlag, fabric.IfaceEnv, err)
	}
	return rest, nil
}
