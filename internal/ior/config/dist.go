package config

import (
	"errors"
	"time"

	"github.com/hpcbench/hpcbench/internal/distribution"
)

// The distribution flags, hpcbench's own (IOR has neither): --interval,
// the length of the archive's throughput intervals, and
// --until-steady[=WINDOW,TOLERANCE], which ends each rank's phase once
// its throughput is steady (internal/distribution).

// SeriesInterval returns --interval, or distribution.DefaultInterval when it was
// not given.
func (o *Options) SeriesInterval() time.Duration {
	if o.Interval > 0 {
		return o.Interval
	}
	return distribution.DefaultInterval
}

// validateDist checks --interval, --until-steady and what they cannot be
// combined with.
func (o *Options) validateDist() error {
	if o.IntervalSet {
		if err := distribution.CheckInterval(o.Interval); err != nil {
			return err
		}
	}
	if !o.UntilSteady.On() {
		return nil
	}
	if _, err := o.UntilSteady.Intervals(o.SeriesInterval()); err != nil {
		return err
	}
	switch {
	case o.MinTimeDuration > 0:
		return errors.New("--until-steady with -O minTimeDuration: one ends a phase as soon as its throughput is steady, " +
			"the other repeats the access until a time has passed; choose one")
	case o.StoneWallingWearOutIterations > 0:
		return errors.New("--until-steady with -O stoneWallingWearOutIterations: that directive fixes the transfer count " +
			"of the read-back; --until-steady would cut it short")
	}
	return nil
}
