package ioflag

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/units"
)

// posixOptions stands in for aiori/posix's options: --posix.odirect.
type posixOptions struct{ ODirect bool }

func (o *posixOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.ODirect, "posix.odirect", false, "direct I/O")
}

func (o *posixOptions) Validate() error { return nil }

// dummyOptions has a value-taking option.
type dummyOptions struct{ Delay int }

func (o *dummyOptions) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.Delay, "dummy.delay", 0, "µs per call")
}
func (o *dummyOptions) Validate() error { return nil }

// noOptions registers nothing.
type noOptions struct{}

func (noOptions) AddFlags(*pflag.FlagSet) {}
func (noOptions) Validate() error         { return nil }

// badOptions registers a flag that collides with the command's --items.
type badOptions struct{ b bool }

func (o *badOptions) AddFlags(fs *pflag.FlagSet) { fs.BoolVar(&o.b, "items", false, "collides") }
func (o *badOptions) Validate() error            { return nil }

// shortOptions registers a backend flag with a short form.
type shortOptions struct{ b bool }

func (o *shortOptions) AddFlags(fs *pflag.FlagSet) { fs.BoolVarP(&o.b, "short.x", "q", false, "short") }
func (o *shortOptions) Validate() error            { return nil }

// panicOptions registers one name twice, which makes pflag panic.
type panicOptions struct{ a, b bool }

func (o *panicOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.a, "panic.x", false, "first")
	fs.BoolVar(&o.b, "panic.x", false, "again")
}
func (o *panicOptions) Validate() error { return nil }

func newFake(aiori.Options, aiori.Env) (aiori.Backend, error) {
	return nil, errors.New("fake backend: no I/O in ioflag tests")
}

// entry returns a registry entry whose options are made by newOptions.
func entry(name string, newOptions func() aiori.Options, aliases ...string) aiori.Entry {
	return aiori.Entry{Name: name, Aliases: aliases, NewOptions: newOptions, New: newFake}
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

// testRegistry returns POSIX, DUMMY and FAKE (alias fake-old, no options).
func testRegistry(t testing.TB) *aiori.Registry {
	t.Helper()
	return registryOf(t,
		entry("POSIX", func() aiori.Options { return &posixOptions{} }),
		entry("DUMMY", func() aiori.Options { return &dummyOptions{} }),
		entry("FAKE", func() aiori.Options { return noOptions{} }, "fake-old"),
	)
}

// commandFlags returns a command's flag set: --items and -v.
func commandFlags() *pflag.FlagSet {
	fs := cliflag.NewFlagSet("cmd")
	fs.VarP(cliflag.Int64{P: new(int64)}, "items", "n", "items")
	fs.VarPF(cliflag.Count{P: new(int)}, "verbose", "v", "more output").NoOptDefVal = cliflag.CountUp
	return fs
}

func TestDefaultBackend(t *testing.T) {
	t.Parallel()
	posix := entry("POSIX", func() aiori.Options { return &posixOptions{} })
	dummy := entry("DUMMY", func() aiori.Options { return &dummyOptions{} })
	isDummy := func(e aiori.Entry) bool { return e.Name == "DUMMY" }
	never := func(aiori.Entry) bool { return false }
	tests := []struct {
		name   string
		reg    *aiori.Registry
		prefer func(aiori.Entry) bool
		want   string
	}{
		{"first", registryOf(t, posix, dummy), nil, "POSIX"},
		{"preferred", registryOf(t, posix, dummy), isDummy, "DUMMY"},
		{"none preferred", registryOf(t, posix, dummy), never, "POSIX"},
	}
	for _, tt := range tests {
		if e, err := DefaultBackend(tt.reg, tt.prefer); err != nil || e.Name != tt.want {
			t.Errorf("%s: DefaultBackend = %q, %v; want %q", tt.name, e.Name, err, tt.want)
		}
	}
	for name, reg := range map[string]*aiori.Registry{"nil": nil, "empty": {}} {
		if e, err := DefaultBackend(reg, isDummy); !errors.Is(err, ErrNoBackends) || e.Name != "" {
			t.Errorf("%s registry: %q, %v; want ErrNoBackends", name, e.Name, err)
		}
	}
	if got := ErrNoBackends.Error(); got != "no I/O backends registered" {
		t.Errorf("ErrNoBackends = %q", got)
	}
}

func TestAddBackends(t *testing.T) {
	t.Parallel()
	posix := entry("POSIX", func() aiori.Options { return &posixOptions{} })
	tests := []struct {
		name  string
		entry aiori.Entry
		want  string
	}{
		{"colliding", entry("BAD", func() aiori.Options { return &badOptions{} }),
			"backend BAD: option --items is defined twice"},
		{"sharing a flag", entry("POSIX2", func() aiori.Options { return &posixOptions{} }),
			"backend POSIX2: option --posix.odirect is defined twice"},
		{"short form", entry("SHORT", func() aiori.Options { return &shortOptions{} }),
			"backend SHORT: option --short.x has a short form; backend options are long only"},
		{"panicking", entry("PANIC", func() aiori.Options { return &panicOptions{} }),
			"backend PANIC: registering options: PANIC flag redefined: panic.x"},
		{"nil options", entry("NIL", func() aiori.Options { return nil }),
			"backend NIL: NewOptions returned nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := AddBackends(commandFlags(), registryOf(t, posix, tt.entry))
			if b != nil || err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("AddBackends = %v, %v; want an error starting %q", b, err, tt.want)
			}
		})
	}
}

