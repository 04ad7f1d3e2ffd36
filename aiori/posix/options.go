package posix

import "github.com/spf13/pflag"

// Options are the POSIX backend's settings, IOR's --posix.* flags.
type Options struct {
	// ODirect opens every file with O_DIRECT, bypassing the page cache
	// (--posix.odirect). Buffers, offsets and lengths must then be
	// multiples of aiori.Align; aiori.AlignedBuffer makes such buffers.
	ODirect bool
	// RangeLocks takes an open-file-description lock (fcntl F_OFD_SETLKW)
	// on the bytes of each transfer while it runs, a read lock for reads
	// and a write lock for writes, and releases it afterwards
	// (--posix.rangelocks). Two more system calls per transfer.
	RangeLocks bool
}

// DefaultOptions returns the defaults: page-cached I/O without locks, as
// IOR's POSIX backend.
func DefaultOptions() *Options { return &Options{} }

// AddFlags registers --posix.odirect and --posix.rangelocks on fs, with
// IOR's help texts.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.ODirect, "posix.odirect", o.ODirect, "Direct I/O Mode (O_DIRECT; needs 4 KiB-aligned transfers)")
	fs.BoolVar(&o.RangeLocks, "posix.rangelocks", o.RangeLocks, "Use range locks (read locks for read ops)")
}

// Validate accepts every combination: both options are switches.
func (o *Options) Validate() error { return nil }
