//go:build linux

package shm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testWaiter returns a waiter with the default policy over CPU words of its
// own, and a door to a bell of its own. With w, the waiter may sleep on
// that wake-up eventfd, and the door rings it.
func testWaiter(w *wake) (*waiter, door) {
	var mine, peer atomic.Uint32
	mine.Store(noCPU)
	peer.Store(noCPU)
	d := door{b: new(bell), fd: -1}
	if w != nil {
		d.fd = w.fd
	}
	return &waiter{maxSpin: DefaultSpin, yield: DefaultYield, mine: &mine, peer: &peer, wake: w}, d
}

// testWake returns a wake-up eventfd that the test closes at its end.
func testWake(t *testing.T) *wake {
	t.Helper()
	w, err := newWake()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.f.Close() })
	return w
}

func noStop() error { return nil }

// sleepModes are the two ways a waiter sleeps: in futex(2), and on its
// process's wake-up eventfd.
var sleepModes = []struct {
	name string
	wake func(t *testing.T) *wake
}{
	{"futex", func(*testing.T) *wake { return nil }},
	{"eventfd", testWake},
}

// asleep waits until d's bell counts a sleeper, and reports whether that
// sleeper announced the eventfd.
func asleep(d door) bool {
	for d.b.sleepers.Load() == 0 { // past spinning and yielding
		time.Sleep(time.Millisecond)
	}
	return d.b.wake.Load() != 0
}

// TestAwaitWakes puts a waiter to sleep, then makes its condition true and
// notifies: it must return at once, not at the end of a sleep slice, sleep
// on the eventfd exactly when it has one, and leave neither a sleeper
// count nor the eventfd behind. An ordinary wait spins first, long enough
// to publish its CPU; a long one (waiter.wait with long) goes to sleep at
// once: it looks at its condition only twice (on entry, and once
// announced as a sleeper) and never publishes its CPU.
func TestAwaitWakes(t *testing.T) {
	for _, long := range []bool{false, true} {
		for _, m := range sleepModes {
			t.Run(fmt.Sprintf("%s/long=%v", m.name, long), func(t *testing.T) {
				wk := m.wake(t)
				retryTiming(t, func() error {
					w, d := testWaiter(wk)
					var flag atomic.Bool
					var looks atomic.Int64
					ready := func() bool { looks.Add(1); return flag.Load() }
					done := make(chan error, 1)
					go func() { done <- w.wait(nil, d, ready, noStop, long) }()
					onWake := asleep(d)
					before := looks.Load()
					published := w.mine.Load() != noCPU
					set := time.Now()
					flag.Store(true)
					d.notify()
					err := <-done
					lat := time.Since(set)
					switch {
					case err != nil:
						return fmt.Errorf("wait: %v", err)
					case published == long:
						return fmt.Errorf("the waiter published its CPU: %v; want %v (only a spinning waiter does)", published, !long)
					case long && before > 2:
						return fmt.Errorf("the long wait looked %d times before it slept; want 2 (no spinning)", before)
					case onWake != (wk != nil):
						return fmt.Errorf("sleeper announced the eventfd: %v; want %v", onWake, wk != nil)
					case lat > sleepSlice/2:
						return fmt.Errorf("sleeping waiter returned %v after notify; want a wake-up", lat)
					case d.b.sleepers.Load() != 0 || d.b.wake.Load() != 0:
						return fmt.Errorf("after the wait: %d sleepers, wake %d; want 0, 0", d.b.sleepers.Load(), d.b.wake.Load())
					case wk != nil && wk.busy.Load():
						return errors.New("the waiter kept the eventfd after its wait")
					}
					return nil
				})
			})
		}
	}
}

// TestAwaitCancel checks that cancelling the context wakes a sleeping
// waiter, and that stop's error is returned.
func TestAwaitCancel(t *testing.T) {
	for _, m := range sleepModes {
		t.Run(m.name, func(t *testing.T) {
			wk := m.wake(t)
			retryTiming(t, func() error {
				w, d := testWaiter(wk)
				ctx, cancel := context.WithCancel(context.Background())
				errc := make(chan error, 1)
				go func() {
					errc <- w.await(ctx, d, func() bool { return false }, ctx.Err)
				}()
				asleep(d)
				cancelled := time.Now()
				cancel()
				err := <-errc
				dt := time.Since(cancelled)
				switch {
				case !errors.Is(err, context.Canceled):
					return fmt.Errorf("await after cancel: %v", err)
				case dt > sleepSlice/2:
					return fmt.Errorf("await returned %v after cancel; want the doorbell to wake it", dt)
				}
				return nil
			})
		})
	}
}

