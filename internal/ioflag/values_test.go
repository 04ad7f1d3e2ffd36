package ioflag

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/internal/pattern"
)

var (
	_ pflag.Value = API{}
	_ pflag.Value = Packet{}
)

func TestValues(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t)
	// Each test makes a value bound to a fresh variable, sets it to each of
	// sets in turn and checks the last error (or nil) and String.
	tests := []struct {
		name string
		make func() pflag.Value
		sets []string
		err  string // the whole message of the last Set's error, or ""
		want string // String after the sets
	}{
		// API: any case or alias, stored as the registered name
		{"api", func() pflag.Value { return API{P: new(string), Reg: reg} }, []string{"dummy"}, "", "DUMMY"},
		{"api alias", func() pflag.Value { return API{P: new(string), Reg: reg} }, []string{"Fake-Old"}, "", "FAKE"},
		{"api unknown", func() pflag.Value { return API{P: new(string), Reg: reg} }, []string{"FOO"},
			`unknown API "FOO": want one of POSIX, DUMMY, FAKE`, ""},
		{"api names", func() pflag.Value { return API{P: new(string), Reg: reg, Names: []string{"(none in this build)"}} },
			[]string{"x"}, `unknown API "x": want one of (none in this build)`, ""},
		// Packet
		{"packet", func() pflag.Value { return Packet{P: new(pattern.Type)} }, []string{"O"}, "", "offset"},
		{"packet bad", func() pflag.Value { return Packet{P: new(pattern.Type)} }, []string{"inc"},
			`unknown data packet type "inc": want timestamp, offset, incompressible or random (or t, o, i, r)`, "timestamp"},
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
	for _, tt := range []struct {
		v        pflag.Value
		str, typ string
	}{{API{}, "", "api"}, {Packet{}, "", "type"}} {
		if s, typ := tt.v.String(), tt.v.Type(); s != tt.str || typ != tt.typ {
			t.Errorf("%T: String %q, Type %q; want %q, %q", tt.v, s, typ, tt.str, tt.typ)
		}
	}
}
