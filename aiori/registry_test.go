package aiori

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// noOptions is an Options with no flags, for registry entries in tests.
type noOptions struct{}

func (noOptions) AddFlags(*pflag.FlagSet) {}
func (noOptions) Validate() error         { return nil }

// entry returns a complete Entry named name with the given aliases.
func entry(name string, aliases ...string) Entry {
	return Entry{
		Name:       name,
		Aliases:    aliases,
		NewOptions: func() Options { return noOptions{} },
		New:        func(Options, Env) (Backend, error) { return nil, nil },
	}
}

func TestNewRegistryRejects(t *testing.T) {
	tests := []struct {
		name    string
		entries []Entry
		want    string // substring of the error
	}{
		// An entry must be usable.
		{"no name", []Entry{entry("")}, "entry 0: name, New and NewOptions are required"},
		{"no New", []Entry{entry("POSIX"), func() Entry { e := entry("DUMMY"); e.New = nil; return e }()},
			"entry 1: name, New and NewOptions are required"},
		{"no NewOptions", []Entry{func() Entry { e := entry("DUMMY"); e.NewOptions = nil; return e }()},
			"entry 0: name, New and NewOptions are required"},
		// Names and aliases share one case-insensitive namespace.
		{"same name", []Entry{entry("POSIX"), entry("POSIX")}, `"POSIX" registered twice`},
		{"name differs in case", []Entry{entry("POSIX"), entry("posix")}, `"posix" registered twice`},
		{"alias shadows a name", []Entry{entry("POSIX"), entry("MMAP", "Posix")}, `"Posix" registered twice`},
		{"alias shadows an alias", []Entry{entry("A", "old"), entry("B", "OLD")}, `"OLD" registered twice`},
		{"alias repeats its own name", []Entry{entry("DUMMY", "dummy")}, `"dummy" registered twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRegistry(tt.entries...)
			if err == nil {
				t.Fatalf("NewRegistry = %v, nil; want an error containing %q", r.Names(), tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewRegistry error = %q; want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestRegistryLookup(t *testing.T) {
	r, err := NewRegistry(entry("POSIX"), entry("MMAP"), entry("DUMMY", "Fake", "NOOP"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		want   string // Entry.Name; "" when the lookup must fail
		wantOK bool
	}{
		{"POSIX", "POSIX", true},
		{"posix", "POSIX", true}, // case does not matter
		{"PoSiX", "POSIX", true},
		{"mmap", "MMAP", true},
		{"DUMMY", "DUMMY", true},
		{"fake", "DUMMY", true}, // an alias, in another case
		{"NOOP", "DUMMY", true},
		{"", "", false},
		{"POSIX ", "", false}, // no trimming
		{"POS", "", false},    // no prefix matching
		{"MPIIO", "", false},
	}
	for _, tt := range tests {
		e, ok := r.Lookup(tt.name)
		if ok != tt.wantOK || e.Name != tt.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tt.name, e.Name, ok, tt.want, tt.wantOK)
		}
	}
}

func TestRegistryOrderAndDefault(t *testing.T) {
	in := []Entry{entry("POSIX"), entry("MMAP"), entry("DUMMY")}
	r, err := NewRegistry(in...)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"POSIX", "MMAP", "DUMMY"}
	if got := r.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v; want %v", got, want)
	}
	var got []string
	for _, e := range r.Entries() {
		got = append(got, e.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Entries() names = %v; want %v", got, want)
	}
	if d, ok := r.Default(); !ok || d.Name != "POSIX" {
		t.Errorf("Default() = %q, %v; want POSIX, true", d.Name, ok)
	}

	// The registry keeps its own copy: changing the caller's slice, or the
	// slices it returns, changes nothing.
	in[0].Name = "CHANGED"
	r.Entries()[1].Name = "CHANGED"
	r.Names()[2] = "CHANGED"
	if got := r.Names(); !slices.Equal(got, want) {
		t.Errorf("after changing returned slices, Names() = %v; want %v", got, want)
	}
}

func TestRegistryEmpty(t *testing.T) {
	r, err := NewRegistry()
	if err != nil {
		t.Fatalf("NewRegistry() = %v; want an empty registry", err)
	}
	if e, ok := r.Default(); ok {
		t.Errorf("Default() of an empty registry = %q, true; want false", e.Name)
	}
	if _, ok := r.Lookup("POSIX"); ok {
		t.Error("Lookup in an empty registry succeeded")
	}
	if n := len(r.Names()); n != 0 {
		t.Errorf("len(Names()) = %d; want 0", n)
	}
}
