package posix

import "fmt"

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
	// BasePages keeps IOR's transfer buffer in base pages with O_DIRECT,
	// as IOR allocates it (--posix.basepages). By default an O_DIRECT
	// buffer of aiori.HugeBufferMin or more is in transparent huge pages
	// (aiori.HugeBuffer), which the device reads into and writes from in
	// far fewer segments.
	BasePages bool
}

// DefaultOptions returns the defaults: page-cached I/O without locks, as
// IOR's POSIX backend.
func DefaultOptions() *Options { return &Options{} }

// AddFlags registers --posix.odirect and --posix.rangelocks on fs, with
// IOR's help texts, and hpcbench's own --posix.basepages.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.ODirect, "posix.odirect", o.ODirect, "Direct I/O Mode (O_DIRECT; needs 4 KiB-aligned transfers)")
	fs.BoolVar(&o.RangeLocks, "posix.rangelocks", o.RangeLocks, "Use range locks (read locks for read ops)")
	fs.BoolVar(&o.BasePages, "posix.basepages", o.BasePages, "ior with O_DIRECT: keep the transfer buffer in base pages, as IOR does (default: transfers of 64 KiB and more go from transparent huge pages, which the device takes in far fewer segments; mdtest's buffers are always in base pages)")
}

// Validate accepts every combination: the options are switches.
func (o *Options) Validate() error { return nil }

// DirectAlign is the alignment O_DIRECT asks of offsets and lengths: a
// page, which covers every logical block size in use.
const DirectAlign = 4096

// CheckTransfer refuses, with --posix.odirect, a transfer or block size
// that is not a multiple of DirectAlign: the first write would fail
// (EINVAL) after the header, leaving the file behind.
func (o *Options) CheckTransfer(block, transfer int64) error {
	if !o.ODirect || (transfer%DirectAlign == 0 && block%DirectAlign == 0) {
		return nil
	}
	return fmt.Errorf("--posix.odirect: -t %d and -b %d: O_DIRECT needs multiples of %d bytes", transfer, block, DirectAlign)
}
