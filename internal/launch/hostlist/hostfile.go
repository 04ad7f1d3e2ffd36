package hostlist

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// MaxHostfileSize bounds the hostfile read: 4 MiB holds over 100,000
// hosts with comments, and /dev/zero or a runaway pipe is refused rather
// than read to the end.
const MaxHostfileSize = 4 << 20

// ReadHostfile reads and parses the hostfile at path (see ParseHostfile).
// It refuses a directory, a missing or unreadable file, one larger than
// MaxHostfileSize, and one that names no host; a pipe (--hostfile
// <(...)) is read like a file.
func ReadHostfile(path string) ([]Entry, error) {
	if path == "" {
		return nil, errors.New(`"": want a file`)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot be read: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, want a file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxHostfileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot be read: %w", path, errors.Unwrap(err))
	}
	if len(data) > MaxHostfileSize {
		return nil, fmt.Errorf("%s: larger than %d MiB, want a list of hosts", path, MaxHostfileSize>>20)
	}
	return ParseHostfile(path, data)
}

// ParseHostfile parses data, the hostfile named name, in Hydra's and Open
// MPI's formats: one host per line, as HOST, HOST:N (Hydra) or HOST
// slots=N (Open MPI; also count=N and cpu=N, its synonyms, and spaces
// around "="), its slots 1 when not given. Open MPI's max_slots=N (and its
// spellings) is accepted and ignored: ranks beyond the slots cycle over
// the hosts again, as Hydra places them. Blank lines and comments from '#'
// to the end of a line are skipped. Consecutive lines of one host are one
// entry with their slots added, as in Hydra's node list. An error names
// the file and line ("nodes:3: ...").
func ParseHostfile(name string, data []byte) ([]Entry, error) {
	var out []Entry
	for i, line := range strings.Split(string(data), "\n") {
		e, ok, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if ok {
			out = add(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: names no host (only blank lines and comments)", name)
	}
	return out, nil
}

// spacedEqual is "=" with the blanks around it, which Open MPI's lexer
// allows (slots = 4).
var spacedEqual = regexp.MustCompile(`[ \t\f\v\r]*=[ \t\f\v\r]*`)

// Keywords of a hostfile line after the host, in Open MPI's spellings.
var (
	slotsKeys    = []string{"slots", "count", "cpu"}
	maxSlotsKeys = []string{"max_slots", "max-slots", "slots_max", "slots-max", "cpu_max", "cpu-max", "max_cpu", "max-cpu", "count_max", "count-max", "max_count", "max-count"}
)

// parseLine reads one hostfile line; ok is false for a blank line or a
// comment.
func parseLine(line string) (e Entry, ok bool, err error) {
	if j := strings.IndexByte(line, '#'); j >= 0 {
		line = line[:j]
	}
	fields := strings.Fields(spacedEqual.ReplaceAllString(line, "="))
	if len(fields) == 0 {
		return Entry{}, false, nil
	}
	e, err = parseHostSlots(fields[0])
	if err != nil {
		return Entry{}, false, err
	}
	slotsGiven, maxGiven := strings.Contains(fields[0], ":"), false
	for _, f := range fields[1:] {
		key, value, hasValue := strings.Cut(f, "=")
		switch {
		case !hasValue:
			return Entry{}, false, fmt.Errorf("%q after host %q: want slots=N or max_slots=N", f, e.Name)
		case slices.Contains(slotsKeys, key):
			if slotsGiven {
				return Entry{}, false, fmt.Errorf("%q: host %q has its slots already", f, e.Name)
			}
			n, err := parseSlots(value)
			if err != nil {
				return Entry{}, false, fmt.Errorf("%s %w", key, err)
			}
			e.Slots, slotsGiven = n, true
		case slices.Contains(maxSlotsKeys, key):
			if maxGiven {
				return Entry{}, false, fmt.Errorf("%q: host %q has its %s already", f, e.Name, key)
			}
			if _, err := parseSlots(value); err != nil {
				return Entry{}, false, fmt.Errorf("%s %w", key, err)
			}
			maxGiven = true
		default:
			return Entry{}, false, fmt.Errorf("%q: not supported: a host takes slots=N (or :N) and max_slots=N only", f)
		}
	}
	return e, true, nil
}
