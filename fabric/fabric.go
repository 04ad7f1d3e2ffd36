// Package fabric moves messages between the ranks of a job. A Transport
// (tcp, shm, verbs) opens a Listener on each rank, whose address is published
// through the PMI KVS as part of the rank's business card; peers Dial that
// address and get a Conn, a reliable, ordered, tagged message channel to one
// peer rank.
//
// Transports are listed explicitly (see Registry) and chosen by name; nothing
// registers itself at init time.
package fabric

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Conn is a reliable, ordered, message-oriented connection to one peer rank.
//
// Every message carries a tag. Recv(tag) returns the oldest message from the
// peer that carries tag; messages with other tags that arrive first are kept,
// in order, for later Recvs (MPI's non-overtaking rule per tag). Zero-length
// messages are messages.
//
// One Send and one Recv may run at the same time from two goroutines (a
// sendrecv); two concurrent Sends, or two concurrent Recvs, are not allowed.
// A blocked Send or Recv returns when ctx ends (with ctx's error), when the
// peer closes or dies (an error wrapping ErrClosed), or when Close is called.
type Conn interface {
	// Send sends b as one message with tag. It may return before the peer
	// receives it; b may be reused as soon as Send returns.
	Send(ctx context.Context, tag uint32, b []byte) error
	// Recv receives the oldest message with tag into b and returns its
	// length. A message longer than b is an error wrapping ErrTruncated, and
	// the message is consumed.
	Recv(ctx context.Context, tag uint32, b []byte) (int, error)
	// Close releases the connection; blocked calls return ErrClosed.
	Close() error
}

// LongReceiver is implemented by Conns whose receives can wait without
// spinning first (shm). A Conn that spins while it waits for a message
// takes a CPU for it; when the message is the answer to a long piece of
// work on the same host (an object-store engine copying a megabyte), that
// CPU may be the one the work needs.
type LongReceiver interface {
	// RecvLong is Recv for a message not expected within microseconds: it
	// waits in the kernel at once.
	RecvLong(ctx context.Context, tag uint32, b []byte) (int, error)
}

// RecvLong calls c's RecvLong when c has one, and Recv otherwise.
func RecvLong(ctx context.Context, c Conn, tag uint32, b []byte) (int, error) {
	if l, ok := c.(LongReceiver); ok {
		return l.RecvLong(ctx, tag, b)
	}
	return c.Recv(ctx, tag, b)
}

// Listener is one rank's endpoint, accepting connections from peers.
type Listener interface {
	// Addr is the address peers dial, for the rank's business card. It
	// starts with the transport's name and "://".
	Addr() string
	// Accept waits for the next peer and returns its connection and rank.
	Accept(ctx context.Context) (Conn, int, error)
	// Close stops accepting; connections already made stay open.
	Close() error
}

// Transport creates connections between ranks.
type Transport interface {
	// Name is the transport's registry name ("tcp", "shm").
	Name() string
	// Listen opens this rank's endpoint.
	Listen(ctx context.Context, self int) (Listener, error)
	// Dial connects rank self to the peer listening at addr.
	Dial(ctx context.Context, self int, addr string) (Conn, error)
	// Reachable reports whether a peer listening at addr can be reached
	// from this process (shm: only on the same host).
	Reachable(addr string) bool
}

// Hint is what a job knows about two of its ranks before it connects them,
// for transports that size a connection by it.
type Hint struct {
	// LocalRanks is how many of the job's ranks run on the host of the
	// two, both included; 0 if unknown.
	LocalRanks int
	// HostCPUs is how many CPUs that host has online; 0 if unknown.
	HostCPUs int
}

// CrowdedFactor is how many ranks per CPU make a host crowded.
const CrowdedFactor = 4

// Crowded reports whether h describes a crowded host, one that runs more
// than CrowdedFactor ranks per CPU: there a rank is almost never running
// when a peer waits for it, so waiting by spinning or yielding only takes
// CPU time from it, and a rank gains nothing from running on more than one
// CPU at a time.
func (h Hint) Crowded() bool {
	return h.HostCPUs > 0 && h.LocalRanks > CrowdedFactor*h.HostCPUs
}

// Traits are what a transport's connections promise, known before one is
// made, so that a communicator can plan by them for a connection it has
// not made yet.
type Traits struct {
	// EagerLimit is the largest message a Send delivers without waiting
	// for the peer to Recv it (the connection buffers it), or -1 for no
	// such promise.
	EagerLimit int
	// SharedMemory is true when messages move through memory both
	// processes map.
	SharedMemory bool
	// Crowded is true when the two ranks share a host that runs many more
	// ranks than it has CPUs (Hint.Crowded: more than four per CPU), so that
	// a wait sleeps in the kernel almost at once and every message costs a
	// wake-up of a process that is not running: then a collective's cost
	// is the number of its messages, not the length of its critical path.
	Crowded bool
}

// HintedTransport is implemented by transports that size a connection by
// a Hint (fabric/shm: the more ranks share a host, the smaller each pair's
// rings, so that memory grows with the ranks, not with the pairs) and can
// tell what its connections will promise before they exist. The two ends
// of a pair must be given the same Hint and transports with the same
// options: the dialer sizes the pair, and Traits describes both ends.
type HintedTransport interface {
	Transport
	// DialHint is Dial for a job described by h.
	DialHint(ctx context.Context, self int, addr string, h Hint) (Conn, error)
	// Traits returns what a Conn dialed with h, or accepted from a peer
	// that dialed with h, promises.
	Traits(h Hint) Traits
}

// Allocator is implemented by transports that move messages faster from
// and into buffers they allocate (shm: one copy between two processes
// instead of two). Its buffers work with every transport.
type Allocator interface {
	// Alloc returns a zeroed buffer of n bytes: the transport's memory
	// when it has room and the size is worth it, the heap otherwise.
	Alloc(n int) []byte
	// Free gives back a buffer that Alloc returned, which must not be used
	// afterwards; a heap buffer is left to the garbage collector.
	Free(b []byte)
}

// Errors common to every transport; test with errors.Is.
var (
	// ErrClosed means the connection is closed, by this side or the peer.
	ErrClosed = errors.New("fabric: connection closed")
	// ErrTruncated means a message was longer than the receive buffer.
	ErrTruncated = errors.New("fabric: message truncated")
	// ErrUnknownTransport means a name is not in the registry.
	ErrUnknownTransport = errors.New("fabric: unknown transport")
)

// Scheme returns the transport name of an address ("tcp" for
// "tcp://10.0.0.1:7000"), or "" when addr has none.
func Scheme(addr string) string {
	s, _, ok := strings.Cut(addr, "://")
	if !ok {
		return ""
	}
	return s
}

// Registry is an ordered list of transports, first preferred.
type Registry []Transport

// Lookup returns the transport named name (case-insensitive).
func (r Registry) Lookup(name string) (Transport, error) {
	for _, t := range r {
		if strings.EqualFold(t.Name(), name) {
			return t, nil
		}
	}
	return nil, fmt.Errorf("%w %q: have %s", ErrUnknownTransport, name, strings.Join(r.Names(), ", "))
}

// Names lists the transports in order.
func (r Registry) Names() []string {
	n := make([]string, len(r))
	for i, t := range r {
		n[i] = t.Name()
	}
	return n
}
