package ioflag

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/cliflag"
)

// ErrNoBackends reports a nil or empty registry.
var ErrNoBackends = errors.New("no I/O backends registered")

// DefaultBackend returns the backend a command line uses without -a: the
// first of reg's entries for which prefer is true, or reg's first entry
// (its default) when none is or prefer is nil. A nil or empty registry is
// ErrNoBackends.
func DefaultBackend(reg *aiori.Registry, prefer func(aiori.Entry) bool) (aiori.Entry, error) {
	if reg == nil {
		return aiori.Entry{}, ErrNoBackends
	}
	def, ok := reg.Default()
	if !ok {
		return aiori.Entry{}, ErrNoBackends
	}
	if prefer != nil {
		for _, e := range reg.Entries() {
			if prefer(e) {
				return e, nil
			}
		}
	}
	return def, nil
}

// Backends are the options of every backend of a registry, registered in
// one flag set by AddBackends so that a command line can set any backend's
// options (--posix.odirect) whichever backend it selects.
type Backends struct {
	reg      *aiori.Registry
	options  map[string]aiori.Options // by Entry.Name
	flags    map[string]bool
	sections []section
}

// section is one backend's flags, for Usage.
type section struct {
	entry aiori.Entry
	fs    *pflag.FlagSet
}

// AddBackends registers the options of every backend of reg in fs, under
// their namespaced names, in registry order. The error names the backend:
// its NewOptions returned nil, its AddFlags panicked (pflag panics on a
// name defined twice), or one of its flags is already in fs or has a short
// form.
func AddBackends(fs *pflag.FlagSet, reg *aiori.Registry) (*Backends, error) {
	b := &Backends{
		reg:     reg,
		options: make(map[string]aiori.Options),
		flags:   make(map[string]bool),
	}
	for _, e := range reg.Entries() {
		if err := b.add(fs, e); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// add registers e's options in fs.
func (b *Backends) add(fs *pflag.FlagSet, e aiori.Entry) (err error) {
	bo := e.NewOptions()
	if bo == nil {
		return fmt.Errorf("backend %s: NewOptions returned nil", e.Name)
	}
	bfs := cliflag.NewFlagSet(e.Name)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("backend %s: registering options: %v", e.Name, r)
		}
	}()
	bo.AddFlags(bfs)
	bfs.VisitAll(func(f *pflag.Flag) {
		switch {
		case err != nil:
		case fs.Lookup(f.Name) != nil:
			err = fmt.Errorf("backend %s: option --%s is defined twice", e.Name, f.Name)
		case f.Shorthand != "":
			err = fmt.Errorf("backend %s: option --%s has a short form; backend options are long only", e.Name, f.Name)
		default:
			fs.AddFlag(f)
			b.flags[f.Name] = true
		}
	})
	b.options[e.Name] = bo
	b.sections = append(b.sections, section{e, bfs})
	return err
}

// Lookup returns the registry entry api names (in any case, or by an
// alias) and that backend's options as the command line set them.
func (b *Backends) Lookup(api string) (aiori.Entry, aiori.Options, bool) {
	e, ok := b.reg.Lookup(api)
	if !ok {
		return aiori.Entry{}, nil, false
	}
	return e, b.options[e.Name], true
}

// Usage returns the help text of fs: header, the command's own flags, then
// the flags of each backend show accepts (every one when show is nil)
// under "Module NAME:", each section as cliflag.Usages writes it.
func (b *Backends) Usage(fs *pflag.FlagSet, header string, show func(aiori.Entry) bool) string {
	own := pflag.NewFlagSet(fs.Name(), pflag.ContinueOnError)
	own.SortFlags = false
	fs.VisitAll(func(f *pflag.Flag) {
		if !b.flags[f.Name] {
			own.AddFlag(f)
		}
	})
	var sb strings.Builder
	sb.WriteString(header)
	sb.WriteString(cliflag.Usages(own))
	for _, s := range b.sections {
		if !s.fs.HasFlags() || show != nil && !show(s.entry) {
			continue
		}
		fmt.Fprintf(&sb, "\nModule %s:\n%s", s.entry.Name, cliflag.Usages(s.fs))
	}
	return sb.String()
}
