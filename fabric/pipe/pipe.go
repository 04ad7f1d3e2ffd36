// Package pipe is an in-process fabric.Conn: two ends joined by memory, for
// tests and in-process benchmarks of code written against fabric.Conn (the
// collectives run over a Mesh of them).
//
// It implements the whole Conn contract: tag matching with a queue of
// unexpected messages per tag, zero-length messages, ErrTruncated, context
// cancellation, and Close, after which both ends fail with fabric.ErrClosed.
// One Send and one Recv may run at the same time on each end. No goroutine
// is started: a Conn is plain memory and a mutex per direction.
//
// # Eager and hand-off sends
//
// Like an MPI library, pipe has two protocols, chosen by message size:
//
//   - A message of at most EagerLimit bytes is copied by Send into a queue
//     of the receiving end, and Send returns at once. The Recv copies it
//     again into the caller's buffer. There is no flow control: a sender
//     that runs ahead of its receiver queues without limit (a loop of
//     rooted collectives without a barrier can queue gigabytes).
//   - A longer message is handed off: Send queues a reference to the
//     caller's buffer and waits until the peer calls Recv, or ctx ends, or
//     either end closes. A Recv for the message's tag copies it straight
//     into its own buffer (one copy, as a rendezvous protocol or Linux
//     cross-memory attach would do). A Recv for another tag copies it into
//     the queue of unexpected messages, as if it had been sent eagerly, so
//     that later messages with other tags can overtake it. A cancelled
//     hand-off that no Recv has touched is withdrawn, as if never sent.
//
// Either way the caller may reuse b as soon as Send returns. With every
// message handed off (Options.EagerLimit < 0), two ends that both Send
// before they Recv deadlock, as they may over any transport that applies
// flow control: code that runs over such pipes is "safe" in MPI's sense.
package pipe

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/hpcbench/hpcbench/fabric"
)

// DefaultEagerLimit is the EagerLimit used when Options.EagerLimit is 0:
// messages up to 8 KiB are copied and Send returns at once, about where
// UCX's shared-memory transport switches to rendezvous.
const DefaultEagerLimit = 8 << 10

// Options configures a pair of pipe ends.
type Options struct {
	// EagerLimit is the largest message, in bytes, that Send copies and
	// returns from without waiting for the peer; longer messages are handed
	// off (see the package documentation). 0 means DefaultEagerLimit. A
	// negative value hands off every message, zero-length ones too, so Send
	// always waits for the matching Recv.
	EagerLimit int
}

// Pair returns the two ends of a new in-process connection with the
// default options: what a sends, b receives, and the other way round.
func Pair() (a, b fabric.Conn) { return NewPair(Options{}) }

// NewPair is Pair with options.
func NewPair(o Options) (a, b fabric.Conn) {
	eager := o.EagerLimit
	if eager == 0 {
		eager = DefaultEagerLimit
	}
	if eager < 0 {
		eager = -1
	}
	l := &link{eager: eager, closed: make(chan struct{})}
	ab, ba := newQueue(), newQueue()
	return &conn{l: l, in: ba, out: ab}, &conn{l: l, in: ab, out: ba}
}

// Mesh connects n ranks pairwise with the default options: conns[i][j] is
// rank i's end of the connection to rank j, and conns[i][i] is nil.
func Mesh(n int) [][]fabric.Conn { return NewMesh(n, Options{}) }

// NewMesh is Mesh with options.
func NewMesh(n int, o Options) [][]fabric.Conn {
	conns := make([][]fabric.Conn, n)
	for i := range conns {
		conns[i] = make([]fabric.Conn, n)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			conns[i][j], conns[j][i] = NewPair(o)
		}
	}
	return conns
}

// link is the state both ends share.
type link struct {
	eager     int           // largest eager message; -1: hand off all
	closeOnce sync.Once     // closes closed
	closed    chan struct{} // closed when either end is closed
	// pools recycle eager messages by size class (see class), so that a
	// steady stream of small messages does not allocate.
	pools [numClasses]sync.Pool
}

