// Package clock is the clock the I/O benchmarks (ior, mdtest) time their
// phases with, and their interruptible sleep: one home, so that both read
// the same clock the same way.
package clock

import (
	"context"
	"time"
)

// epoch is where Seconds counts from: the same on every process of a
// host, and recent, so that a float64 of seconds keeps a few tens of
// nanoseconds of precision (seconds since 1970 keep only half a
// microsecond, and a fast phase could last 0 s).
func epoch() time.Time { return time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC) }

// Seconds returns the wall clock in seconds since 2025-01-01 UTC:
// readings of two processes of one host compare, as IOR's and mdtest's
// MPI_Wtime-based timings need.
func Seconds() float64 { return time.Since(epoch()).Seconds() }

// Sleep waits for d, or until ctx ends (its error then). d <= 0 returns
// at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
