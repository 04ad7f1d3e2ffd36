package aiori

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// Options are a backend's own settings. Each backend registers its flags
// under its lower-case name ("--posix.odirect", "--dummy.delay-xfer"), as
// IOR does, so the options of every backend can be parsed from one command
// line whichever backend is chosen.
type Options interface {
	// AddFlags registers the options on fs, each named "<backend>.<opt>".
	AddFlags(fs *pflag.FlagSet)
	// Validate reports the first invalid setting as an error naming the
	// flag and the accepted range.
	Validate() error
}

// Env is what a backend learns about the job when it is made.
type Env struct {
	// Rank and Size place this process in the job.
	Rank, Size int
	// Comm reaches the job's ranks, for backends that share state
	// between them (DFS: the engine's address). New and Close are then
	// called on every rank of the job at once, as IOR calls a backend's
	// initialize and finalize. Nil for a backend made outside a job.
	Comm Comm
	// Context bounds what New and Close wait for, and the life of what
	// the backend starts (DFS: an engine); nil is context.Background().
	Context context.Context
	// Hosts names every rank's host, in rank order, as the job gathered
	// them (run.Record.RankHosts), for backends that start something per
	// host (DFS: an engine on each). Nil when unknown: every rank is then
	// taken to be on one host.
	Hosts []string
}

// Comm is the part of the job's communicator a backend may use.
type Comm interface {
	// Rank and Size place this rank in the job.
	Rank() int
	Size() int
	// Barrier returns once every rank has entered it.
	Barrier(ctx context.Context) error
	// Bcast copies root's buf into every rank's buf.
	Bcast(ctx context.Context, buf []byte, root int) error
}

// Entry is one backend of a Registry.
type Entry struct {
	// Name selects the backend (-a POSIX); matched without regard to case.
	Name string
	// Aliases are legacy names that select it too.
	Aliases []string
	// Metadata says whether the backend implements Metadata, so mdtest
	// can refuse the others before it makes one.
	Metadata bool
	// NewOptions returns the backend's options with their defaults.
	NewOptions func() Options
	// New makes a backend from validated options.
	New func(opts Options, env Env) (Backend, error)
}

// Registry is an ordered set of backends; the first is the default.
type Registry struct {
	entries []Entry
}

// NewRegistry returns a registry of entries in the order given. It fails
// when an entry lacks a name or a constructor, or when two names or
// aliases collide without regard to case.
func NewRegistry(entries ...Entry) (*Registry, error) {
	seen := make(map[string]bool)
	for i, e := range entries {
		if e.Name == "" || e.New == nil || e.NewOptions == nil {
			return nil, fmt.Errorf("aiori: registry entry %d: name, New and NewOptions are required", i)
		}
		for _, n := range append([]string{e.Name}, e.Aliases...) {
			k := strings.ToLower(n)
			if seen[k] {
				return nil, fmt.Errorf("aiori: registry: backend name %q registered twice", n)
			}
			seen[k] = true
		}
	}
	return &Registry{entries: append([]Entry(nil), entries...)}, nil
}

// Lookup returns the entry whose name or alias is name, in any case.
func (r *Registry) Lookup(name string) (Entry, bool) {
	for _, e := range r.entries {
		if strings.EqualFold(e.Name, name) {
			return e, true
		}
		for _, a := range e.Aliases {
			if strings.EqualFold(a, name) {
				return e, true
			}
		}
	}
	return Entry{}, false
}

// Default returns the first entry; ok is false for an empty registry.
func (r *Registry) Default() (e Entry, ok bool) {
	if len(r.entries) == 0 {
		return Entry{}, false
	}
	return r.entries[0], true
}

// Entries returns the entries in registry order.
func (r *Registry) Entries() []Entry {
	return append([]Entry(nil), r.entries...)
}

// Names returns the backend names in registry order, for help and errors.
func (r *Registry) Names() []string {
	names := make([]string, len(r.entries))
	for i, e := range r.entries {
		names[i] = e.Name
	}
	return names
}
