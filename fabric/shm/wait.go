//go:build linux

package shm

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/fabric"
)

// sleepSlice bounds one futex sleep. Every event a waiter cares about rings
// its doorbell, so this is only a safety net against a lost wake-up.
const sleepSlice = 100 * time.Millisecond

// wakeSlice is the same safety net for a sleep on the process's eventfd,
// longer because it is a runtime timer kept armed: with 100 ms, a 256-rank
// coll's np=256 Allreduce on 2 CPUs took 34-41 s against 30-34 s with 10 s
// (see wake.sleep, which moves the timer only when half of it is gone).
const wakeSlice = 10 * time.Second

// checkEvery is how many spins pass between looks at the clock and at stop.
const checkEvery = 64

// shortSpin is how long every wait spins before it looks at where the peer
// runs: long enough for a running peer's reply to a small message.
const shortSpin = time.Microsecond

// goschedEvery is how often a yielding waiter calls runtime.Gosched, which
// lets other goroutines of this process run on this P but also wakes an
// idle P's thread (a futex wake) every time; in between it only calls
// sched_yield, which yields the CPU to other threads.
const goschedEvery = 20 * time.Microsecond

// crowded reports whether a pair dialed with h is on a crowded host
// (fabric.Hint.Crowded): then a waiter spins only for shortSpin and sleeps
// in the kernel without yielding first, because with that many ranks the
// one it waits for is almost never running, and every spin or sched_yield
// takes CPU time from it. (At 256 ranks on 2 CPUs, spinning and yielding
// put a small Allreduce at about 200 ms; see the commit that added this.)
func crowded(h fabric.Hint) bool { return h.Crowded() }

// noCPU is the value of a CPU word nobody has written yet.
const noCPU = 1<<32 - 1

// waiter is the waiting policy of one side of a Conn. mine and peer point
// to the CPU words of the two sides in the mapping: a waiter that has spun
// for shortSpin (not at all if the last look found the peer on its CPU)
// writes the CPU it runs on into mine and compares it with peer, the CPU
// the peer's last waiter ran on. If they are equal, the peer
// (probably the one it waits for) needs this CPU, and the waiter yields at
// once instead of spinning on (four ranks on two cores); if not, it spins
// up to maxSpin (two ranks on two cores, also with unrelated load, where
// yielding would only hand the CPU to someone else).
type waiter struct {
	maxSpin, yield time.Duration
	mine, peer     *atomic.Uint32
	shared         bool // the last look found the peer on this CPU: skip the short spin
	// singleP: GOMAXPROCS was 1 when the Conn was made (a rank bound to
	// one CPU). A spinning goroutine then calls runtime.Gosched now and
	// then, or a goroutine of this process that the wait depends on (a
	// Sendrecv's send) would not run until the spin ends.
	singleP bool
	// wake is this process's wake-up eventfd, nil without one: a waiter
	// that can take it sleeps on it rather than in futex(2) (see wake).
	wake *wake
}

// getcpu returns the CPU the calling thread runs on.
func getcpu() uint32 {
	cpu := uint32(noCPU)
	_, _, _ = unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0)
	return cpu
}

// await returns nil once ready() is true, or stop's error once stop()
// returns one while ready() is still false. It spins, yields, then sleeps
// on d (see waiter and the package doc). Whoever makes ready true must
// store first and then call notify on its door to d's bell.
//
// If ctx is not nil, its cancellation rings d so that a sleeping await
// notices at once; stop must then report ctx.Err(). Waits that must not be
// cut short by the caller's context pass a nil ctx.
func (w *waiter) await(ctx context.Context, d door, ready func() bool, stop func() error) error {
	return w.wait(ctx, d, ready, stop, false)
}

// wait is await when long is false. With long, it is for an event that
// is not expected within microseconds, such as the answer to a request
// that copies a megabyte: it sleeps on d at once, without spinning or
// yielding first, so that the CPU goes to the work it waits for. On a host
// with no idle CPU, two ranks that each wait for an object-store engine
// to copy 1 MiB for them took that CPU from the engine's copies by
// spinning and yielding.
func (w *waiter) wait(ctx context.Context, d door, ready func() bool, stop func() error, long bool) error {
	if ready() {
		return nil
	}
	check := func() (bool, error) {
		if err := stop(); err != nil {
			if ready() { // the event and the stop raced; the event wins
				return true, nil
			}
			return true, err
		}
		return false, nil
	}
	if !long {
		if end, err := w.busy(ready, check); end {
			return err
		}
	}
	return w.sleep(ctx, d, ready, check)
}

// busy is a wait's first phases: it spins, then yields the processor, for
// as long as the waiter's policy says, and reports whether the wait ended
// (with check's error, if that ended it).
func (w *waiter) busy(ready func() bool, check func() (bool, error)) (bool, error) {
	// spin re-reads until ready, stop, or d has passed since start.
	spin := func(start time.Time, d time.Duration) (bool, error) {
		for i := 1; ; i++ {
			if ready() {
				return true, nil
			}
			if i%checkEvery != 0 {
				continue
			}
			if end, err := check(); end {
				return true, err
			}
			elapsed := time.Since(start)
			if elapsed >= d {
				return false, nil
			}
			// Not in the first microsecond, which a small message's
			// answer usually takes: Gosched polls the network (an
			// epoll_wait) when goroutines wait on sockets.
			if w.singleP && elapsed >= shortSpin {
				runtime.Gosched()
			}
		}
	}

	start := time.Now()
	short := min(shortSpin, w.maxSpin)
	if w.shared {
		short = 0
	}
	if end, err := spin(start, short); end {
		return true, err
	}
	cpu := getcpu()
	w.mine.Store(cpu)
	w.shared = w.peer.Load() == cpu
	if !w.shared && w.maxSpin > shortSpin {
		if end, err := spin(start, w.maxSpin); end {
			return true, err
		}
	}
	if w.yield <= 0 {
		return false, nil
	}
	start = time.Now()
	lastGosched := start
	for {
		now := time.Now()
		if now.Sub(lastGosched) >= goschedEvery {
			runtime.Gosched()
			lastGosched = now
		}
		schedYield()
		if ready() {
			return true, nil
		}
		if end, err := check(); end {
			return true, err
		}
		if now.Sub(start) >= w.yield {
			return false, nil
		}
	}
}

// sleep is a wait's last phase: it sleeps on d until ready() or check
// ends the wait, ringing d when ctx ends.
func (w *waiter) sleep(ctx context.Context, d door, ready func() bool, check func() (bool, error)) error {
	if ctx != nil && ctx.Done() != nil {
		fired := make(chan struct{})
		stopAfter := context.AfterFunc(ctx, func() {
			d.ring()
			close(fired)
		})
		defer func() {
			if !stopAfter() {
				<-fired // d's bell may live in memory that the caller unmaps next
			}
		}()
	}
	b := d.b
	for {
		// Take the process's eventfd if no other goroutine sleeps on it;
		// announce it before the sleeper count (see bell).
		onWake := w.wake.acquire()
		if onWake {
			b.wake.Store(1)
		}
		b.sleepers.Add(1)
		seq := b.seq.Load()
		done, err := false, error(nil)
		if ready() {
			done = true
		} else if end, cerr := check(); end {
			done, err = true, cerr
		} else if onWake {
			w.wake.sleep(wakeSlice)
		} else {
			futexSleep(&b.seq, seq, sleepSlice)
		}
		b.sleepers.Add(^uint32(0))
		if onWake {
			b.wake.Store(0)
			w.wake.release()
		}
		if done {
			return err
		}
	}
}
