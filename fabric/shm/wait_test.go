//go:build linux

package shm

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testWaiter returns a waiter with the default policy over CPU words of its
// own, and a doorbell.
func testWaiter() (*waiter, *bell) {
	var mine, peer atomic.Uint32
	mine.Store(noCPU)
	peer.Store(noCPU)
	return &waiter{maxSpin: DefaultSpin, yield: DefaultYield, mine: &mine, peer: &peer}, new(bell)
}

func noStop() error { return nil }

// TestAwaitWakes puts a waiter to sleep, then makes its condition true and
// notifies: it must return at once, not at the end of a sleep slice.
func TestAwaitWakes(t *testing.T) {
	retryTiming(t, func() error {
		w, b := testWaiter()
		var flag atomic.Bool
		done := make(chan time.Time, 1)
		go func() {
			_ = w.await(nil, b, flag.Load, noStop)
			done <- time.Now()
		}()
		for b.sleepers.Load() == 0 { // past spinning and yielding
			time.Sleep(time.Millisecond)
		}
		published := w.mine.Load() != noCPU
		set := time.Now()
		flag.Store(true)
		b.notify()
		lat := (<-done).Sub(set)
		switch {
		case !published:
			return errors.New("a waiter past its short spin did not publish its CPU")
		case lat > sleepSlice/2:
			return fmt.Errorf("sleeping waiter returned %v after notify; want a futex wake", lat)
		}
		return nil
	})
}

// TestAwaitCancel checks that cancelling the context wakes a sleeping
// waiter, and that stop's error is returned.
func TestAwaitCancel(t *testing.T) {
	retryTiming(t, func() error {
		w, b := testWaiter()
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			errc <- w.await(ctx, b, func() bool { return false }, ctx.Err)
		}()
		for b.sleepers.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancelled := time.Now()
		cancel()
		err := <-errc
		d := time.Since(cancelled)
		switch {
		case !errors.Is(err, context.Canceled):
			return fmt.Errorf("await after cancel: %v", err)
		case d > sleepSlice/2:
			return fmt.Errorf("await returned %v after cancel; want the doorbell to wake it", d)
		}
		return nil
	})
}

// TestAwaitReadyWinsStop checks that an event that happened before stop
// was noticed is still reported as success.
func TestAwaitReadyWinsStop(t *testing.T) {
	w, b := testWaiter()
	calls := 0
	ready := func() bool { calls++; return calls > 1 } // true from its second call on
	if err := w.await(nil, b, ready, func() error { return errors.New("stopped") }); err != nil {
		t.Fatalf("await = %v, want nil: ready became true before stop was honoured", err)
	}
}

// TestAwaitSharedCPU checks that a waiter whose peer last ran on its CPU
// skips the long spin: with a 1 s Spin it must still be asleep in well
// under a second. The waiting goroutine is pinned to one CPU so that the
// comparison is deterministic.
func TestAwaitSharedCPU(t *testing.T) {
	w, b := testWaiter()
	w.maxSpin, w.yield = time.Second, 0
	var flag atomic.Bool
	started := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			started <- err
			return
		}
		cpu := 0
		for !set.IsSet(cpu) {
			cpu++
		}
		set.Zero()
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			started <- err
			return
		}
		w.peer.Store(uint32(cpu))
		started <- nil
		_ = w.await(nil, b, flag.Load, noStop)
	}()
	if err := <-started; err != nil {
		t.Skipf("pinning a thread: %v", err)
	}
	start := time.Now()
	for b.sleepers.Load() == 0 && time.Since(start) < 5*time.Second {
		time.Sleep(100 * time.Microsecond)
	}
	asleep := time.Since(start)
	flag.Store(true)
	b.notify()
	<-done
	if asleep > 500*time.Millisecond {
		t.Errorf("waiter sharing its CPU with the peer slept only after %v; want it to skip the 1 s spin", asleep)
	}
}
