//go:build linux

package shm

import (
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// futex(2) operations. The words live in a MAP_SHARED mapping used by two
// processes, so the private variants (FUTEX_PRIVATE_FLAG) must not be used.
const (
	futexWait = 0
	futexWake = 1
)

// futexSleep blocks while *addr == val, for at most d. It returns early on
// a wake, a signal or a changed value; the caller re-checks its condition.
func futexSleep(addr *atomic.Uint32, val uint32, d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	_, _, _ = unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWait, uintptr(val), uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// futexWakeAll wakes every waiter sleeping on addr.
func futexWakeAll(addr *atomic.Uint32) {
	_, _, _ = unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWake, math.MaxInt32, 0, 0, 0)
}

// schedYield gives the processor to another runnable thread, if any. The
// call is raw: it returns as soon as this thread runs again, and through
// unix.Syscall it would wake the runtime's sysmon thread after the process
// had been idle, which then takes CPU from the ranks for milliseconds (see
// internal/rawio's Conn).
func schedYield() {
	_, _, _ = unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
}

// door is a bell together with the wake-up eventfd of the process whose
// waiter sleeps on it (-1 without one): a waiter sleeps either in futex(2)
// on the bell or in that process's poller on the eventfd (see wake), and
// ringing must reach it in both.
type door struct {
	b  *bell
	fd int
}

// ring wakes everyone sleeping on d, unconditionally.
//
// A bell has one waiter at a time (Send and Recv each hold their own
// lock), so when its one sleeper is on the eventfd FUTEX_WAKE has nobody
// to wake and is skipped: a system call a message on a crowded host. The
// sleeper clears wake only after it stops counting itself, so a count of
// one read after wake=1 is that sleeper, or one that re-checks its
// condition after this ring's store.
func (d door) ring() {
	d.b.seq.Add(1)
	if d.b.wake.Load() != 0 {
		signalFD(d.fd)
		if d.b.sleepers.Load() <= 1 {
			return
		}
	}
	futexWakeAll(&d.b.seq)
}

// notify wakes d's sleepers if there are any. Call it after the store that
// makes a waiter's condition true; see the package doc for why the order
// matters.
func (d door) notify() {
	if d.b.sleepers.Load() != 0 {
		d.ring()
	}
}
