package cliflag

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/spf13/pflag"
)

func TestOneLineError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg     string
		unicode bool
		want    string
	}{
		{"plain", false, "plain"},
		{"a\nb\rc\td\x00e\x7ff", false, "a?b?c?d?e?f"},
		{"a\u2028b\u2029c\u0085d", false, "a\u2028b\u2029c\u0085d"}, // IOR's: control characters only
		{"a\u2028b\u2029c\u0085d\ne", true, "a?b?c?d?e"},            // mdtest's: Unicode line breaks too
		{"é ü 日本", true, "é ü 日本"},
	}
	for _, tt := range tests {
		err := OneLineError{Err: errors.New(tt.msg), Unicode: tt.unicode}
		if got := err.Error(); got != tt.want {
			t.Errorf("OneLineError{%q, %v} = %q, want %q", tt.msg, tt.unicode, got, tt.want)
		}
	}
	err := error(OneLineError{Err: fmt.Errorf("open x\ny: %w", fs.ErrNotExist)})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%v does not wrap fs.ErrNotExist", err)
	}
}

func TestParseArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string // the error, "" for none, "help" for pflag.ErrHelp
	}{
		{nil, ""},
		{[]string{"-n", "3", "-v"}, ""},
		{[]string{"--"}, ""},
		{[]string{"-h"}, "help"},
		{[]string{"-vh"}, "help"},
		{[]string{"-h", "--nope"}, "help"}, // help wins over a later error
		{[]string{"-n", "x", "-h"}, `-n: "x" is not a whole number: want digits, optionally with a k, m, g, t or p suffix`},
		{[]string{"--nope"}, `unknown option "--nope"`},
		{[]string{"-n", "3", "foo"}, `unexpected argument "foo": options start with -`},
		{[]string{"--", "-v"}, `unexpected argument "-v": options start with -`},
	}
	for _, tt := range tests {
		set := NewFlagSet("cmd")
		set.VarP(Int64{P: new(int64)}, "items", "n", "items")
		set.VarPF(Count{P: new(int)}, "verbose", "v", "more output").NoOptDefVal = CountUp
		var help bool
		set.BoolVarP(&help, "help", "h", false, "help")
		flagError := func(err error) error { return FlagError(err, nil) }
		err := ParseArgs(set, tt.args, &help, flagError, "options start with -")
		switch {
		case tt.want == "help" && !errors.Is(err, pflag.ErrHelp):
			t.Errorf("ParseArgs(%q) = %v, want pflag.ErrHelp", tt.args, err)
		case tt.want == "" && err != nil:
			t.Errorf("ParseArgs(%q): %v", tt.args, err)
		case tt.want != "" && tt.want != "help" && (err == nil || err.Error() != tt.want):
			t.Errorf("ParseArgs(%q) = %v, want %q", tt.args, err, tt.want)
		}
	}
}

// TestFlagErrorPflagInts: pflag's own integer flags, whose error is a bare
// "must be an integer", are reworded to name the value and, where the
// command set it (SetRange), what the flag accepts.
func TestFlagErrorPflagInts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "x"}, `-n: "x" is not a whole number: want 1 to 4096`},
		{[]string{"--np=1.5"}, `-n: "1.5" is not a whole number: want 1 to 4096`},
		{[]string{"--window", "99999999999999999999"}, `--window: "99999999999999999999" is not a whole number: want digits`},
		{[]string{"--port", "-1"}, `--port: "-1" is not a whole number: want digits`},
		{[]string{"--window", ""}, `--window: "" is not a whole number: want digits`},
	} {
		set := NewFlagSet("cmd")
		set.IntP("np", "n", 1, "ranks")
		SetRange(set, "np", "1 to 4096")
		set.Int64("window", 64, "window")
		set.Uint16("port", 1, "port")
		SetRange(set, "nosuchflag", "ignored") // no flag, no annotation, no failure
		err := FlagError(set.Parse(tt.args), nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}
