//go:build linux

package shm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/fabric"
)

// exchange sends want from one Conn and receives it on the other, in two
// goroutines, and checks the bytes.
func exchange(t *testing.T, from, to *Conn, tag uint32, want []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sent := make(chan error, 1)
	go func() { sent <- from.Send(ctx, tag, want) }()
	got := make([]byte, len(want)+1)
	n, err := to.Recv(ctx, tag, got)
	if err != nil {
		t.Fatalf("Recv of %d bytes: %v", len(want), err)
	}
	if err := <-sent; err != nil {
		t.Fatalf("Send of %d bytes: %v", len(want), err)
	}
	if n != len(want) || !bytes.Equal(got[:n], want) {
		t.Fatalf("Recv of %d bytes: got %d bytes, equal %v", len(want), n, bytes.Equal(got[:n], want))
	}
}

// TestPaths moves messages at and around every threshold of every variant,
// both ways, and checks them byte for byte.
func TestPaths(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			d, a := pair(t, newTransport(t, v.opts))
			o := v.opts
			sizes := []int{0, 1, 47, 48, 49, o.EagerLimit - 1, o.EagerLimit, o.EagerLimit + 1,
				o.PipeChunk - 1, o.PipeChunk + 1, o.RingSize + 5, 3*o.CMAChunk + 17, 8<<20 + 3}
			if o.CMAThreshold > 0 {
				sizes = append(sizes, o.CMAThreshold-1, o.CMAThreshold, o.CMAThreshold+1)
			}
			for i, size := range sizes {
				exchange(t, d, a, uint32(i), fill(size, uint64(i)))
				exchange(t, a, d, uint32(i), fill(size, uint64(i)+100))
			}
		})
	}
}

// TestCMAState checks what the handshake found on this machine: within one
// process, cross-memory attach is always permitted.
func TestCMAState(t *testing.T) {
	d, a := pair(t, newTransport(t, DefaultOptions()))
	for _, c := range []*Conn{d, a} {
		if !c.canAccess || !c.peerCanAccess || c.peerPid != os.Getpid() {
			t.Errorf("side %d: canAccess %v, peerCanAccess %v, peer pid %d; want true, true, %d", c.side, c.canAccess, c.peerCanAccess, c.peerPid, os.Getpid())
		}
	}
}

// TestCMARefused makes the probe fail as it does under a strict ptrace
// scope: large messages must then be pipelined, and the note logged once.
func TestCMARefused(t *testing.T) {
	for _, refuse := range []string{"both", "dialer", "listener"} {
		t.Run(refuse, func(t *testing.T) {
			var mu sync.Mutex
			var notes []string
			o := variants()[2].opts // cma
			o.Logf = func(format string, args ...any) {
				mu.Lock()
				defer mu.Unlock()
				notes = append(notes, fmt.Sprintf(format, args...))
			}
			tr := newTransport(t, o)
			var calls atomic.Int32
			tr.probeHook = func(pid int, addr, value uint64) (bool, error) {
				first := calls.Add(1) == 1 // the listener probes first
				if refuse == "both" || (refuse == "listener") == first {
					return false, syscall.EPERM
				}
				return probeAccess(pid, addr, value)
			}
			d, a := pair(t, tr)
			for i := range 3 {
				exchange(t, d, a, 1, fill(1<<20+i, uint64(i)))
				exchange(t, a, d, 1, fill(1<<20+i, uint64(i)))
			}
			if refuse == "both" && (d.useCMA(1<<20) || a.useCMA(1<<20)) {
				t.Errorf("CMA refused both ways, but a 1 MiB message would use it")
			}
			if refuse != "both" && (!d.useCMA(1<<20) || !a.useCMA(1<<20)) {
				t.Errorf("CMA permitted one way (refused to %s), but a 1 MiB message would not use it", refuse)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(notes) != 1 || !strings.Contains(notes[0], "pipelined") {
				t.Errorf("notes = %q, want one about pipelining", notes)
			}
		})
	}
}

// TestSenderHelpsOff moves rendezvous messages with only the receiver
// copying.
func TestSenderHelpsOff(t *testing.T) {
	o := variants()[2].opts
	o.SenderHelps = false
	d, a := pair(t, newTransport(t, o))
	exchange(t, d, a, 1, fill(5<<20+1, 1))
	exchange(t, a, d, 1, fill(5<<20+1, 2))
}

// TestRndvCancelled cancels a rendezvous Send before the receiver comes:
// the receiver must skip it and get the next message.
func TestRndvCancelled(t *testing.T) {
	d, a := pair(t, newTransport(t, variants()[2].opts))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := d.Send(ctx, 1, fill(1<<20, 1))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Send to a peer that is not receiving: %v, want DeadlineExceeded", err)
	}
	exchange(t, d, a, 1, []byte("next"))
	exchange(t, d, a, 1, fill(1<<20, 2)) // and the next rendezvous works
}

