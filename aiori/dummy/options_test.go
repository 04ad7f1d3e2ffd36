package dummy

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestOptionsFlags(t *testing.T) {
	tests := []struct {
		args []string
		want Options
	}{
		{nil, Options{}}, // the defaults: no delays
		{[]string{"--dummy.delay-create=10"}, Options{DelayCreate: 10}},
		{[]string{"--dummy.delay-close", "20"}, Options{DelayClose: 20}},
		{[]string{"--dummy.delay-sync=30"}, Options{DelaySync: 30}},
		{[]string{"--dummy.delay-xfer=40", "--dummy.delay-only-rank0"}, Options{DelayXfer: 40, DelayOnlyRank0: true}},
		{[]string{"--dummy.delay-xfer=-5"}, Options{DelayXfer: -5}}, // parses; Validate refuses it
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
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	DefaultOptions().AddFlags(fs)
	if err := fs.Parse([]string{"--dummy.delay-xfer=1ms"}); err == nil {
		t.Error("--dummy.delay-xfer=1ms parsed; want an error (microseconds, no units)")
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string // the error; "" for none
	}{
		// HAPPY PATH
		{"defaults", Options{}, ""},
		{"all set", Options{DelayCreate: 1, DelayClose: 2, DelaySync: 3, DelayXfer: 4, DelayOnlyRank0: true}, ""},
		{"an hour", Options{DelayXfer: 3600e6}, ""},
		// SAD PATH: each flag is named, with the accepted range
		{"negative create", Options{DelayCreate: -1},
			"--dummy.delay-create: -1 is negative; want microseconds >= 0"},
		{"negative close", Options{DelayClose: -2},
			"--dummy.delay-close: -2 is negative; want microseconds >= 0"},
		{"negative sync", Options{DelaySync: -3},
			"--dummy.delay-sync: -3 is negative; want microseconds >= 0"},
		{"negative xfer", Options{DelayXfer: -5},
			"--dummy.delay-xfer: -5 is negative; want microseconds >= 0"},
		{"first of several", Options{DelayClose: -1, DelayXfer: -5},
			"--dummy.delay-close: -1 is negative; want microseconds >= 0"},
		{"over an hour", Options{DelaySync: 3600e6 + 1},
			"--dummy.delay-sync: 3600000001 is more than an hour; want microseconds <= 3600000000"},
		{"would overflow a Duration", Options{DelayXfer: 1 << 62},
			"--dummy.delay-xfer: 4611686018427387904 is more than an hour; want microseconds <= 3600000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v; want nil", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("Validate() = %v; want %q", err, tt.want)
			}
		})
	}
}