// TestAwaitSharedWake puts two waiters of one process to sleep on two
// bells: one takes the eventfd, the other sleeps in futex(2) (two readers
// of one eventfd would steal each other's wake-ups), and a notify wakes
// each at once, in either order.
func TestAwaitSharedWake(t *testing.T) {
	wk := testWake(t)
	for _, first := range []int{0, 1} {
		t.Run(fmt.Sprintf("notify-%d-first", first), func(t *testing.T) {
			retryTiming(t, func() error {
				var flags [2]atomic.Bool
				var doors [2]door
				done := make(chan time.Time, 2)
				for i := range doors {
					w, d := testWaiter(wk)
					doors[i] = d
					go func() {
						_ = w.await(nil, d, flags[i].Load, noStop)
						done <- time.Now()
					}()
				}
				on := [2]bool{asleep(doors[0]), asleep(doors[1])}
				if on[0] == on[1] {
					return fmt.Errorf("waiters on the eventfd: %v; want exactly one", on)
				}
				for _, i := range []int{first, 1 - first} {
					set := time.Now()
					flags[i].Store(true)
					doors[i].notify()
					if lat := (<-done).Sub(set); lat > sleepSlice/2 {
						return fmt.Errorf("waiter %d (eventfd %v) returned %v after notify; want a wake-up", i, on[i], lat)
					}
				}
				return nil
			})
		})
	}
}

// TestCheckEventfd checks that a descriptor a peer passes as its wake-up
// eventfd is refused unless it is one, so nothing else is ever written.
func TestCheckEventfd(t *testing.T) {
	wk := testWake(t)
	if err := checkEventfd(wk.fd); err != nil {
		t.Errorf("checkEventfd(an eventfd) = %v, want nil", err)
	}
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := checkEventfd(int(f.Fd())); !errors.Is(err, errNotEventfd) {
		t.Errorf("checkEventfd(a file) = %v, want errNotEventfd", err)
	}
	if err := checkEventfd(1 << 20); err == nil {
		t.Error("checkEventfd(a closed descriptor) = nil, want an error")
	}
}

// TestAwaitReadyWinsStop checks that an event that happened before stop
// was noticed is still reported as success.
func TestAwaitReadyWinsStop(t *testing.T) {
	w, d := testWaiter(nil)
	calls := 0
	ready := func() bool { calls++; return calls > 1 } // true from its second call on
	if err := w.await(nil, d, ready, func() error { return errors.New("stopped") }); err != nil {
		t.Fatalf("await = %v, want nil: ready became true before stop was honoured", err)
	}
}

// TestAwaitSharedCPU checks that a waiter whose peer last ran on its CPU
// skips the long spin: with a 1 s Spin it must still be asleep in well
// under a second. The waiting goroutine is pinned to one CPU so that the
// comparison is deterministic.
func TestAwaitSharedCPU(t *testing.T) {
	w, d := testWaiter(nil)
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
		_ = w.await(nil, d, flag.Load, noStop)
	}()
	if err := <-started; err != nil {
		t.Skipf("pinning a thread: %v", err)
	}
	start := time.Now()
	for d.b.sleepers.Load() == 0 && time.Since(start) < 5*time.Second {
		time.Sleep(100 * time.Microsecond)
	}
	asleep := time.Since(start)
	flag.Store(true)
	d.notify()
	<-done
	if asleep > 500*time.Millisecond {
		t.Errorf("waiter sharing its CPU with the peer slept only after %v; want it to skip the 1 s spin", asleep)
	}
}

// TestTakeWake checks how set-up splits the peer's wake-up eventfd off
// the descriptors of a hello: last, only when announced, and a descriptor
// that is not an eventfd fails the set-up, closed.
func TestTakeWake(t *testing.T) {
	wk := testWake(t)
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dup := func(fd int) int {
		d, err := unix.Dup(fd)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	isOpen := func(fd int) bool {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		return err == nil
	}
	for _, c := range []struct {
		name     string
		wake     uint32
		fds      []int
		wantWake bool // the last descriptor is returned as the wake
		wantRest int
		wantErr  bool
	}{
		{"none announced", 0, []int{dup(int(f.Fd()))}, false, 1, false},
		{"announced, last", 1, []int{dup(int(f.Fd())), dup(wk.fd)}, true, 1, false},
		{"announced, missing", 1, nil, false, 0, true},
		{"announced, not an eventfd", 1, []int{dup(int(f.Fd()))}, false, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			last := -1
			if len(c.fds) > 0 {
				last = c.fds[len(c.fds)-1]
			}
			fd, rest, err := takeWake(hello{Wake: c.wake}, c.fds)
			defer closeAll(append(rest, fd))
			switch {
			case (err != nil) != c.wantErr:
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			case c.wantWake && fd != last, !c.wantWake && fd != -1:
				t.Errorf("wake fd = %d, want %d", fd, map[bool]int{true: last, false: -1}[c.wantWake])
			case len(rest) != c.wantRest:
				t.Errorf("%d descriptors left, want %d", len(rest), c.wantRest)
			case c.wantErr && last >= 0 && isOpen(last):
				t.Errorf("refused descriptor %d left open", last)
			}
		})
	}
}
