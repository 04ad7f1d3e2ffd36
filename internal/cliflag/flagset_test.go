package cliflag

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestNewFlagSet(t *testing.T) {
	t.Parallel()
	fs := NewFlagSet("cmd")
	fs.Bool("zz", false, "defined first")
	fs.Bool("aa", false, "defined second")
	var order []string
	fs.VisitAll(func(f *pflag.Flag) { order = append(order, f.Name) })
	if len(order) != 2 || order[0] != "zz" {
		t.Errorf("flags visited in order %q, want definition order", order)
	}
	if err := fs.Parse([]string{"--nope"}); err == nil {
		t.Error("unknown flag accepted")
	}
	if fs.Name() != "cmd" {
		t.Errorf("Name = %q", fs.Name())
	}
}
