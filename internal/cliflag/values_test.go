package cliflag

import (
	"math"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/internal/units"
)

var (
	_ pflag.Value = Size{}
	_ pflag.Value = Int{}
	_ pflag.Value = Int32{}
	_ pflag.Value = Int64{}
	_ pflag.Value = Bool{}
	_ pflag.Value = Count{}
)

func TestValues(t *testing.T) {
	t.Parallel()
	// Each test makes a value bound to a fresh variable, sets it to each of
	// sets in turn and checks the last error (or nil) and String.
	tests := []struct {
		name string
		make func() pflag.Value
		sets []string
		err  string // the whole message of the last Set's error, or ""
		want string // String after the sets
	}{
		// Size: IOR's p by default, units.ParseSize for mdtest
		{"size", func() pflag.Value { return Size{P: new(int64)} }, []string{"4m"}, "", "4194304"},
		{"size p", func() pflag.Value { return Size{P: new(int64)} }, []string{"2p"}, "", "2251799813685248"},
		{"size units p", func() pflag.Value { return Size{P: new(int64), Parse: units.ParseSize} }, []string{"2p"},
			`"2p" is not a size: unknown suffix "p": want k, m, g, t (powers of 1024), KiB, MiB, GiB, TiB or B`, "0"},
		{"size fraction", func() pflag.Value { return Size{P: new(int64)} }, []string{"1.5m"},
			`"1.5m" is not a size: fractions are not accepted: give a whole number of bytes or a smaller suffix`, "0"},
		// Int: int's range
		{"int", func() pflag.Value { return Int{P: new(int)} }, []string{"1k"}, "", "1024"},
		{"int plus", func() pflag.Value { return Int{P: new(int)} }, []string{"+5"}, "", "5"},
		{"int large", func() pflag.Value { return Int{P: new(int)} }, []string{"99999999999"}, "", "99999999999"},
		{"int suffixed", func() pflag.Value { return Int{P: new(int), Parse: ParseSuffixedInt} }, []string{"+5"},
			`"+5" is not a whole number: want digits, optionally with a k, m, g, t or p suffix`, "0"},
		// Int32: C's int
		{"int32", func() pflag.Value { return Int32{P: new(int)} }, []string{"-2147483648"}, "", "-2147483648"},
		{"int32 beyond", func() pflag.Value { return Int32{P: new(int)} }, []string{"99999999999"},
			`"99999999999" is out of range: want -2147483648 to 2147483647`, "0"},
		{"int32 below", func() pflag.Value { return Int32{P: new(int)} }, []string{"-2147483649"},
			`"-2147483649" is out of range: want -2147483648 to 2147483647`, "0"},
		// Int64
		{"int64", func() pflag.Value { return Int64{P: new(int64)} }, []string{"-1"}, "", "-1"},
		{"int64 p", func() pflag.Value { return Int64{P: new(int64), Parse: ParseSuffixedInt} }, []string{"1p"}, "", "1125899906842624"},
		{"int64 bad", func() pflag.Value { return Int64{P: new(int64)} }, []string{"1.5"},
			`"1.5" is not a whole number: want digits, optionally with a k, m, g, t or p suffix`, "0"},
		// Bool
		{"bool", func() pflag.Value { return Bool{P: new(bool)} }, []string{"true"}, "", "true"},
		{"bool off", func() pflag.Value { return Bool{P: new(bool)} }, []string{"1", "0"}, "", "false"},
		{"bool number", func() pflag.Value { return Bool{P: new(bool)} }, []string{"2"}, "", "true"},
		{"bool bad", func() pflag.Value { return Bool{P: new(bool)} }, []string{"yes"},
			`"yes" is not a switch value: want 0, 1, true or false`, "false"},
		// Count: CountUp adds one up to Max, a value sets
		{"count", func() pflag.Value { return Count{P: new(int)} }, []string{CountUp, CountUp, CountUp}, "", "3"},
		{"count set", func() pflag.Value { return Count{P: new(int)} }, []string{CountUp, "4", CountUp}, "", "5"},
		{"count capped", func() pflag.Value { return Count{P: new(int)} }, []string{"2147483647", CountUp}, "", "2147483647"},
		{"count max", func() pflag.Value { return Count{P: new(int), Max: math.MaxInt} }, []string{"2147483647", CountUp}, "", "2147483648"},
		{"count negative", func() pflag.Value { return Count{P: new(int)} }, []string{"-1"},
			`"-1" is out of range: want 0 to 2147483647`, "0"},
		{"count beyond", func() pflag.Value { return Count{P: new(int), Max: math.MaxInt} }, []string{"2147483648"},
			`"2147483648" is out of range: want 0 to 2147483647`, "0"},
		{"count plus", func() pflag.Value { return Count{P: new(int), Parse: ParseSuffixedInt} }, []string{"+2"},
			`"+2" is not a whole number: want digits, optionally with a k, m, g, t or p suffix`, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := tt.make()
			var err error
			for _, s := range tt.sets {
				err = v.Set(s)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("Set(%q): %v", tt.sets, err)
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Errorf("Set(%q) error %v; want %q", tt.sets, err, tt.err)
			}
			if got := v.String(); got != tt.want {
				t.Errorf("String() after Set(%q) = %q, want %q", tt.sets, got, tt.want)
			}
		})
	}
}

// TestValueZero checks String and Type of values bound to nothing, which
// pflag calls when it prints defaults.
func TestValueZero(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		v        pflag.Value
		str, typ string
	}{
		{Size{}, "0", "size"}, {Int{}, "0", "int"}, {Int32{}, "0", "int"}, {Int64{}, "0", "int"},
		{Bool{}, "false", "bool"}, {Count{}, "0", "count"},
	} {
		if s, typ := tt.v.String(), tt.v.Type(); s != tt.str || typ != tt.typ {
			t.Errorf("%T: String %q, Type %q; want %q, %q", tt.v, s, typ, tt.str, tt.typ)
		}
	}
}

// TestFlags checks the values behind pflag: switches and counts given
// alone, grouped and with =.
func TestFlags(t *testing.T) {
	t.Parallel()
	var (
		on    bool
		count int
		n     int
		size  int64
	)
	fs := NewFlagSet("test")
	fs.VarPF(Bool{P: &on}, "on", "o", "a switch").NoOptDefVal = "true"
	fs.VarPF(Count{P: &count}, "verbose", "v", "a count").NoOptDefVal = CountUp
	fs.VarP(Int{P: &n}, "num", "n", "a number")
	fs.VarP(Size{P: &size}, "size", "b", "a size")
	if err := fs.Parse(strings.Fields("-vvo -v -n1k -b=4m -o=0")); err != nil {
		t.Fatal(err)
	}
	if on || count != 3 || n != 1024 || size != 4*units.MiB {
		t.Errorf("on %v, count %d, n %d, size %d; want false, 3, 1024, 4 MiB", on, count, n, size)
	}
}
