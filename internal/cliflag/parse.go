package cliflag

import (
	"math"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/internal/units"
)

// PiB is 2^50 bytes, the "p" suffix IOR accepts beyond internal/units' t.
const PiB int64 = 1 << 50

// ParseSize parses a byte count as units.ParseSize does and also accepts
// IOR's p suffix (and PiB), 2^50. Fractions, signs and unknown suffixes are
// errors wrapping units.ErrSyntax; values beyond int64 wrap units.ErrRange.
func ParseSize(s string) (int64, error) {
	lower := strings.ToLower(s)
	var num string
	switch {
	case strings.HasSuffix(lower, "pib"):
		num = s[:len(s)-3]
	case strings.HasSuffix(lower, "p"):
		num = s[:len(s)-1]
	default:
		return units.ParseSize(s)
	}
	num = strings.TrimSuffix(num, " ")
	if num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return 0, units.Syntaxf("%q is not a size: want digits then an optional k, m, g, t or p", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64/PiB {
		return 0, units.Rangef("%q is out of range: larger than %d bytes", s, int64(math.MaxInt64))
	}
	return n * PiB, nil
}

// ParseInt parses a whole number as IOR's integer options do: anything
// strconv.ParseInt takes in base 10 (so a + sign too), or else what
// ParseSuffixedInt takes, a number with a k, m, g, t or p suffix.
func ParseInt(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	return ParseSuffixedInt(s)
}

// ParseSuffixedInt parses a whole number with an optional minus sign and,
// as IOR's string_to_bytes does, an optional k, m, g, t or p suffix
// (powers of 1024): "1k" is 1024. It takes no + sign. Fractions and
// unknown suffixes are errors wrapping units.ErrSyntax; values beyond int64
// wrap units.ErrRange.
func ParseSuffixedInt(s string) (int64, error) {
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
		return 0, units.Syntaxf("%q is not a whole number: want digits, optionally with a k, m, g, t or p suffix", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64>>shift {
		return 0, units.Rangef("%q is out of range: beyond %d", s, int64(math.MaxInt64))
	}
	n <<= shift
	if neg {
		n = -n
	}
	return n, nil
}

// ParseBool parses a switch's value: true or false as strconv.ParseBool
// spells them, or an integer as IOR and mdtest take it (0 is off, any
// other number on).
func ParseBool(s string) (bool, error) {
	if b, err := strconv.ParseBool(s); err == nil {
		return b, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n != 0, nil
	}
	return false, units.Syntaxf("%q is not a switch value: want 0, 1, true or false", s)
}
