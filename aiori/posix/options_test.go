package posix

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestOptionsFlags(t *testing.T) {
	tests := []struct {
		args []string
		want Options
	}{
		{nil, Options{}}, // the defaults
		{[]string{"--posix.odirect"}, Options{ODirect: true}},
		{[]string{"--posix.rangelocks"}, Options{RangeLocks: true}},
		{[]string{"--posix.odirect", "--posix.rangelocks"}, Options{ODirect: true, RangeLocks: true}},
		{[]string{"--posix.odirect=false"}, Options{}},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Errorf("Parse(%q): %v", tt.args, err)
			continue
		}
		if *o != tt.want {
			t.Errorf("Parse(%q) = %+v; want %+v", tt.args, *o, tt.want)
		}
		if err := o.Validate(); err != nil {
			t.Errorf("Validate after %q: %v", tt.args, err)
		}
	}
}

func TestOptionsFlagNames(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	DefaultOptions().AddFlags(fs)
	fs.VisitAll(func(f *pflag.Flag) {
		if !strings.HasPrefix(f.Name, "posix.") {
			t.Errorf("flag --%s is not in the posix. namespace", f.Name)
		}
		if f.Usage == "" {
			t.Errorf("flag --%s has no help text", f.Name)
		}
	})
	for _, name := range []string{"posix.odirect", "posix.rangelocks"} {
		if fs.Lookup(name) == nil {
			t.Errorf("flag --%s is not registered", name)
		}
	}
	if err := fs.Parse([]string{"--posix.odirect=maybe"}); err == nil {
		t.Error("--posix.odirect=maybe parsed; want an error")
	}
}
