package ior

import (
	"fmt"
	"slices"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/dummy"
)

// noFsync is DUMMY whose files cannot fsync, as a backend may say.
func noFsync() aiori.Entry {
	e := dummy.Entry()
	e.Name, e.Aliases = "NOFSYNC", nil
	e.NewOptions = func() aiori.Options { return noOptions{} }
	e.New = func(_ aiori.Options, env aiori.Env) (aiori.Backend, error) {
		b, err := dummy.New(nil, env)
		return noFsyncBackend{b}, err
	}
	return e
}

// noOptions is a backend without options of its own.
type noOptions struct{}

func (noOptions) AddFlags(*pflag.FlagSet) {}
func (noOptions) Validate() error         { return nil }

type noFsyncBackend struct{ aiori.Backend }

func (b noFsyncBackend) Create(p string, f aiori.OpenFlags) (aiori.File, error) {
	file, err := b.Backend.Create(p, f)
	return noFsyncFile{file}, err
}

type noFsyncFile struct{ aiori.File }

func (noFsyncFile) Fsync() error { return fmt.Errorf("nofsync: %w", aiori.ErrNotSupported) }

// TestFsyncNotSupported: -e and -Y on a backend that cannot fsync give
// IOR's warning once and the run goes on; --warningAsErrors fails it.
func TestFsyncNotSupported(t *testing.T) {
	j := runJob(t, 2, "-a NOFSYNC -b 4m -t 1m -w -e -Y -i 2 -o f", true)
	noErrors(t, j)
	want := "WARNING: fsync() not supported in selected backend. Using value of 0."
	if n := len(slices.DeleteFunc(slices.Clone(j.warn), func(s string) bool { return s != want })); n != 1 {
		t.Errorf("warning given %d times, want once: %q", n, j.warn)
	}
	j = runJob(t, 2, "-a NOFSYNC -b 4m -t 1m -w -e --warningAsErrors -o f", true)
	for r, err := range j.errs {
		if err == nil {
			t.Errorf("rank %d: no error under --warningAsErrors", r)
		}
	}
}
