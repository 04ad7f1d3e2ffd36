package mmap

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
		{[]string{"--mmap.madv_dont_need"}, Options{MadvDontNeed: true}},
		{[]string{"--mmap.madv_pattern"}, Options{MadvPattern: true}},
		{[]string{"--mmap.madv_pattern", "--mmap.madv_dont_need"}, Options{MadvDontNeed: true, MadvPattern: true}},
		{[]string{"--mmap.madv_pattern=false"}, Options{}},
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
	n := 0
	fs.VisitAll(func(f *pflag.Flag) {
		n++
		if !strings.HasPrefix(f.Name, "mmap.") || f.Usage == "" {
			t.Errorf("flag --%s: want the mmap. namespace and a help text", f.Name)
		}
	})
	if n != 2 {
		t.Errorf("%d flags registered; want 2", n)
	}
	if err := fs.Parse([]string{"--mmap.madv_dont_need=often"}); err == nil {
		t.Error("--mmap.madv_dont_need=often parsed; want an error")
	}
}
