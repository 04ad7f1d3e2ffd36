//go:build linux

package shm

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/hpcbench/hpcbench/fabric"
)

// Name is the transport's registry name and address scheme.
const Name = "shm"

// Transport connects ranks on one host through shared memory. It
// implements fabric.Transport; make it with New.
type Transport struct {
	opts   Options
	hostID string
	arena  *arena // nil when Options.ArenaSize is 0 or the arena failed
	wake   *wake  // nil when the eventfd could not be made

	mu    sync.Mutex
	noted map[string]bool // kinds of note already passed to Logf

	// probeHook replaces probeAccess in tests that need cross-memory
	// attach to be refused.
	probeHook func(pid int, addr, value uint64) (bool, error)
	// mapHook replaces mapPeerArena in tests that need it to fail.
	mapHook func(fd int, size, base uint64) (*peerArena, error)
}

var _ fabric.Transport = (*Transport)(nil)

// New returns a Transport with options o, which must be valid.
func New(o Options) (*Transport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	id, err := hostID()
	if err != nil {
		return nil, err
	}
	t := &Transport{opts: o, hostID: id, noted: map[string]bool{}}
	if t.wake, err = newWake(); err != nil {
		t.note("wake", "shm: %v; waiters sleep in futex(2) only", err)
	}
	if o.ArenaSize > 0 {
		if t.arena, err = newArena(o.ArenaSize); err != nil {
			t.note("arena", "%v; buffers come from the heap and large messages are pipelined through the ring (two copies)", err)
		}
	}
	return t, nil
}

var _ fabric.Allocator = (*Transport)(nil)

// Alloc returns a zeroed buffer of n bytes from the arena when n is at
// least ArenaThreshold and the arena has room, from the heap otherwise.
// Messages of ArenaThreshold bytes and more sent from an arena buffer move
// with a single copy.
func (t *Transport) Alloc(n int) []byte {
	if t.arena != nil && n >= t.opts.ArenaThreshold {
		if b := t.arena.alloc(n); b != nil {
			return b
		}
	}
	return make([]byte, n)
}

// Free returns a buffer from Alloc to the arena (releasing its memory);
// b must not be used afterwards, nor be being sent or received into. A
// heap buffer is left to the garbage collector.
func (t *Transport) Free(b []byte) {
	if t.arena.owns(b) {
		if err := t.arena.release(b); err != nil {
			t.note("arena-free", "%v", err)
		}
	}
}

// Name returns "shm".
func (t *Transport) Name() string { return Name }

// Reachable reports whether addr is a shm address of this host, this boot
// and this network namespace.
func (t *Transport) Reachable(addr string) bool {
	host, _, err := parseAddr(addr)
	return err == nil && host == t.hostID
}

// Listen opens rank self's endpoint: an abstract unix socket.
func (t *Transport) Listen(ctx context.Context, self int) (fabric.Listener, error) {
	if err := checkRank(self); err != nil {
		return nil, fmt.Errorf("shm: listen: %w", err)
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, fmt.Errorf("shm: listen: random socket name: %w", err)
	}
	name := fmt.Sprintf("@hpcbench-shm-%d-%s", os.Getpid(), hex.EncodeToString(rnd[:]))
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("shm: listen on %s: %w", name, err)
	}
	return &Listener{t: t, ln: ln, self: self, addr: Name + "://" + t.hostID + "/" + name}, nil
}

// Dial connects rank self to the listener at addr, which must be
// Reachable.
func (t *Transport) Dial(ctx context.Context, self int, addr string) (fabric.Conn, error) {
	return t.DialHint(ctx, self, addr, fabric.Hint{})
}

var _ fabric.HintedTransport = (*Transport)(nil)

// DialHint is Dial for a job with h.LocalRanks ranks on this host: the
// pair's rings are sized by Options.RingBudget.
func (t *Transport) DialHint(ctx context.Context, self int, addr string, h fabric.Hint) (fabric.Conn, error) {
	c, _, err := t.dial(ctx, self, addr, h)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Traits returns what a Conn dialed with h promises: its eager limit (see
// Conn.EagerLimit), shared memory, and whether the host is crowded (see
// crowdedFactor).
func (t *Transport) Traits(h fabric.Hint) fabric.Traits {
	return fabric.Traits{EagerLimit: t.opts.forRing(t.opts.ringFor(h)).EagerLimit, SharedMemory: true, Crowded: crowded(h)}
}

// note passes a message to Logf the first time a kind of note occurs.
func (t *Transport) note(kind, format string, args ...any) {
	if t.opts.Logf == nil {
		return
	}
	t.mu.Lock()
	seen := t.noted[kind]
	t.noted[kind] = true
	t.mu.Unlock()
	if !seen {
		t.opts.Logf(format, args...)
	}
}

// parseAddr splits "shm://HOST/NAME" into HOST and the socket name NAME
// ("@..." for the abstract namespace).
func parseAddr(addr string) (host, name string, err error) {
	rest, ok := strings.CutPrefix(addr, Name+"://")
	if !ok {
		return "", "", fmt.Errorf("address %q: not shm://HOST/SOCKET", addr)
	}
	host, name, ok = strings.Cut(rest, "/")
	if !ok || host == "" || name == "" {
		return "", "", fmt.Errorf("address %q: not shm://HOST/SOCKET", addr)
	}
	return host, name, nil
}

// hostID names this kernel instance and network namespace: the boot id
// changes with every boot and differs between hosts (unlike
// /etc/machine-id, which cloned images share), and abstract unix sockets
// are only visible within one network namespace.
func hostID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", fmt.Errorf("shm: host id: %w", err)
	}
	id := string(bytes.ReplaceAll(bytes.TrimSpace(b), []byte("-"), nil))
	if id == "" {
		return "", fmt.Errorf("shm: host id: /proc/sys/kernel/random/boot_id is empty")
	}
	// "net:[4026531840]"; without access to it, the boot id alone.
	if ns, err := os.Readlink("/proc/self/ns/net"); err == nil {
		if _, inode, ok := strings.Cut(strings.TrimSuffix(ns, "]"), "["); ok {
			id += "-" + inode
		}
	}
	return id, nil
}

// checkRank rejects ranks that do not fit the handshake.
func checkRank(r int) error {
	if r < 0 || r > 1<<31-1 {
		return fmt.Errorf("rank %d: must be from 0 to %d", r, 1<<31-1)
	}
	return nil
}
