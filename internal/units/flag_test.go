package units_test

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/internal/units"
)

var _ pflag.Value = (*units.SizeFlag)(nil)

func TestSizeFlag(t *testing.T) {
	t.Parallel()
	var o struct{ BlockSize, Transfer int64 }
	o.BlockSize = units.MiB // default
	fs := pflag.NewFlagSet("ior", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.VarP((*units.SizeFlag)(&o.BlockSize), "block-size", "b", "bytes per task")
	fs.VarP((*units.SizeFlag)(&o.Transfer), "transfer-size", "t", "bytes per transfer")

	if got, want := fs.Lookup("block-size").DefValue, "1m"; got != want {
		t.Errorf("default shown as %q, want %q", got, want)
	}
	if err := fs.Parse([]string{"-b", "4g", "--transfer-size=256KiB"}); err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got, want := o.BlockSize, 4*units.GiB; got != want {
		t.Errorf("BlockSize = %d, want %d", got, want)
	}
	if got, want := o.Transfer, 256*units.KiB; got != want {
		t.Errorf("Transfer = %d, want %d", got, want)
	}

	err := fs.Parse([]string{"-t", "1.5m"})
	if err == nil {
		t.Fatal("Parse(-t 1.5m) succeeded, want error")
	}
	for _, want := range []string{"transfer-size", `"1.5m"`, "fractions"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if !strings.Contains(fs.FlagUsages(), "--block-size size") {
		t.Errorf("usage does not name the value type:\n%s", fs.FlagUsages())
	}
}

func TestSizeFlagZeroDefaultHidden(t *testing.T) {
	t.Parallel()
	var n int64
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Var((*units.SizeFlag)(&n), "size", "a size")
	if u := fs.FlagUsages(); strings.Contains(u, "default") {
		t.Errorf("zero default printed: %q", u)
	}
}
