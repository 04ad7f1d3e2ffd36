// Package clock is the clock the I/O benchmarks (ior, mdtest) time their
// phases with, and their interruptible sleep: one home, so that both read
// the same clock the same way.
package clock

import (
	"context"
	"time"
)

// epochUnixNano is where Seconds counts from, 2025-01-01 00:00 UTC in
// nanoseconds since 1970: the same on every process of a host, and recent,
// so that a float64 of seconds keeps a few tens of nanoseconds of
// precision (seconds since 1970 keep only half a microsecond, and a fast
// phase could last 0 s).
const epochUnixNano = 1735689600 * int64(time.Second)

// Seconds returns the wall clock in seconds since 2025-01-01 UTC:
// readings of two processes of one host compare, as IOR's and mdtest's
// MPI_Wtime-based timings need. It costs one clock reading (it times
// transfers with -O savePerOpDataCSV).
func Seconds() float64 { return float64(time.Now().UnixNano()-epochUnixNano) / 1e9 }

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