// TestRndvOtherTag checks that a rendezvous message is pulled, and its
// Send completes, while the receiver waits for another tag.
func TestRndvOtherTag(t *testing.T) {
	d, a := pair(t, newTransport(t, DefaultOptions()))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	big := fill(4<<20, 3)
	if err := func() error {
		errc := make(chan error, 1)
		go func() {
			if err := d.Send(ctx, 7, big); err != nil {
				errc <- err
				return
			}
			errc <- d.Send(ctx, 8, []byte("small"))
		}()
		buf := make([]byte, 16)
		if n, err := a.Recv(ctx, 8, buf); err != nil || string(buf[:n]) != "small" {
			return fmt.Errorf("Recv(8) = %q, %v", buf[:n], err)
		}
		return <-errc
	}(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(big))
	if n, err := a.Recv(ctx, 7, got); err != nil || n != len(big) || !bytes.Equal(got, big) {
		t.Fatalf("queued rendezvous message: n %d, err %v, equal %v", n, err, bytes.Equal(got, big))
	}
}

// TestPipeRecvResumed interrupts a Recv in the middle of a pipelined
// message (the sender stalls half way) and checks that the next Recv gets
// the whole message.
func TestPipeRecvResumed(t *testing.T) {
	d, a := pair(t, newTransport(t, variants()[1].opts)) // pipe
	msg := fill(20<<10, 4)
	// Publish the header and the first half by hand, as a sender that
	// stalls would.
	p := &d.snd.p
	half := uint32(hdrSize + len(msg)/2)
	p.putRecord(record{kind: kindPipe, tag: 3, size: uint64(len(msg))})
	p.put(hdrSize, msg[:len(msg)/2])
	p.publish(half)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	buf := make([]byte, len(msg))
	if _, err := a.Recv(ctx, 3, buf); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Recv of a half-published message: %v, want DeadlineExceeded", err)
	}
	if a.rcv.part == nil || a.rcv.part.got != len(msg)/2 {
		t.Fatalf("interrupted Recv kept no partial message, or the wrong amount")
	}
	clear(buf) // the partial message must not live in the caller's buffer
	p.put(hdrSize-half+uint32(len(msg)/2), msg[len(msg)/2:])
	p.publish(recLen(len(msg)) - half)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	n, err := a.Recv(ctx2, 3, buf)
	if err != nil || n != len(msg) || !bytes.Equal(buf, msg) {
		t.Fatalf("resumed Recv: n %d, err %v, equal %v", n, err, bytes.Equal(buf, msg))
	}
	exchange(t, d, a, 3, []byte("after"))
}

// TestZeroLengthTruncate sends an empty message into a nil buffer and a
// large one into an empty buffer on every path.
func TestZeroLengthTruncate(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			d, a := pair(t, newTransport(t, v.opts))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for _, size := range []int{0, 100, 1 << 20} {
				errc := make(chan error, 1)
				go func() { errc <- d.Send(ctx, 1, fill(size, 5)) }()
				n, err := a.Recv(ctx, 1, nil)
				if size == 0 && (n != 0 || err != nil) {
					t.Errorf("empty message into nil: %d, %v", n, err)
				}
				if size > 0 && (n != 0 || !errors.Is(err, fabric.ErrTruncated)) {
					t.Errorf("%d bytes into nil: %d, %v; want 0, ErrTruncated", size, n, err)
				}
				if err := <-errc; err != nil {
					t.Fatal(err)
				}
			}
			exchange(t, d, a, 1, []byte("still fine"))
		})
	}
}

// cpuTime is the process's user plus system time.
func cpuTime(t *testing.T) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestBlockedRecvSleeps checks that a Recv with nothing to receive stops
// spinning and sleeps, on its process's wake-up eventfd, and that a Send
// wakes it promptly through the copy its peer holds.
func TestBlockedRecvSleeps(t *testing.T) {
	d, a := pair(t, newTransport(t, DefaultOptions()))
	retryTiming(t, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		got := make(chan time.Time, 1)
		go func() {
			defer close(got)
			if _, err := a.Recv(ctx, 1, make([]byte, 8)); err == nil {
				got <- time.Now()
			}
		}()
		time.Sleep(50 * time.Millisecond) // past spinning and yielding
		before := cpuTime(t)
		time.Sleep(300 * time.Millisecond)
		used := cpuTime(t) - before
		onWake := a.myDoors[bellRecv].b.wake.Load() != 0
		sent := time.Now()
		if err := d.Send(ctx, 1, []byte("wake up")); err != nil {
			return err
		}
		at, ok := <-got
		switch {
		case !ok:
			return errors.New("Recv failed")
		case used > 100*time.Millisecond:
			return fmt.Errorf("a blocked Recv used %v of CPU in 300 ms; want it asleep", used)
		case !onWake:
			return errors.New("a blocked Recv slept in futex(2), not on the process's eventfd")
		case at.Sub(sent) > sleepSlice/2:
			return fmt.Errorf("sleeping Recv woke %v after the Send; want a wake-up, not a timeout", at.Sub(sent))
		}
		return nil
	})
}

