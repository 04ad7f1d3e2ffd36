package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/units"
)

// parseInt parses a whole number with an optional minus sign and, as
// mdtest's integer options do (they go through IOR's string_to_bytes), an
// optional k, m, g, t or p suffix (powers of 1024): "-n 1k" is 1024 items.
// Fractions and unknown suffixes are errors wrapping units.ErrSyntax;
// values beyond int64 wrap units.ErrRange.
func parseInt(s string) (int64, error) {
	body, neg := strings.CutPrefix(s, "-")
	digits := len(body) - len(strings.TrimLeft(body, "0123456789"))
	num, suffix := body[:digits], body[digits:]
	var shift uint
	switch strings.ToLower(suffix) {
	case "":
	case "k":
		shift = 10
	case "m":
		shift = 20
	case "g":
		shift = 30
	case "t":
		shift = 40
	case "p":
		shift = 50
	default:
		num = ""
	}
	if num == "" {
		return 0, fmt.Errorf("parse integer %q: %w: want a whole number, optionally with a k, m, g, t or p suffix",
			s, units.ErrSyntax)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("parse integer %q: %w: beyond %d", s, units.ErrRange, int64(math.MaxInt64))
	}
	n <<= shift
	if neg {
		n = -n
	}
	return n, nil
}

// parseFlagBool parses a switch's value: true or false as strconv.ParseBool
// spells them, or an integer as mdtest takes it ("-F=0" is off, any other
// number on).
func parseFlagBool(s string) (bool, error) {
	if b, err := strconv.ParseBool(s); err == nil {
		return b, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n != 0, nil
	}
	return false, fmt.Errorf("parse switch %q: %w: want 0, 1, true or false", s, units.ErrSyntax)
}

// intValue binds an int option (-z, -b, -i, -N, -p, -W, -f, -l, -s, -G …).
type intValue struct{ p *int }

func (v intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v intValue) Set(s string) error {
	n, err := parseInt(s)
	if err != nil {
		return err
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return fmt.Errorf("parse integer %q: %w: want %d to %d", s, units.ErrRange, math.MinInt32, math.MaxInt32)
	}
	*v.p = int(n)
	return nil
}

func (v intValue) Type() string { return "int" }

// int64Value binds an item count (-n, -I).
type int64Value struct{ p *int64 }

func (v int64Value) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatInt(*v.p, 10)
}

func (v int64Value) Set(s string) error {
	n, err := parseInt(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

func (v int64Value) Type() string { return "int" }

// sizeValue binds a byte count (-w, -e), parsed by units.ParseSize: k, m,
// g, t are powers of 1024; fractions and unknown suffixes are errors.
type sizeValue struct{ p *int64 }

func (v sizeValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatInt(*v.p, 10)
}

func (v sizeValue) Set(s string) error {
	n, err := units.ParseSize(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

func (v sizeValue) Type() string { return "size" }

// boolValue binds a switch. Given alone it turns on; "-u=0" or
// "--verify-read=false" turn it off.
type boolValue struct{ p *bool }

func (v boolValue) String() string {
	if v.p == nil {
		return "false"
	}
	return strconv.FormatBool(*v.p)
}

func (v boolValue) Set(s string) error {
	b, err := parseFlagBool(s)
	if err != nil {
		return err
	}
	*v.p = b
	return nil
}

func (v boolValue) Type() string { return "bool" }

// countValue binds -v: each occurrence adds one, "-v=3" sets the count.
type countValue struct{ p *int }

func (v countValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v countValue) Set(s string) error {
	if s == "+1" {
		if *v.p < math.MaxInt32 {
			*v.p++
		}
		return nil
	}
	n, err := parseInt(s)
	if err != nil {
		return err
	}
	if n < 0 || n > math.MaxInt32 {
		return fmt.Errorf("count %q: %w: want 0 to %d", s, units.ErrRange, math.MaxInt32)
	}
	*v.p = int(n)
	return nil
}

func (v countValue) Type() string { return "count" }

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
	n, err := parseInt(s)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if n < 0 || n > math.MaxInt32 {
		return fmt.Errorf("seed %q: %w: want 0 (the time) to %d", s, units.ErrRange, math.MaxInt32)
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

// apiValue binds -a, stored as the backend's registered name. A backend
// without metadata support is accepted here and refused by Validate, so
// the error can say why.
type apiValue struct {
	p   *string
	reg *aiori.Registry
}

func (v apiValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v apiValue) Set(s string) error {
	e, ok := v.reg.Lookup(s)
	if !ok {
		return fmt.Errorf("unknown API %q: want one of %s", s, strings.Join(metadataNames(v.reg), ", "))
	}
	*v.p = e.Name
	return nil
}

func (v apiValue) Type() string { return "api" }

// packetValue binds --dataPacketType.
type packetValue struct{ p *DataPacketType }

func (v packetValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v packetValue) Set(s string) error {
	t, err := ParseDataPacketType(s)
	if err != nil {
		return err
	}
	*v.p = t
	return nil
}

func (v packetValue) Type() string { return "type" }

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
