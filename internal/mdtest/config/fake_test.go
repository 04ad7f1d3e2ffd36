package config

import (
	"errors"
	"fmt"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/aiori"
)

// posixOptions stands in for aiori/posix's options: --posix.odirect.
type posixOptions struct{ ODirect bool }

func (o *posixOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.ODirect, "posix.odirect", false, "direct I/O")
}

func (o *posixOptions) Validate() error { return nil }

// dummyOptions has a value-taking option that Validate checks.
type dummyOptions struct{ DelayCreate int }

func (o *dummyOptions) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.DelayCreate, "dummy.delay-create", 0, "µs per create")
}

func (o *dummyOptions) Validate() error {
	if o.DelayCreate < 0 {
		return fmt.Errorf("--dummy.delay-create must be >= 0 (got %d)", o.DelayCreate)
	}
	return nil
}

// mmapOptions belongs to a backend without metadata support.
type mmapOptions struct{ DontNeed bool }

func (o *mmapOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.DontNeed, "mmap.madv_dont_need", false, "madvise DONTNEED")
}

func (o *mmapOptions) Validate() error { return nil }

// fakeOptions has an option whose Validate fails outside 1..9.
type fakeOptions struct{ X int }

func (o *fakeOptions) AddFlags(fs *pflag.FlagSet) { fs.IntVar(&o.X, "fake.x", 1, "must be 1 to 9") }

func (o *fakeOptions) Validate() error {
	if o.X < 1 || o.X > 9 {
		return fmt.Errorf("--fake.x must be in [1, 9] (got %d)", o.X)
	}
	return nil
}

// badOptions registers a flag that collides with an mdtest option.
type badOptions struct{ b bool }

func (o *badOptions) AddFlags(fs *pflag.FlagSet) { fs.BoolVar(&o.b, "items", false, "collides") }
func (o *badOptions) Validate() error            { return nil }

func newFake(aiori.Options, aiori.Env) (aiori.Backend, error) {
	return nil, errors.New("fake backend: no I/O in config tests")
}

// testRegistry returns POSIX (the default), DUMMY and FAKE (alias
// fake-old), which support mdtest, and MMAP, which does not.
func testRegistry(t testing.TB) *aiori.Registry {
	t.Helper()
	reg, err := aiori.NewRegistry(
		aiori.Entry{Name: "POSIX", Metadata: true, NewOptions: func() aiori.Options { return &posixOptions{} }, New: newFake},
		aiori.Entry{Name: "MMAP", NewOptions: func() aiori.Options { return &mmapOptions{} }, New: newFake},
		aiori.Entry{Name: "DUMMY", Metadata: true, NewOptions: func() aiori.Options { return &dummyOptions{} }, New: newFake},
		aiori.Entry{Name: "FAKE", Aliases: []string{"fake-old"}, Metadata: true,
			NewOptions: func() aiori.Options { return &fakeOptions{X: 1} }, New: newFake},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// registryOf returns a registry of the given entries or fails the test.
func registryOf(t testing.TB, entries ...aiori.Entry) *aiori.Registry {
	t.Helper()
	reg, err := aiori.NewRegistry(entries...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
