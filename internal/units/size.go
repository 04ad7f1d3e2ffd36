// Package units parses and formats the sizes and rates that hpcbench's
// benchmarks take and print.
//
// Sizes follow IOR's convention: a plain number is bytes, and the suffixes
// k, m, g and t (case-insensitive) are powers of 1024, so "4k" is 4096. The
// explicit binary forms KiB, MiB, GiB and TiB (any case) mean the same, and B
// means bytes; one space may separate the number from its suffix, so every
// string FormatSize returns parses back. Decimal-looking forms such as "kb" or
// "MB" are rejected as ambiguous rather than guessed at, as are fractions,
// signs, exponents and values beyond int64.
//
// The package uses only the standard library.
package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Binary size units in bytes.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
	TiB int64 = 1 << 40
)

// FormatFlag formats n bytes as a user types them on a command line, in
// the largest suffix that divides it: "4096" is "4k", "1048576" "1m",
// "1000" "1000". ParseSize(FormatFlag(n)) == n for every n >= 0.
func FormatFlag(n int64) string {
	return formatIn(n, [4]string{"t", "g", "m", "k"}, "")
}

// formatIn writes n in the largest of TiB, GiB, MiB and KiB that divides
// it, named by names in that order, or in bytes followed by bytes.
func formatIn(n int64, names [4]string, bytes string) string {
	if n != 0 {
		for i, size := range [...]int64{TiB, GiB, MiB, KiB} {
			if n%size == 0 {
				return strconv.FormatInt(n/size, 10) + names[i]
			}
		}
	}
	return strconv.FormatInt(n, 10) + bytes
}

// ErrSyntax reports a size that is not a number followed by a known suffix.
// ParseSize wraps it; check with errors.Is.
var ErrSyntax = errors.New("invalid syntax")

// ErrRange reports a size that does not fit in an int64 byte count.
// ParseSize wraps it; check with errors.Is.
var ErrRange = errors.New("out of range")

// suffixMultiplier returns the multiplier of an accepted suffix, in any case.
func suffixMultiplier(suffix string) (int64, bool) {
	switch strings.ToLower(suffix) {
	case "", "b":
		return 1, true
	case "k", "kib":
		return KiB, true
	case "m", "mib":
		return MiB, true
	case "g", "gib":
		return GiB, true
	case "t", "tib":
		return TiB, true
	}
	return 0, false
}

// ParseSize parses an IOR-style size such as "4096", "4k", "1M", "2 GiB" or
// "1000 B" into bytes. The number is one or more decimal digits; the optional
// suffix is k, m, g, t, KiB, MiB, GiB, TiB or B in any case (k = 1024),
// optionally after one space. The error names the input and wraps ErrSyntax
// or ErrRange.
func ParseSize(s string) (int64, error) {
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	num, suffix := s[:digits], s[digits:]
	if num == "" {
		return 0, Syntaxf("%q is not a size: want digits then an optional k, m, g or t", s)
	}
	if rest, ok := strings.CutPrefix(suffix, " "); ok {
		if rest == "" {
			return 0, Syntaxf("%q is not a size: trailing space", s)
		}
		suffix = rest
	}
	mult, ok := suffixMultiplier(suffix)
	if !ok {
		return 0, Syntaxf("%q is not a size: %s", s, suffixHint(suffix))
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		// Only a range error is possible: num is all ASCII digits.
		return 0, Rangef("%q is out of range: larger than %d bytes", s, int64(math.MaxInt64))
	}
	if n > math.MaxInt64/mult {
		return 0, Rangef("%q is out of range: larger than %d bytes", s, int64(math.MaxInt64))
	}
	return n * mult, nil
}

// suffixHint explains why suffix was not accepted.
func suffixHint(suffix string) string {
	switch strings.ToLower(suffix) {
	case "kb", "mb", "gb", "tb":
		return fmt.Sprintf("ambiguous suffix %q: use %c (powers of 1024) or %ciB",
			suffix, suffix[0], strings.ToUpper(suffix[:1])[0])
	}
	if strings.HasPrefix(suffix, ".") || strings.HasPrefix(suffix, ",") {
		return "fractions are not accepted: give a whole number of bytes or a smaller suffix"
	}
	return fmt.Sprintf("unknown suffix %q: want k, m, g, t (powers of 1024), KiB, MiB, GiB, TiB or B", suffix)
}

// FormatSize formats n bytes exactly, in the largest binary unit that divides
// it: "0 B", "1000 B", "4 KiB", "1536 KiB", "1 MiB". Negative values keep
// their sign. ParseSize(FormatSize(n)) == n for every n >= 0.
func FormatSize(n int64) string {
	return formatIn(n, [4]string{" TiB", " GiB", " MiB", " KiB"}, " B")
}
