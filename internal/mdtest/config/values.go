package config

import (
	"fmt"
	"math"
	"strings"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/units"
)

// randomNoSeed is what a bare -R passes to randomValue.Set.
const randomNoSeed = "time"

// randomValue binds -R: alone it turns random order on and leaves the
// seed alone (--random-seed, or the time); "-R=N" also sets the seed, as
// mdtest 1.x's -R<seed> did.
type randomValue struct{ o *Options }

func (v randomValue) String() string {
	if v.o == nil || !v.o.RandomStat {
		return ""
	}
	return "on"
}

func (v randomValue) Set(s string) error {
	if s == randomNoSeed {
		v.o.RandomStat = true
		return nil
	}
	n, err := cliflag.ParseSuffixedInt(s)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if n < 0 || n > math.MaxInt32 {
		return units.Rangef("%q is out of range: want 0 (the time) to %d", s, math.MaxInt32)
	}
	v.o.RandomStat, v.o.RandomSeed = true, int(n)
	return nil
}

func (v randomValue) Type() string { return "seed" }

// dirsValue binds -d: one directory, or several joined by @.
type dirsValue struct{ p *[]string }

func (v dirsValue) String() string {
	if v.p == nil {
		return ""
	}
	return strings.Join(*v.p, "@")
}

func (v dirsValue) Set(s string) error {
	dirs, err := ParseDirs(s)
	if err != nil {
		return err
	}
	*v.p = dirs
	return nil
}

func (v dirsValue) Type() string { return "dir[@dir...]" }

// ParseDirs splits -d's value at each @ into directories. An empty value or
// an empty directory (a@@b, a@, @b) is an error: mdtest counts it but
// skips it, and then reads a directory name it never set.
func ParseDirs(s string) ([]string, error) {
	if s == "" {
		return nil, fmt.Errorf("empty directory: want dir or dir1@dir2@...")
	}
	dirs := strings.Split(s, "@")
	for i, d := range dirs {
		if d == "" {
			return nil, fmt.Errorf("%q: directory %d of %d is empty: want dir or dir1@dir2@...", s, i+1, len(dirs))
		}
	}
	return dirs, nil
}

// formatValue binds --format, stored in lower case.
type formatValue struct{ p *string }

func (v formatValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v formatValue) Set(s string) error {
	f := strings.ToLower(s)
	if !validFormat(f) {
		return fmt.Errorf("unknown format %q: want human, json or csv", s)
	}
	*v.p = f
	return nil
}

func (v formatValue) Type() string { return "format" }

// validFormat reports whether f is one of the report formats.
func validFormat(f string) bool {
	return f == FormatHuman || f == FormatJSON || f == FormatCSV
}
