// Package hostlist reads the hosts of a job that runs across hosts and
// places its ranks on them as Hydra's mpiexec does: the --hosts list
// (h1[:slots],h2,...), hostfiles in Hydra's and Open MPI's formats, ranks
// placed block-wise over the hosts' slots (or --ppn per host) and cycling
// over the list when the job has more ranks than slots, and the
// PMI_process_mapping value that tells MPICH which ranks share a host.
package hostlist

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxSlots bounds the slots of one entry and --ppn: as many as a job may
// have ranks (launch.MaxRanks).
const MaxSlots = 1 << 16

// maxNameLen is the longest host name: a DNS name's 253 characters.
const maxNameLen = 253

// Entry is one host of a host list and the slots it gives.
type Entry struct {
	Name  string
	Slots int // at least 1; an entry gives at most MaxSlots, merged ones their sum
}

// Parse reads a --hosts value, Hydra's -hosts syntax: host names (or
// addresses) separated by commas, each with an optional ":N", its slots
// (1 when left out). Consecutive entries of one host are one entry with
// their slots added, as in Hydra's node list.
func Parse(list string) ([]Entry, error) {
	var out []Entry
	for i, item := range strings.Split(list, ",") {
		if item == "" {
			return nil, fmt.Errorf("host %d is empty: want HOST or HOST:N between the commas", i+1)
		}
		e, err := parseHostSlots(item)
		if err != nil {
			return nil, err
		}
		out = add(out, e)
	}
	return out, nil
}

// parseHostSlots reads one HOST or HOST:N.
func parseHostSlots(s string) (Entry, error) {
	name, count, hasCount := strings.Cut(s, ":")
	if err := checkName(name); err != nil {
		return Entry{}, fmt.Errorf("%q: %w", s, err)
	}
	e := Entry{Name: name, Slots: 1}
	if hasCount {
		n, err := parseSlots(count)
		if err != nil {
			return Entry{}, fmt.Errorf("%q: slots %w", s, err)
		}
		e.Slots = n
	}
	return e, nil
}

// errSlots says what a count of slots may be.
var errSlots = errors.New("want a whole number from 1 to " + strconv.Itoa(MaxSlots))

// parseSlots reads a count of slots (or of ranks per host): a decimal
// number from 1 to MaxSlots.
func parseSlots(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxSlots || s[0] == '+' {
		return 0, fmt.Errorf("%q: %w", s, errSlots)
	}
	return n, nil
}

// CheckPPN checks a --ppn value: 1 to MaxSlots ranks per host.
func CheckPPN(ppn int) error {
	if ppn < 1 || ppn > MaxSlots {
		return fmt.Errorf("%d: %w", ppn, errSlots)
	}
	return nil
}

// checkName refuses what cannot be a host name or address: empty, longer
// than a DNS name, characters other than letters, digits, '.', '-' and
// '_', or a first character that a remote shell would read as an option
// ('-') or that names no host ('.').
func checkName(name string) error {
	bad := name == "" || len(name) > maxNameLen || name[0] == '-' || name[0] == '.'
	for i := 0; i < len(name) && !bad; i++ {
		c := name[i]
		bad = !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_')
	}
	if bad {
		return fmt.Errorf("want a host name or IPv4 address: letters, digits, '.', '-' and '_', not starting with '-' or '.', at most %d characters", maxNameLen)
	}
	return nil
}

// add appends e to entries, adding its slots to the last entry instead
// when that is the same host, as Hydra's HYDU_add_to_node_list does.
func add(entries []Entry, e Entry) []Entry {
	if k := len(entries) - 1; k >= 0 && entries[k].Name == e.Name {
		entries[k].Slots += e.Slots
		return entries
	}
	return append(entries, e)
}

// Slots returns how many ranks one pass over entries places: the sum of
// their slots, or ppn per entry when ppn > 0. It is the job's size when
// -n is left out (Hydra's and Open MPI's rule).
func Slots(entries []Entry, ppn int) int {
	if ppn > 0 {
		return ppn * len(entries)
	}
	total := 0
	for _, e := range entries {
		total += e.Slots
	}
	return total
}
