package mmap

import "github.com/spf13/pflag"

// Options are the MMAP backend's settings, IOR's --mmap.* flags.
type Options struct {
	// MadvDontNeed advises MADV_DONTNEED on the whole mapping each time a
	// file is mapped (as IOR does, after mmap) and again after each Fsync
	// has written the mapping back, so later accesses fault pages in
	// afresh (--mmap.madv_dont_need). On Linux this drops the mapping's
	// page-table entries, not the page cache; the data stay.
	MadvDontNeed bool
	// MadvPattern advises MADV_RANDOM when Hints.RandomOffset is set and
	// MADV_SEQUENTIAL otherwise, on each mapping (--mmap.madv_pattern).
	MadvPattern bool
}

// DefaultOptions returns the defaults: no advice, as IOR's MMAP backend.
func DefaultOptions() *Options { return &Options{} }

// AddFlags registers --mmap.madv_dont_need and --mmap.madv_pattern on fs,
// with IOR's help texts.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.MadvDontNeed, "mmap.madv_dont_need", o.MadvDontNeed, "Use advise don't need")
	fs.BoolVar(&o.MadvPattern, "mmap.madv_pattern", o.MadvPattern, "Use advise to indicate the pattern random/sequential")
}

// Validate accepts every combination: both options are switches.
func (o *Options) Validate() error { return nil }