// Eager messages up to maxPooled bytes are recycled in numClasses size
// classes of powers of two from 64 bytes.
const (
	minPooledShift = 6
	maxPooled      = 64 << 10
	numClasses     = 11 // 64 B << 10 == 64 KiB
)

// class returns the size class that holds n bytes (n <= maxPooled).
func class(n int) int {
	if n <= 1<<minPooledShift {
		return 0
	}
	return bits.Len(uint(n-1)) - minPooledShift
}

// eagerMessage returns a message holding a copy of b, recycled when
// possible.
func (l *link) eagerMessage(b []byte) *message {
	if len(b) > maxPooled {
		return &message{data: append([]byte(nil), b...)}
	}
	c := class(len(b))
	m, _ := l.pools[c].Get().(*message)
	if m == nil {
		m = &message{buf: make([]byte, 1<<(c+minPooledShift)), pooled: true}
	}
	m.data = m.buf[:copy(m.buf, b)]
	return m
}

// recycle returns a received eager message to its pool.
func (l *link) recycle(m *message) {
	if m.pooled {
		m.data = nil
		l.pools[class(len(m.buf))].Put(m)
	}
}

// isClosed reports whether either end has been closed.
func (l *link) isClosed() bool {
	select {
	case <-l.closed:
		return true
	default:
		return false
	}
}

// conn is one end of a pair.
type conn struct {
	l      *link
	in     *queue      // messages to this end
	out    *queue      // messages from this end
	closed atomic.Bool // this end was closed
}

// message is one queued message.
type message struct {
	tag    uint32
	data   []byte
	buf    []byte // a pooled eager message's own buffer; data is a prefix
	pooled bool   // recycle into link.pools after receipt
	// done is nil for an eager message. For a hand-off, data is the
	// sender's buffer and the receiver closes done once it has copied it.
	done chan struct{}
}

// queue holds the messages travelling one way, in order per tag, and the
// state of the one Recv that may wait on them.
type queue struct {
	mu      sync.Mutex
	byTag   map[uint32][]*message
	spare   []*message    // an emptied tag queue, reused for the next tag
	handoff *message      // the queued hand-off no Recv has touched, or nil
	waiting bool          // a Recv waits for waitTag
	waitTag uint32        // valid while waiting
	wake    chan struct{} // capacity 1; a token means "look again"
}

func newQueue() *queue {
	return &queue{byTag: make(map[uint32][]*message), wake: make(chan struct{}, 1)}
}