func TestBackendsLookup(t *testing.T) {
	t.Parallel()
	fs := commandFlags()
	b, err := AddBackends(fs, testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	// every backend's options are parsed, whichever is then looked up
	if err := fs.Parse([]string{"--posix.odirect", "--dummy.delay=5", "-n", "3"}); err != nil {
		t.Fatal(err)
	}
	e, opts, ok := b.Lookup("posix")
	if !ok || e.Name != "POSIX" || !opts.(*posixOptions).ODirect {
		t.Errorf("Lookup(posix) = %v, %v, %v", e.Name, opts, ok)
	}
	e, opts, ok = b.Lookup("DUMMY")
	if !ok || e.Name != "DUMMY" || opts.(*dummyOptions).Delay != 5 {
		t.Errorf("Lookup(DUMMY) = %v, %v, %v", e.Name, opts, ok)
	}
	if e, _, ok = b.Lookup("fake-old"); !ok || e.Name != "FAKE" {
		t.Errorf("Lookup(fake-old) = %v, %v", e.Name, ok)
	}
	if e, opts, ok = b.Lookup("nope"); ok || e.Name != "" || opts != nil {
		t.Errorf("Lookup(nope) = %v, %v, %v", e, opts, ok)
	}
}

func TestBackendsUsage(t *testing.T) {
	t.Parallel()
	fs := commandFlags()
	b, err := AddBackends(fs, testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	u := b.Usage(fs, "Options:\n", nil)
	own, modules, _ := strings.Cut(u, "\nModule ")
	for _, want := range []string{"Options:\n", "-n, --items int", "-v, --verbose count"} {
		if !strings.Contains(own, want) {
			t.Errorf("command's section does not contain %q:\n%s", want, u)
		}
	}
	if strings.Contains(own, "posix.") || strings.Contains(own, "dummy.") {
		t.Errorf("backend options listed among the command's:\n%s", u)
	}
	if !strings.HasPrefix(u, "Options:\n  -n, --items") || strings.Index(u, "--items") > strings.Index(u, "--verbose") {
		t.Errorf("header or flag order wrong:\n%s", u)
	}
	wantModules := "POSIX:\n      --posix.odirect   direct I/O\n\nModule DUMMY:\n      --dummy.delay int   µs per call\n"
	if modules != wantModules {
		t.Errorf("modules %q, want %q (FAKE, without options, left out)", modules, wantModules)
	}
	// A command shows only the backends it accepts (mdtest: those with
	// metadata calls).
	u = b.Usage(fs, "Options:\n", func(e aiori.Entry) bool { return e.Name != "POSIX" })
	if _, modules, _ = strings.Cut(u, "\nModule "); modules != "DUMMY:\n      --dummy.delay int   µs per call\n" {
		t.Errorf("modules shown by a filter: %q, want DUMMY's only", modules)
	}
}

func TestFlagError(t *testing.T) {
	t.Parallel()
	// unknown names a refused short option and a refused long one.
	unknown := func(name string, short bool) error {
		switch {
		case short && name == "q":
			return errors.New("-q: refused")
		case !short && name == "gpu":
			return fmt.Errorf("--%s: refused", name)
		}
		return nil
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-n", "1.5"}, `-n: "1.5" is not a whole number: want digits, optionally with a k, m, g, t or p suffix`},
		{[]string{"--items=x"}, `-n: "x" is not a whole number: want digits, optionally with a k, m, g, t or p suffix`},
		{[]string{"--dummy.delay=x"}, `--dummy.delay: "x" is not a whole number: want digits`},
		{[]string{"-n"}, "-n: needs a value"},
		{[]string{"--items"}, "-n: needs a value"},
		{[]string{"--dummy.delay"}, "--dummy.delay: needs a value"},
		{[]string{"-q"}, "-q: refused"},
		{[]string{"-vq"}, "-q: refused"},
		{[]string{"--gpu"}, "--gpu: refused"},
		{[]string{"--q"}, `unknown option "--q"`},
		{[]string{"-x"}, `unknown option "-x"`},
		{[]string{"-\n"}, "unknown option \"-\\n\""},
		{[]string{"--foo=1"}, `unknown option "--foo"`},
		{[]string{"--posix.nope"}, `unknown option "--posix.nope"`},
		{[]string{"--mpiio.hints"}, `unknown option "--mpiio.hints": no backend "mpiio" in this build (have POSIX, DUMMY, FAKE)`},
		{[]string{"---x"}, `bad option syntax "---x"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			reg := testRegistry(t)
			fs := commandFlags()
			if _, err := AddBackends(fs, reg); err != nil {
				t.Fatal(err)
			}
			err := fs.Parse(tt.args)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded", tt.args)
			}
			if got := FlagError(err, reg, unknown); got.Error() != tt.want {
				t.Errorf("FlagError(%v) = %q, want %q", err, got, tt.want)
			}
		})
	}
	// without unknown, and an error pflag did not make
	reg := testRegistry(t)
	fs := commandFlags()
	if err := FlagError(fs.Parse([]string{"-q"}), reg, nil); err == nil || err.Error() != `unknown option "-q"` {
		t.Errorf("FlagError without unknown: %v", err)
	}
	other := errors.New("other")
	if err := FlagError(other, reg, unknown); err != other {
		t.Errorf("FlagError(other) = %v", err)
	}
}

func TestFlagLabel(t *testing.T) {
	t.Parallel()
	fs := commandFlags()
	fs.Bool("dryRun", false, "")
	for name, want := range map[string]string{"items": "-n", "verbose": "-v", "dryRun": "--dryRun"} {
		if got := cliflag.FlagLabel(fs.Lookup(name)); got != want {
			t.Errorf("cliflag.FlagLabel(%s) = %q, want %q", name, got, want)
		}
	}
}

// TestInvalidValueChain checks that FlagError keeps the value's error
// reachable for errors.Is.
func TestInvalidValueChain(t *testing.T) {
	t.Parallel()
	fs := commandFlags()
	err := FlagError(fs.Parse([]string{"-n", "99999999999999999999"}), testRegistry(t), nil)
	if !errors.Is(err, units.ErrRange) {
		t.Errorf("error %v does not wrap units.ErrRange", err)
	}
}