// TestNothingLeftBehind checks that a pair creates nothing in /dev/shm and
// that its memory is an unlinked memfd.
func TestNothingLeftBehind(t *testing.T) {
	before, _ := os.ReadDir("/dev/shm")
	d, _ := pair(t, newTransport(t, DefaultOptions()))
	after, _ := os.ReadDir("/dev/shm")
	if len(after) != len(before) {
		t.Errorf("/dev/shm had %d entries before the pair and %d after", len(before), len(after))
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	if !bytes.Contains(maps, []byte("/memfd:hpcbench-shm (deleted)")) {
		t.Errorf("no memfd mapping in /proc/self/maps")
	}
	d.Close()
}

// TestAddresses checks address parsing and Reachable.
func TestAddresses(t *testing.T) {
	tr := newTransport(t, DefaultOptions())
	ln, err := tr.Listen(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr()
	if !strings.HasPrefix(addr, "shm://"+tr.hostID+"/@hpcbench-shm-") || !tr.Reachable(addr) {
		t.Errorf("Addr() = %q, Reachable %v", addr, tr.Reachable(addr))
	}
	other := strings.Replace(addr, tr.hostID, "0"+tr.hostID[1:], 1)
	if tr.hostID[0] == '0' {
		other = strings.Replace(addr, tr.hostID, "1"+tr.hostID[1:], 1)
	}
	for _, bad := range []string{other, "tcp://127.0.0.1:1", "shm://", "shm://" + tr.hostID, "shm://" + tr.hostID + "/", ""} {
		if tr.Reachable(bad) {
			t.Errorf("Reachable(%q) = true", bad)
		}
		if _, err := tr.Dial(context.Background(), 0, bad); err == nil {
			t.Errorf("Dial(%q) succeeded", bad)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	if err := DefaultOptions().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for name, mod := range map[string]func(*Options){
		"ring not power of two": func(o *Options) { o.RingSize = 3 << 20 },
		"ring too small":        func(o *Options) { o.RingSize = 32 << 10 },
		"eager over a quarter":  func(o *Options) { o.EagerLimit = o.RingSize/4 + 1 },
		"threshold below eager": func(o *Options) { o.CMAThreshold = o.EagerLimit },
		"negative threshold":    func(o *Options) { o.CMAThreshold = -1 },
		"pipe chunk too big":    func(o *Options) { o.PipeChunk = o.RingSize },
		"cma chunk too small":   func(o *Options) { o.CMAChunk = 100 },
		"negative spin":         func(o *Options) { o.Spin = -1 },
		"no handshake timeout":  func(o *Options) { o.HandshakeTimeout = 0 },
	} {
		o := DefaultOptions()
		mod(&o)
		if err := o.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, o)
		}
		if _, err := New(o); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}

// eventfds counts this process's open eventfds.
func eventfds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && l == "anon_inode:[eventfd]" {
			n++
		}
	}
	return n
}

// TestWakeExchanged checks that the two sides of a pair pass each other
// their wake-up eventfds, that each rings its own and the peer's doors
// through the right one, and that Close closes the peer's
// (TestBlockedRecvSleeps checks that a Recv sleeps on the eventfd).
func TestWakeExchanged(t *testing.T) {
	tr := newTransport(t, DefaultOptions())
	if tr.wake == nil {
		t.Fatal("New made no wake-up eventfd")
	}
	before := eventfds(t)
	d, a := pair(t, tr)
	if got := eventfds(t) - before; got != 2 {
		t.Errorf("a pair opened %d eventfds, want 2 (each side's copy of the other's)", got)
	}
	for _, c := range []*Conn{d, a} {
		if c.peerWake < 0 || checkEventfd(c.peerWake) != nil {
			t.Fatalf("side %d: peer's wake-up descriptor %d is not an eventfd", c.side, c.peerWake)
		}
		for i := range c.myDoors {
			if c.myDoors[i].fd != tr.wake.fd || c.peerDoors[i].fd != c.peerWake {
				t.Errorf("side %d door %d: rings fds %d and %d, want %d and %d", c.side, i, c.myDoors[i].fd, c.peerDoors[i].fd, tr.wake.fd, c.peerWake)
			}
		}
	}
	d.Close()
	a.Close()
	if d.peerWake != -1 || a.peerWake != -1 {
		t.Errorf("after Close: peer wake descriptors %d and %d, want -1", d.peerWake, a.peerWake)
	}
	if got := eventfds(t); got != before {
		t.Errorf("after Close: %d eventfds open, want %d as before the pair", got, before)
	}
}