// push appends m to its tag's queue and wakes a Recv waiting for that tag,
// or any waiting Recv when m is a hand-off (which it must absorb). The
// caller holds q.mu.
func (q *queue) push(m *message) {
	s, ok := q.byTag[m.tag]
	if !ok && q.spare != nil {
		s, q.spare = q.spare, nil
	}
	q.byTag[m.tag] = append(s, m)
	if m.done != nil {
		q.handoff = m
	}
	if q.waiting && (q.waitTag == m.tag || m.done != nil) {
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

// take removes and returns the oldest message with tag, or nil. The caller
// holds q.mu.
func (q *queue) take(tag uint32) *message {
	s := q.byTag[tag]
	if len(s) == 0 {
		return nil
	}
	m := s[0]
	s[0] = nil
	if q.handoff == m {
		q.handoff = nil
	}
	if len(s) == 1 {
		delete(q.byTag, tag)
		q.spare = s[:0]
	} else {
		q.byTag[tag] = s[1:]
	}
	return m
}

// withdraw removes the hand-off m from its tag's queue if no Recv has
// taken or absorbed it, and reports whether it did. The caller holds q.mu.
func (q *queue) withdraw(m *message) bool {
	if q.handoff != m {
		return false
	}
	q.handoff = nil
	s := q.byTag[m.tag]
	for i, x := range s {
		if x != m {
			continue
		}
		if len(s) == 1 {
			delete(q.byTag, m.tag)
			return true
		}
		copy(s[i:], s[i+1:])
		s[len(s)-1] = nil
		q.byTag[m.tag] = s[:len(s)-1]
		return true
	}
	return true
}

// absorb turns the untouched hand-off, if any, into an eager message: it
// copies the sender's buffer and releases the sender, so that the sender's
// later messages can reach a Recv waiting for another tag. The caller holds
// q.mu; the copy is made under it, so a sender that gives up meanwhile
// finds its message absorbed, not withdrawable.
func (q *queue) absorb() {
	m := q.handoff
	if m == nil {
		return
	}
	q.handoff = nil
	m.data = append([]byte(nil), m.data...)
	close(m.done)
	m.done = nil
}

// EagerLimit reports the largest message Send copies and returns from
// without waiting for the peer's Recv, or -1 when every Send waits. Code
// above fabric (collectives) uses it to run a small send and receive in one
// goroutine without risking a deadlock.
func (c *conn) EagerLimit() int { return c.l.eager }

// Send implements fabric.Conn.
func (c *conn) Send(ctx context.Context, tag uint32, b []byte) error {
	if c.closed.Load() || c.l.isClosed() {
		return fmt.Errorf("pipe: send tag %#x: %w", tag, fabric.ErrClosed)
	}
	var m *message
	var done chan struct{} // a hand-off's; the receiver may clear m.done
	if len(b) > c.l.eager {
		done = make(chan struct{})
		m = &message{data: b, done: done}
	} else {
		m = c.l.eagerMessage(b)
	}
	m.tag = tag
	q := c.out
	q.mu.Lock()
	if c.l.isClosed() {
		q.mu.Unlock()
		return fmt.Errorf("pipe: send tag %#x: %w", tag, fabric.ErrClosed)
	}
	q.push(m)
	q.mu.Unlock()
	if done == nil {
		return nil
	}
	var err error
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-c.l.closed:
		err = fabric.ErrClosed
	}
	q.mu.Lock()
	withdrawn := q.withdraw(m)
	q.mu.Unlock()
	if !withdrawn {
		// A Recv took or absorbed the message before we could withdraw it;
		// it closes done without blocking once it has copied the buffer.
		<-done
		return nil
	}
	return fmt.Errorf("pipe: send %d bytes with tag %#x: %w", len(b), tag, err)
}

// Recv implements fabric.Conn. Messages the peer sent eagerly before it
// closed are still delivered; after that, and after this end is closed,
// Recv fails with fabric.ErrClosed.
func (c *conn) Recv(ctx context.Context, tag uint32, b []byte) (int, error) {
	q := c.in
	for {
		if c.closed.Load() {
			return 0, fmt.Errorf("pipe: recv tag %#x: %w", tag, fabric.ErrClosed)
		}
		q.mu.Lock()
		q.waiting = false
		if m := q.take(tag); m != nil {
			done := m.done
			q.mu.Unlock()
			n, size := copy(b, m.data), len(m.data)
			if done != nil {
				close(done)
			} else {
				c.l.recycle(m)
			}
			if size > len(b) {
				return n, fmt.Errorf("pipe: recv tag %#x: %d-byte message into %d-byte buffer: %w",
					tag, size, len(b), fabric.ErrTruncated)
			}
			return n, nil
		}
		if c.l.isClosed() {
			q.mu.Unlock()
			return 0, fmt.Errorf("pipe: recv tag %#x: %w", tag, fabric.ErrClosed)
		}
		q.absorb()
		q.waiting, q.waitTag = true, tag
		q.mu.Unlock()
		select {
		case <-q.wake:
		case <-c.l.closed:
		case <-ctx.Done():
			q.mu.Lock()
			q.waiting = false
			q.mu.Unlock()
			return 0, fmt.Errorf("pipe: recv tag %#x: %w", tag, ctx.Err())
		}
	}
}

// Close implements fabric.Conn. It closes both ends: blocked and later
// calls on either end fail with fabric.ErrClosed (the peer may still
// receive what was sent eagerly before). Close is idempotent.
func (c *conn) Close() error {
	c.closed.Store(true)
	c.l.closeOnce.Do(func() { close(c.l.closed) })
	return nil
}
