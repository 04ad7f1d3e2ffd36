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

// SettleTime is how long Settle spins before a timed phase: the Go
// runtime's sysmon thread, woken when a process that slept wakes up,
// polls every 20 µs (about 70 µs with the timer's slack) for 50 rounds,
// then doubles its sleep; 6 ms takes it past the rounds that cost a timed
// loop the most.
const SettleTime = 6 * time.Millisecond

// Settle spins on the clock for d, with no system call and no sleep, so
// that a rank that slept in the barrier before a timed phase (a wait
// longer than the transport's spin and yield) starts the phase as an MPI
// rank would, which spins in MPI_Barrier: its runtime's sysmon, which that
// sleep's wake-up set polling every 20 µs, has backed off by then instead
// of taking the CPU from the timed loop of this rank and of others on a
// full host. Measured (2 ranks, -b 8m -t 4k, 12 interleaved rounds against
// IOR C, medians of pair ratios): writes went from 0.80 to 1.06 of IOR's
// bandwidth and the close column, the ranks' spread at the end, from 1.27
// ms to 0.11 ms (IOR's 0.05 ms).
func Settle(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

// StartBarrier is the barrier a timed phase of ior or mdtest starts
// from, whose ranks should leave it together and awake, as from
// MPI_Barrier, which spins: barrier gathers the ranks; on the wall clock
// (wall), each then spins SettleTime and barrier, among ranks that are
// running, releases them within a message's latency. On a test's clock it
// is barrier alone.
func StartBarrier(ctx context.Context, barrier func(context.Context) error, wall bool) error {
	if err := barrier(ctx); err != nil || !wall {
		return err
	}
	Settle(SettleTime)
	return barrier(ctx)
}
