package cliflag

import (
	"errors"
	"math"
	"testing"

	"github.com/hpcbench/hpcbench/internal/units"
)

// numberTest is an input of a number parser and the value it gives, or
// the error it wraps (units.ErrSyntax or units.ErrRange) and its text when
// the text is given.
type numberTest struct {
	in      string
	want    int64
	wantErr error
	msg     string
}

func checkNumbers(t *testing.T, name string, parse func(string) (int64, error), tests []numberTest) {
	t.Helper()
	for _, tt := range tests {
		got, err := parse(tt.in)
		switch {
		case tt.wantErr == nil && (err != nil || got != tt.want):
			t.Errorf("%s(%q) = %d, %v; want %d", name, tt.in, got, err, tt.want)
		case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
			t.Errorf("%s(%q) = %d, %v; want an error wrapping %v", name, tt.in, got, err, tt.wantErr)
		case tt.msg != "" && (err == nil || err.Error() != tt.msg):
			t.Errorf("%s(%q) error %v; want %q", name, tt.in, err, tt.msg)
		}
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	checkNumbers(t, "ParseSize", ParseSize, []numberTest{
		// HAPPY PATH: units.ParseSize's spellings, and p
		{in: "0"}, {in: "8", want: 8}, {in: "4k", want: 4096}, {in: "4MiB", want: 4 * units.MiB},
		{in: "1P", want: PiB}, {in: "2 p", want: 2 * PiB}, {in: "1PiB", want: PiB}, {in: "3pib", want: 3 * PiB},
		{in: "8191p", want: 8191 * PiB},
		// SAD PATH
		{in: "", wantErr: units.ErrSyntax},
		{in: "p", wantErr: units.ErrSyntax,
			msg: `"p" is not a size: want digits then an optional k, m, g, t or p`},
		{in: "1kp", wantErr: units.ErrSyntax},
		{in: "-1p", wantErr: units.ErrSyntax},
		{in: "1.5p", wantErr: units.ErrSyntax},
		{in: " 1p", wantErr: units.ErrSyntax},
		{in: "1  p", wantErr: units.ErrSyntax},
		{in: "+1p", wantErr: units.ErrSyntax},
		{in: "1.5m", wantErr: units.ErrSyntax},
		{in: "8192p", wantErr: units.ErrRange,
			msg: `"8192p" is out of range: larger than 9223372036854775807 bytes`},
		{in: "99999999999999999999p", wantErr: units.ErrRange},
	})
}

func TestParseInt(t *testing.T) {
	t.Parallel()
	checkNumbers(t, "ParseInt", ParseInt, []numberTest{
		// HAPPY PATH: strconv's forms, then suffixes
		{in: "0"}, {in: "-5", want: -5}, {in: "+5", want: 5}, {in: "1k", want: 1024},
		{in: "-2m", want: -2 * units.MiB}, {in: "1p", want: PiB}, {in: "3T", want: 3 * units.TiB},
		{in: "-9223372036854775808", want: math.MinInt64}, {in: "9223372036854775807", want: math.MaxInt64},
		{in: "8191p", want: 8191 * PiB},
		// SAD PATH
		{in: "", wantErr: units.ErrSyntax},
		{in: "-", wantErr: units.ErrSyntax},
		{in: "--5", wantErr: units.ErrSyntax},
		{in: "1.5", wantErr: units.ErrSyntax,
			msg: `"1.5" is not a whole number: want digits, optionally with a k, m, g, t or p suffix`},
		{in: "1kk", wantErr: units.ErrSyntax},
		{in: "k", wantErr: units.ErrSyntax},
		{in: "1x", wantErr: units.ErrSyntax},
		{in: "0x10", wantErr: units.ErrSyntax},
		{in: "+1k", wantErr: units.ErrSyntax},
		{in: "8192p", wantErr: units.ErrRange, msg: `"8192p" is out of range: beyond 9223372036854775807`},
		{in: "99999999999999999999", wantErr: units.ErrRange},
	})
}

// TestParseSuffixedInt checks mdtest's integers: ParseInt's suffixes, but
// no + sign and nothing below -math.MaxInt64.
func TestParseSuffixedInt(t *testing.T) {
	t.Parallel()
	checkNumbers(t, "ParseSuffixedInt", ParseSuffixedInt, []numberTest{
		{in: "0"}, {in: "100", want: 100}, {in: "-5", want: -5}, {in: "1k", want: 1024},
		{in: "2M", want: 2 << 20}, {in: "-1g", want: -units.GiB}, {in: "8191p", want: 8191 * PiB},
		{in: "-9223372036854775807", want: -math.MaxInt64},
		{in: "+5", wantErr: units.ErrSyntax,
			msg: `"+5" is not a whole number: want digits, optionally with a k, m, g, t or p suffix`},
		{in: "", wantErr: units.ErrSyntax},
		{in: "1.5k", wantErr: units.ErrSyntax},
		{in: "10x", wantErr: units.ErrSyntax},
		{in: "ten", wantErr: units.ErrSyntax},
		{in: "-F", wantErr: units.ErrSyntax},
		{in: "-9223372036854775808", wantErr: units.ErrRange,
			msg: `"-9223372036854775808" is out of range: beyond 9223372036854775807`},
		{in: "9999999p", wantErr: units.ErrRange},
	})
}

func TestParseBool(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"1": true, "0": false, "true": true, "false": false, "T": true, "F": false,
		"2": true, "-1": true, "+0": false, "00": false,
	} {
		if got, err := ParseBool(in); err != nil || got != want {
			t.Errorf("ParseBool(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "yes", "on", "1k", "0.0"} {
		_, err := ParseBool(bad)
		if !errors.Is(err, units.ErrSyntax) {
			t.Errorf("ParseBool(%q): %v, want an error wrapping units.ErrSyntax", bad, err)
		}
	}
	if _, err := ParseBool("yes"); err == nil || err.Error() != `"yes" is not a switch value: want 0, 1, true or false` {
		t.Errorf("ParseBool(yes) error %v", err)
	}
}
