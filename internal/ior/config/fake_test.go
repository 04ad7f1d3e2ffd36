package config

import (
	"errors"
	"fmt"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/aiori"
)

// posixOptions stands in for aiori/posix's options (which may not compile
// yet): --posix.odirect and --posix.rangelocks.
type posixOptions struct {
	ODirect, RangeLocks bool
}

func (o *posixOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.ODirect, "posix.odirect", false, "direct I/O")
	fs.BoolVar(&o.RangeLocks, "posix.rangelocks", false, "range locks")
}

func (o *posixOptions) Validate() error { return nil }

// dummyOptions has a value-taking option.
type dummyOptions struct {
	DelayXfer int
}

func (o *dummyOptions) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.DelayXfer, "dummy.delay-xfer", 0, "µs per transfer")
}

func (o *dummyOptions) Validate() error {
	if o.DelayXfer < 0 {
		return fmt.Errorf("--dummy.delay-xfer must be >= 0 (got %d)", o.DelayXfer)
	}
	return nil
}

// fakeOptions has an option whose Validate fails.
type fakeOptions struct {
	X int
}

func (o *fakeOptions) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.X, "fake.x", 1, "must be 1 to 9")
}

func (o *fakeOptions) Validate() error {
	if o.X < 1 || o.X > 9 {
		return fmt.Errorf("--fake.x must be in [1, 9] (got %d)", o.X)
	}
	return nil
}

// badOptions registers a flag that collides with an IOR option.
type badOptions struct{ b bool }

func (o *badOptions) AddFlags(fs *pflag.FlagSet) { fs.BoolVar(&o.b, "fsync", false, "collides") }
func (o *badOptions) Validate() error            { return nil }

func newFake(aiori.Options, aiori.Env) (aiori.Backend, error) {
	return nil, errors.New("fake backend: no I/O in config tests")
}

// testRegistry returns POSIX (the default), DUMMY and FAKE (alias
// fake-old), with options like the real backends'.
func testRegistry(t testing.TB) *aiori.Registry {
	t.Helper()
	reg, err := aiori.NewRegistry(
		aiori.Entry{Name: "POSIX", NewOptions: func() aiori.Options { return &posixOptions{} }, New: newFake},
		aiori.Entry{Name: "DUMMY", NewOptions: func() aiori.Options { return &dummyOptions{} }, New: newFake},
		aiori.Entry{Name: "FAKE", Aliases: []string{"fake-old"},
			NewOptions: func() aiori.Options { return &fakeOptions{X: 1} }, New: newFake},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
