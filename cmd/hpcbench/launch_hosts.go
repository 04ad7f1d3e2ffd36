package main

import (
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/launch"
	"github.com/hpcbench/hpcbench/internal/launch/hostlist"
)

// hostFlags are launch's options that place the ranks on hosts.
type hostFlags struct {
	lists []hostSource // the --hosts and --hostfile given, in order
	ppn   int
	rr    bool
}

// hostSource is one host list given on the command line: the flag (its
// long name) and its value.
type hostSource struct{ flag, value string }

// hostListValue is the value of one spelling of --hosts or --hostfile:
// each Set records a list, so that two are refused (as Hydra refuses a
// "duplicate host file or host list setting") rather than one silently
// replacing the other.
type hostListValue struct {
	h    *hostFlags
	flag string
}

func (v hostListValue) String() string { return "" }
func (v hostListValue) Type() string   { return "string" }
func (v hostListValue) Set(s string) error {
	v.h.lists = append(v.h.lists, hostSource{v.flag, s})
	return nil
}

// addHostFlags adds --hosts, --hostfile, --ppn and --rr to fs, with
// Hydra's spellings: -hosts, -host and -hostlist; -f, -hostfile and
// -machinefile; -ppn; -rr (Intel MPI's). The one-dash long spellings are
// singleDashLong's.
func addHostFlags(fs *pflag.FlagSet) *hostFlags {
	h := &hostFlags{}
	fs.Var(hostListValue{h, "hosts"}, "hosts", "run the ranks on these `HOSTS`, comma-separated, each HOST or HOST:N (N slots; 1 when left out), as Hydra's -hosts (-host, -hostlist)")
	fs.VarP(hostListValue{h, "hostfile"}, "hostfile", "f", "run the ranks on the hosts listed in `FILE`, one a line: HOST, HOST:N (Hydra) or HOST slots=N (Open MPI), # comments (Hydra's -f, -machinefile)")
	for _, a := range [][2]string{{"host", "hosts"}, {"hostlist", "hosts"}, {"machinefile", "hostfile"}} {
		fs.Var(hostListValue{h, a[1]}, a[0], "same as --"+a[1])
		_ = fs.MarkHidden(a[0]) // the name was just added
	}
	fs.IntVar(&h.ppn, "ppn", 0, "place this many consecutive ranks on each host in turn, whatever its slots (Hydra's -ppn); default: each host's slots")
	cliflag.SetRange(fs, "ppn", "1 to "+strconv.Itoa(hostlist.MaxSlots))
	fs.BoolVar(&h.rr, "rr", false, "round robin: rank r on host r mod the hosts, same as --ppn 1 (Intel MPI's -rr)")
	return h
}

// apply places o's ranks on the hosts the flags name: o.N (from -n, or
// the hosts' slots when -n is left out) and o.Hosts, left empty when every
// host is this one. Without --hosts or --hostfile the host is this one,
// with one slot: --ppn K alone starts K ranks when -n is left out, as
// Hydra does.
func (h *hostFlags) apply(fs *pflag.FlagSet, o *launch.Options) error {
	if len(h.lists) > 1 {
		return usagef("launch: --%s: given after --%s: want one list of hosts", h.lists[1].flag, h.lists[0].flag)
	}
	ppn := 0
	if fs.Changed("ppn") {
		if err := hostlist.CheckPPN(h.ppn); err != nil {
			return usagef("launch: --ppn %v", err)
		}
		ppn = h.ppn
	}
	if h.rr {
		if ppn > 1 {
			return usagef("launch: --rr is --ppn 1: not with --ppn %d", ppn)
		}
		ppn = 1
	}
	if len(h.lists) == 0 && ppn == 0 {
		return nil // every rank on this host, as before
	}
	entries := []hostlist.Entry{{Name: "localhost", Slots: 1}}
	flag := "--ppn"
	if len(h.lists) == 1 {
		src := h.lists[0]
		flag = "--" + src.flag
		var err error
		if src.flag == "hosts" {
			if entries, err = hostlist.Parse(src.value); err != nil {
				return usagef("launch: --hosts: %s", oneLine(err.Error()))
			}
		} else if entries, err = hostlist.ReadHostfile(src.value); err != nil {
			return usagef("launch: --hostfile %s", oneLine(err.Error()))
		}
	}
	n := o.N
	if !fs.Changed("np") {
		n = hostlist.Slots(entries, ppn)
		if n > launch.MaxRanks {
			return usagef("launch: %s: %d slots in all, more ranks than a job may have: give -n (1 to %d)", flag, n, launch.MaxRanks)
		}
	} else if n < 1 || n > launch.MaxRanks {
		return nil // Options.Validate refuses -n, naming it
	}
	layout, err := hostlist.Place(entries, n, ppn)
	if err != nil {
		return usagef("launch: %s: %v", flag, err)
	}
	o.N = n
	if hostname, _ := os.Hostname(); layout.Local(hostname) {
		return nil
	}
	o.Hosts = make([]launch.HostRanks, len(layout.Hosts))
	for i, host := range layout.Hosts {
		o.Hosts[i] = launch.HostRanks{Name: host.Name, Ranks: host.Ranks}
	}
	return nil
}
