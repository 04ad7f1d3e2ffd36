package cliflag

import (
	"errors"
	"strconv"
	"testing"

	"github.com/hpcbench/hpcbench/internal/units"
)

// FuzzParseNumbers checks that the number parsers never panic, that every
// error wraps units.ErrSyntax or units.ErrRange, that ParseInt takes all
// ParseSuffixedInt takes (with the same value) and strconv's decimals, and
// that sizes are never negative.
func FuzzParseNumbers(f *testing.F) {
	for _, s := range []string{
		"0", "8", "-5", "+5", "1k", "-2m", "3T", "1p", "8191p", "8192p", "1PiB", "2 p", "4MiB", "1.5m",
		"", "-", "--5", "k", "1kk", "0x10", "-9223372036854775808", "9223372036854775807", "99999999999999999999",
	} {
		f.Add(s)
	}
	wraps := func(err error) bool { return errors.Is(err, units.ErrSyntax) || errors.Is(err, units.ErrRange) }
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseInt(s)
		if err != nil && !wraps(err) {
			t.Fatalf("ParseInt(%q): %v wraps neither ErrSyntax nor ErrRange", s, err)
		}
		if d, derr := strconv.ParseInt(s, 10, 64); derr == nil && (err != nil || n != d) {
			t.Fatalf("ParseInt(%q) = %d, %v; strconv gives %d", s, n, err, d)
		}
		m, merr := ParseSuffixedInt(s)
		if merr != nil && !wraps(merr) {
			t.Fatalf("ParseSuffixedInt(%q): %v wraps neither ErrSyntax nor ErrRange", s, merr)
		}
		if merr == nil && (err != nil || n != m) {
			t.Fatalf("ParseSuffixedInt(%q) = %d but ParseInt = %d, %v", s, m, n, err)
		}
		size, serr := ParseSize(s)
		if serr != nil && !wraps(serr) {
			t.Fatalf("ParseSize(%q): %v wraps neither ErrSyntax nor ErrRange", s, serr)
		}
		if serr == nil && size < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, size)
		}
		if _, berr := ParseBool(s); berr != nil && !errors.Is(berr, units.ErrSyntax) {
			t.Fatalf("ParseBool(%q): %v", s, berr)
		}
	})
}
