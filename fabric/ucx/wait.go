package ucx

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Waiting: the goroutine that waits for a request drives the worker's
// progress itself (no progress thread), as ucx_perftest does. It polls
// busily for spinFor, then yields the CPU between polls (sched_yield, for
// a peer rank on the same CPU) until yieldFor, then naps, from minNap
// doubling to maxNap, so that an idle rank does not take a CPU. It looks
// at its context every checkEvery polls. spinFor is short because on a
// loaded host the scheduler puts the two ends of a ping-pong on one CPU
// (here: another job took the other CPU whole), and then every message
// waits the whole spin: 8 B ping-pongs whose p50 was 56-63 µs with 50 µs
// of spin took 13-18 µs with 10 µs (scratch lat.sh, UCX_TLS=posix,self),
// and 0.43-0.49 µs either way when the ends ran apart. Shorter (3 µs)
// made it 6-8 µs there, but yielded in the middle of 64 KiB transfers.
const (
	spinFor    = 10 * time.Microsecond
	yieldFor   = time.Millisecond
	minNap     = 10 * time.Microsecond
	maxNap     = time.Millisecond
	checkEvery = 16
)

// waiter is one wait's progress through that policy.
type waiter struct {
	polls   int
	start   time.Time
	nap     time.Duration
	singleP bool // GOMAXPROCS is 1: Gosched now and then so that the process's other goroutines run
	// patient waits nap from the start: a listener's, for a hello that
	// may not come for minutes.
	patient bool
	// spin is how long this wait spins before it yields (spinFor, or a
	// Conn's adapted budget: see Conn.adapt); yields counts its yields.
	spin   time.Duration
	yields int
}

// newWaiter starts a wait of a worker made when GOMAXPROCS was 1 or not
// (singleP: asking the runtime each time costs a lock a message).
func newWaiter(singleP bool) waiter {
	return waiter{singleP: singleP, spin: spinFor}
}

// poll counts a poll that found nothing to do and reports true every
// checkEvery polls: a look, when the caller checks its context and its
// connection's state and then calls pause. It never blocks, so the caller
// may hold the worker's lock.
func (w *waiter) poll() bool {
	w.polls++
	if w.polls%checkEvery != 0 {
		return false
	}
	if w.start.IsZero() {
		w.start = time.Now()
	}
	return true
}

// busy notes that the worker's progress did something: the wait is young
// again (waiting for a peer that is sending does not nap). Not for a
// patient wait, which naps on: a listener's progress sees the rank's
// messages go by.
func (w *waiter) busy() {
	if !w.patient {
		w.start, w.nap = time.Time{}, 0
	}
}

// pause follows a look: nothing while the wait is young, then a yield of
// the CPU, then a nap that doubles up to maxNap; a patient wait naps at
// once. The caller must not hold
// the worker's lock (a nap would stop every other goroutine's calls).
func (w *waiter) pause() {
	since := time.Since(w.start)
	switch {
	case w.patient:
		if w.nap == 0 {
			w.nap = minNap
		}
		time.Sleep(w.nap)
		w.nap = min(2*w.nap, maxNap)
	case since < w.spin:
		if w.singleP {
			runtime.Gosched()
		}
	case since < yieldFor:
		if w.singleP {
			runtime.Gosched()
		}
		_, _, _ = unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
		w.yields++
	default:
		if w.nap == 0 {
			w.nap = minNap
		}
		time.Sleep(w.nap)
		w.nap = min(2*w.nap, maxNap)
	}
}

// minSpin is the least spin budget a Conn adapts down to (see Conn.adapt).
const minSpin = time.Microsecond

// long reports whether the wait has gone on past its spinning, when the
// caller may do what costs more than a poll (drain other tags' messages,
// look for a dead peer).
func (w *waiter) long() bool { return !w.start.IsZero() && time.Since(w.start) >= spinFor }
