package hostlist

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// Layout is where a job's ranks run: the hosts that run at least one rank,
// in the order of their first rank (so host 0 runs rank 0), each with its
// ranks in ascending order.
type Layout struct {
	Hosts []Host
}

// Host is one host of a Layout and the ranks it runs, ascending.
type Host struct {
	Name  string
	Ranks []int
}

// Place places n ranks on entries as Hydra's mpiexec does: each entry in
// turn takes its slots' worth of consecutive ranks (ppn of them when
// ppn > 0, Hydra's -ppn, whatever its slots), and when every entry has
// had its turn and ranks remain, the turns start again from the first
// (Hydra's HYDU_gen_rankmap). -ppn 1 is round-robin placement (Intel MPI's
// -rr). A host listed more than once, not consecutively, takes its ranks
// at each of its turns and is one host of the layout: one proxy, its ranks
// sharing memory. A host whose turn never comes (n smaller than the slots)
// runs nothing and is not in the layout.
func Place(entries []Entry, n, ppn int) (Layout, error) {
	if len(entries) == 0 {
		return Layout{}, errors.New("no hosts")
	}
	if n < 1 {
		return Layout{}, fmt.Errorf("%d ranks: want at least 1", n)
	}
	if ppn != 0 {
		if err := CheckPPN(ppn); err != nil {
			return Layout{}, fmt.Errorf("ppn %w", err)
		}
	}
	for _, e := range entries {
		if e.Slots < 1 {
			return Layout{}, fmt.Errorf("host %q: %d slots: want at least 1", e.Name, e.Slots)
		}
	}
	var l Layout
	index := map[string]int{} // host name → its index in l.Hosts
	for rank := 0; rank < n; {
		for _, e := range entries {
			take := e.Slots
			if ppn > 0 {
				take = ppn
			}
			take = min(take, n-rank)
			if take == 0 {
				break
			}
			h, ok := index[e.Name]
			if !ok {
				h = len(l.Hosts)
				index[e.Name] = h
				l.Hosts = append(l.Hosts, Host{Name: e.Name})
			}
			for range take {
				l.Hosts[h].Ranks = append(l.Hosts[h].Ranks, rank)
				rank++
			}
		}
	}
	return l, nil
}

// N returns the number of ranks l places.
func (l Layout) N() int {
	n := 0
	for _, h := range l.Hosts {
		n += len(h.Ranks)
	}
	return n
}

// HostOf returns, for each rank of l, the index of its host in l.Hosts. A
// rank l does not place (a Layout not made by Place) has -1.
func (l Layout) HostOf() []int {
	out := make([]int, l.N())
	for i := range out {
		out[i] = -1
	}
	for h, host := range l.Hosts {
		for _, r := range host.Ranks {
			if r >= 0 && r < len(out) {
				out[r] = h
			}
		}
	}
	return out
}

// Local reports whether every host of l is this machine, whose name is
// hostname (os.Hostname): then the job needs no proxy and runs as on one
// host. See IsLocal.
func (l Layout) Local(hostname string) bool {
	for _, h := range l.Hosts {
		if !IsLocal(h.Name, hostname) {
			return false
		}
	}
	return true
}

// IsLocal reports whether the host name names this machine, whose name is
// hostname: "localhost", a loopback address (127.0.0.1), or hostname
// itself, either of them with or without its domain.
func IsLocal(name, hostname string) bool {
	if name == "localhost" || name == "localhost.localdomain" {
		return true
	}
	if ip := net.ParseIP(name); ip != nil {
		return ip.IsLoopback()
	}
	if hostname == "" {
		return false
	}
	short := func(s string) string { s, _, _ = strings.Cut(s, "."); return s }
	return strings.EqualFold(name, hostname) ||
		strings.EqualFold(short(name), short(hostname)) && (!strings.Contains(name, ".") || !strings.Contains(hostname, "."))
}
