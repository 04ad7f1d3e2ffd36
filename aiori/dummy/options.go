package dummy

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Options are the DUMMY backend's settings, IOR's --dummy.* flags. Delays
// are in microseconds; zero means none.
type Options struct {
	// DelayCreate is slept in every Create and Mknod (--dummy.delay-create).
	DelayCreate int64
	// DelayClose is slept in every File.Close (--dummy.delay-close).
	DelayClose int64
	// DelaySync is slept in every Backend.Sync, mdtest's -Y
	// (--dummy.delay-sync). File.Fsync does not sleep, as in IOR.
	DelaySync int64
	// DelayXfer is slept in every WriteAt and ReadAt (--dummy.delay-xfer).
	DelayXfer int64
	// DelayOnlyRank0 limits the delays to rank 0 (Env.Rank), so that one
	// slow rank can be simulated (--dummy.delay-only-rank0).
	DelayOnlyRank0 bool
}

// DefaultOptions returns the defaults: no delays.
func DefaultOptions() *Options { return &Options{} }

// AddFlags registers the --dummy.* flags on fs, with IOR's help texts.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.Int64Var(&o.DelayCreate, "dummy.delay-create", o.DelayCreate, "Delay per create in usec")
	fs.Int64Var(&o.DelayClose, "dummy.delay-close", o.DelayClose, "Delay per close in usec")
	fs.Int64Var(&o.DelaySync, "dummy.delay-sync", o.DelaySync, "Delay for sync in usec")
	fs.Int64Var(&o.DelayXfer, "dummy.delay-xfer", o.DelayXfer, "Delay per xfer in usec")
	fs.BoolVar(&o.DelayOnlyRank0, "dummy.delay-only-rank0", o.DelayOnlyRank0, "Delay only Rank0")
}

// maxDelay is the largest delay accepted, an hour in microseconds: far
// beyond any sensible simulation, and safe from overflow as a Duration.
const maxDelay = 3600 * 1000 * 1000

// Validate reports the first delay that is negative or longer than an
// hour, naming its flag:
//
//	--dummy.delay-xfer: -5 is negative; want microseconds >= 0
func (o *Options) Validate() error {
	for _, d := range []struct {
		flag string
		v    int64
	}{
		{"dummy.delay-create", o.DelayCreate},
		{"dummy.delay-close", o.DelayClose},
		{"dummy.delay-sync", o.DelaySync},
		{"dummy.delay-xfer", o.DelayXfer},
	} {
		switch {
		case d.v < 0:
			return fmt.Errorf("--%s: %d is negative; want microseconds >= 0", d.flag, d.v)
		case d.v > maxDelay:
			return fmt.Errorf("--%s: %d is more than an hour; want microseconds <= %d", d.flag, d.v, maxDelay)
		}
	}
	return nil
}
