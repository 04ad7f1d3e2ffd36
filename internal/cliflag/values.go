package cliflag

import (
	"math"
	"strconv"

	"github.com/hpcbench/hpcbench/internal/units"
)

// IntParser parses an integer or size flag's value: ParseInt,
// ParseSuffixedInt, ParseSize or units.ParseSize.
type IntParser func(string) (int64, error)

// parseWith returns parse(s), or ParseInt(s) for a nil parse.
func parseWith(parse IntParser, s string) (int64, error) {
	if parse == nil {
		return ParseInt(s)
	}
	return parse(s)
}

// Size binds a byte count (IOR's -b, -t; mdtest's -w, -e).
type Size struct {
	P *int64
	// Parse reads the value: ParseSize (IOR's, with p) when nil, or
	// units.ParseSize (mdtest's: k, m, g, t).
	Parse IntParser
}

// String returns the count in bytes.
func (v Size) String() string {
	if v.P == nil {
		return "0"
	}
	return strconv.FormatInt(*v.P, 10)
}

// Set parses s with v.Parse.
func (v Size) Set(s string) error {
	parse := v.Parse
	if parse == nil {
		parse = ParseSize
	}
	n, err := parse(s)
	if err != nil {
		return err
	}
	*v.P = n
	return nil
}

// Type is "size", the value's name in the help text.
func (v Size) Type() string { return "size" }

// Int binds an int option that may take any int (IOR's -i, -N, -Q …).
type Int struct {
	P *int
	// Parse reads the value: ParseInt when nil.
	Parse IntParser
}

// String returns the value in decimal.
func (v Int) String() string {
	if v.P == nil {
		return "0"
	}
	return strconv.Itoa(*v.P)
}

// Set parses s with v.Parse; a value beyond int is an error wrapping
// units.ErrRange.
func (v Int) Set(s string) error {
	n, err := parseWith(v.Parse, s)
	if err != nil {
		return err
	}
	if n < math.MinInt || n > math.MaxInt {
		return units.Rangef("%q is out of range", s)
	}
	*v.P = int(n)
	return nil
}

// Type is "int".
func (v Int) Type() string { return "int" }

// Int32 binds an int option limited to C's int, as mdtest's (-z, -b, -i
// …) are.
type Int32 struct {
	P *int
	// Parse reads the value: ParseInt when nil.
	Parse IntParser
}

// String returns the value in decimal.
func (v Int32) String() string {
	if v.P == nil {
		return "0"
	}
	return strconv.Itoa(*v.P)
}

// Set parses s with v.Parse; a value beyond int32 is an error wrapping
// units.ErrRange that gives the range.
func (v Int32) Set(s string) error {
	n, err := parseWith(v.Parse, s)
	if err != nil {
		return err
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return units.Rangef("%q is out of range: want %d to %d", s, math.MinInt32, math.MaxInt32)
	}
	*v.P = int(n)
	return nil
}

// Type is "int".
func (v Int32) Type() string { return "int" }

// Int64 binds an int64 option (IOR's -s, --random-offset-seed; mdtest's
// -n, -I).
type Int64 struct {
	P *int64
	// Parse reads the value: ParseInt when nil.
	Parse IntParser
}

// String returns the value in decimal.
func (v Int64) String() string {
	if v.P == nil {
		return "0"
	}
	return strconv.FormatInt(*v.P, 10)
}

// Set parses s with v.Parse.
func (v Int64) Set(s string) error {
	n, err := parseWith(v.Parse, s)
	if err != nil {
		return err
	}
	*v.P = n
	return nil
}

// Type is "int".
func (v Int64) Type() string { return "int" }

// Bool binds a switch, registered with NoOptDefVal "true": given alone it
// turns on; "-F=0", "-O filePerProc=0" or "--dryRun=false" turn it off
// (ParseBool).
type Bool struct{ P *bool }

// String returns true or false.
func (v Bool) String() string {
	if v.P == nil {
		return "false"
	}
	return strconv.FormatBool(*v.P)
}

// Set parses s with ParseBool.
func (v Bool) Set(s string) error {
	b, err := ParseBool(s)
	if err != nil {
		return err
	}
	*v.P = b
	return nil
}

// Type is "bool".
func (v Bool) Type() string { return "bool" }

// CountUp is what a bare counted flag passes to Count.Set: register a
// Count with NoOptDefVal CountUp.
const CountUp = "+1"

// Count binds a counting switch (-v, IOR's -z, -Z): each occurrence adds
// one, "-v=3" or "-O randomOffset=2" sets the count, from 0 to
// math.MaxInt32.
type Count struct {
	P *int
	// Parse reads a value given with =: ParseInt when nil.
	Parse IntParser
	// Max is where repeating the flag stops counting: math.MaxInt32 when
	// 0 (IOR's counts go on to math.MaxInt).
	Max int
}

// String returns the count in decimal.
func (v Count) String() string {
	if v.P == nil {
		return "0"
	}
	return strconv.Itoa(*v.P)
}

// Set adds one for CountUp and otherwise sets the count to s, which must
// be 0 to math.MaxInt32 (an error wrapping units.ErrRange).
func (v Count) Set(s string) error {
	if s == CountUp {
		limit := v.Max
		if limit == 0 {
			limit = math.MaxInt32
		}
		if *v.P < limit {
			*v.P++
		}
		return nil
	}
	n, err := parseWith(v.Parse, s)
	if err != nil {
		return err
	}
	if n < 0 || n > math.MaxInt32 {
		return units.Rangef("%q is out of range: want 0 to %d", s, math.MaxInt32)
	}
	*v.P = int(n)
	return nil
}

// Type is "count".
func (v Count) Type() string { return "count" }
