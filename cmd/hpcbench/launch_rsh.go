package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/internal/launch"
)

// rshFlags are launch's options that say how a job across hosts starts
// its proxies: --rsh, and Hydra's -launcher and -launcher-exec.
type rshFlags struct {
	rsh, launcher, exec string
}

// launcherKinds are --launcher's values: ssh and rsh run the proxies
// through that remote shell, fork on this machine.
var launcherKinds = []string{"ssh", "rsh", "fork"}

// addRshFlags adds --rsh, --launcher and --launcher-exec to fs.
func addRshFlags(fs *pflag.FlagSet) *rshFlags {
	r := &rshFlags{}
	fs.StringVar(&r.rsh, "rsh", strings.Join(launch.DefaultRsh, " "), "the remote shell that starts a proxy on each host of --hosts: `CMD` words, {host} replaced by the host's name, else the name added after them (as ssh host cmd)")
	fs.StringVar(&r.launcher, "launcher", "ssh", "how the proxies of --hosts start (Hydra's -launcher), `KIND`: ssh (through --rsh), rsh (the rsh command), or fork (here, each with HPCBENCH_HOSTNAME set to its host's name: hosts simulated on one machine)")
	fs.StringVar(&r.exec, "launcher-exec", "", "the remote shell `CMD` of --launcher ssh or rsh, as --rsh (Hydra's -launcher-exec)")
	return r
}

// apply sets o.Rsh or o.Fork from the flags, refusing a value out of
// range or two flags that say the same thing differently.
func (r *rshFlags) apply(fs *pflag.FlagSet, o *launch.Options) error {
	if fs.Changed("rsh") && fs.Changed("launcher-exec") {
		return usagef("launch: --rsh and --launcher-exec both name the remote shell: give one")
	}
	cmd, flag := r.rsh, "rsh"
	if fs.Changed("launcher-exec") {
		cmd, flag = r.exec, "launcher-exec"
	}
	switch r.launcher {
	case "ssh":
	case "rsh":
		if !fs.Changed("rsh") && !fs.Changed("launcher-exec") {
			cmd = "rsh"
		}
	case "fork":
		if fs.Changed("rsh") || fs.Changed("launcher-exec") {
			return usagef("launch: --%s has no use with --launcher fork, which starts the proxies on this machine", flag)
		}
		o.Fork = true
		return nil
	default:
		return usagef("launch: --launcher %q: want %s", r.launcher, strings.Join(launcherKinds, ", "))
	}
	o.Rsh = strings.Fields(cmd)
	if len(o.Rsh) == 0 {
		return usagef("launch: --%s %q: want a command", flag, cmd)
	}
	return nil
}
