package job

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// Connections are made lazily, on the first Send or Recv to a peer, so that
// a rank connects only to the ranks it talks to (a barrier's or an
// allreduce's partners: O(log N), not N-1), and a job sets nothing up per
// pair at start.
//
// Both ranks of a pair may dial at once (an exchange starts with both
// sending). The higher rank arbitrates, so that exactly one connection is
// used:
//
//   - When the higher rank dials, it uses that connection at once; the
//     lower rank, accepting it, uses it at once too.
//   - When the lower rank dials, it waits for the higher rank's verdict, a
//     one-byte message on verdictTag. The higher rank accepts the
//     connection (verdictAccept) if it has none to the lower one and is not
//     dialing it; else it rejects it (verdictReject) and closes it, and its
//     own dial reaches the lower rank, which takes it. A higher rank whose
//     side of the pair is closed, or failed to connect, says so
//     (verdictGone).
//
// The lower rank's Send does not wait for the higher rank to Send or Recv
// anything, only for its connection to be set up, which the higher rank's
// accept loop does: Sends stay eager.

// verdictTag is the tag of the verdict. collectives never uses it: its
// point-to-point tags have the low 23 bits clear and its collective tags
// bit 31 set (see collectives/tags.go).
const verdictTag uint32 = 1<<23 - 1

// Verdicts.
const (
	verdictAccept byte = 1 + iota
	verdictReject
	verdictGone
)

// DefaultConnectTimeout bounds the set-up of one lazy connection: the dial
// and, for a lower rank whose dial was rejected, the wait for the higher
// rank's.
const DefaultConnectTimeout = 30 * time.Second

// mesh is one rank's lazy connections to its peers and the loops accepting
// the peers' dials. It owns every goroutine it starts; close stops and
// waits for them.
type mesh struct {
	self    int
	timeout time.Duration
	dial    func(ctx context.Context, peer int) (fabric.Conn, error)
	peers   []*lazyConn // nil at self

	ctx    context.Context // ends at close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	listeners []fabric.Listener
	acceptErr error // the last accept that failed other than by close
}

// newMesh makes the lazy connections of rank self to size ranks. It
// accepts (see serve) at once; route must be called before the
// connections are used.
func newMesh(self, size int, timeout time.Duration) *mesh {
	ctx, cancel := context.WithCancel(context.Background())
	m := &mesh{self: self, timeout: timeout, peers: make([]*lazyConn, size), ctx: ctx, cancel: cancel}
	for p := range m.peers {
		if p != self {
			m.peers[p] = &lazyConn{m: m, peer: p, ready: make(chan struct{})}
		}
	}
	return m
}

// route tells the mesh how to dial a peer and what each connection
// promises (traits[p]), once the peers' business cards are read.
func (m *mesh) route(traits []fabric.Traits, dial func(ctx context.Context, peer int) (fabric.Conn, error)) {
	m.dial = dial
	for p, c := range m.peers {
		if c != nil {
			c.traits = traits[p]
		}
	}
}

// conns returns the connections for collectives.New: nil at self.
func (m *mesh) conns() []fabric.Conn {
	cs := make([]fabric.Conn, len(m.peers))
	for p, c := range m.peers {
		if c != nil {
			cs[p] = c
		}
	}
	return cs
}

// serve accepts the peers' dials on ln until close; name is its transport.
func (m *mesh) serve(ln fabric.Listener, name string) {
	m.mu.Lock()
	m.listeners = append(m.listeners, ln)
	m.mu.Unlock()
	m.wg.Go(func() {
		for {
			c, peer, err := ln.Accept(m.ctx)
			if err != nil {
				if m.ctx.Err() != nil || errors.Is(err, fabric.ErrClosed) {
					return
				}
				// One peer's failed set-up (its dial fails too, and says
				// why); keep accepting the others.
				m.mu.Lock()
				m.acceptErr = fmt.Errorf("accept on %s: %w", name, err)
				m.mu.Unlock()
				continue
			}
			m.incoming(c, peer)
		}
	})
}

// incoming takes a connection a peer dialed.
func (m *mesh) incoming(c fabric.Conn, peer int) {
	if peer < 0 || peer >= len(m.peers) || peer == m.self {
		_ = c.Close()
		return
	}
	lc := m.peers[peer]
	lc.mu.Lock()
	if peer > m.self {
		// The arbiter dialed: its connection is the pair's.
		if lc.state == stateConnected || lc.state == stateFailed {
			lc.mu.Unlock()
			_ = c.Close() // after Close, or a failure already reported
			return
		}
		lc.commit(c)
		lc.mu.Unlock()
		return
	}
	// This rank arbitrates.
	if lc.state != stateIdle {
		verdict := verdictReject
		if lc.state == stateFailed {
			verdict = verdictGone // it will not dial
		}
		lc.mu.Unlock()
		_ = c.Send(m.ctx, verdictTag, []byte{verdict})
		_ = c.Close()
		return
	}
	lc.state = stateAccepting
	lc.mu.Unlock()
	err := c.Send(m.ctx, verdictTag, []byte{verdictAccept})
	lc.mu.Lock()
	defer lc.mu.Unlock()
	switch {
	case lc.closed:
		_ = c.Close()
	case err != nil:
		_ = c.Close()
		lc.fail(fmt.Errorf("accepting rank %d's connection: %w", peer, err))
	default:
		lc.commit(c)
	}
}

// close closes every connection, stops accepting and waits for the
// goroutines.
func (m *mesh) close() error {
	var errs []error
	for _, c := range m.peers {
		if c != nil {
			errs = append(errs, c.Close())
		}
	}
	m.cancel()
	m.mu.Lock()
	lns := m.listeners
	m.listeners = nil
	m.mu.Unlock()
	for _, ln := range lns {
		_ = ln.Close()
	}
	m.wg.Wait()
	return errors.Join(errs...)
}

// connected returns the peers this rank has a connection to.
func (m *mesh) connected() []int {
	var ps []int
	for p, c := range m.peers {
		if c == nil {
			continue
		}
		c.mu.Lock()
		if c.state == stateConnected {
			ps = append(ps, p)
		}
		c.mu.Unlock()
	}
	return ps
}

// States of a lazy connection.
const (
	stateIdle      = iota // nothing yet
	stateDialing          // this rank is dialing (or, the lower rank, waiting for the verdict)
	stateAccepting        // the arbiter is accepting the lower rank's dial
	stateConnected        // conn is the pair's connection
	stateFailed           // err says why; also after Close
)

// lazyConn is a fabric.Conn that connects on its first Send or Recv.
type lazyConn struct {
	m      *mesh
	peer   int
	traits fabric.Traits

	// fast holds the connection once made, for get's lock-free path: a
	// collective's small messages pay get on every Send and Recv, and get
	// with its mutex had 18% of an 8 B Exchange's samples on shm (perf).
	fast atomic.Pointer[connRef]

	mu     sync.Mutex
	state  int
	conn   fabric.Conn   // in stateConnected
	err    error         // in stateFailed
	ready  chan struct{} // closed on entering stateConnected or stateFailed
	closed bool
}

var _ fabric.Conn = (*lazyConn)(nil)

// connRef boxes a made connection for lazyConn.fast.
type connRef struct{ c fabric.Conn }

// commit makes c the connection; lc.mu is held.
func (lc *lazyConn) commit(c fabric.Conn) {
	lc.state, lc.conn = stateConnected, c
	lc.fast.Store(&connRef{c})
	close(lc.ready)
}

// fail records why the connection cannot be made; lc.mu is held.
func (lc *lazyConn) fail(err error) {
	lc.state, lc.err = stateFailed, err
	close(lc.ready)
}

// get returns the connection, dialing if nobody has yet, or why there is
// none.
func (lc *lazyConn) get(ctx context.Context) (fabric.Conn, error) {
	if r := lc.fast.Load(); r != nil {
		return r.c, nil // a made connection stays the pair's, closed or not
	}
	lc.mu.Lock()
	switch lc.state {
	case stateConnected:
		c := lc.conn
		lc.mu.Unlock()
		return c, nil
	case stateFailed:
		err := lc.err
		lc.mu.Unlock()
		return nil, err
	case stateIdle:
		lc.state = stateDialing
		lc.m.wg.Go(lc.connect)
	}
	ready := lc.ready
	lc.mu.Unlock()
	select {
	case <-ready:
		return lc.get(ctx)
	case <-ctx.Done():
		return nil, fmt.Errorf("connecting to rank %d: %w", lc.peer, ctx.Err())
	}
}

// connect dials the peer and settles the pair (see the top of this file).
// It runs in a goroutine of the mesh, bounded by the connect timeout.
func (lc *lazyConn) connect() {
	m := lc.m
	ctx, cancel := context.WithTimeout(m.ctx, m.timeout)
	defer cancel()
	c, err := m.dial(ctx, lc.peer)
	if err != nil {
		err = lc.explain(err)
	}
	if m.self > lc.peer {
		lc.mu.Lock()
		defer lc.mu.Unlock()
		switch {
		case lc.closed || lc.state != stateDialing:
			if c != nil {
				_ = c.Close()
			}
		case err != nil:
			lc.fail(err)
		default:
			lc.commit(c)
		}
		return
	}
	// The lower rank: wait for the verdict, unless the arbiter's own
	// connection is already in.
	if err != nil {
		lc.mu.Lock()
		if lc.state == stateDialing {
			lc.fail(err)
		}
		lc.mu.Unlock()
		return
	}
	var v [1]byte
	verdict := byte(0)
	n, verr := c.Recv(ctx, verdictTag, v[:])
	if verr == nil && n == 1 {
		verdict = v[0]
	}
	lc.mu.Lock()
	if lc.closed || lc.state != stateDialing {
		lc.mu.Unlock()
		_ = c.Close()
		return
	}
	switch verdict {
	case verdictAccept:
		lc.commit(c)
		lc.mu.Unlock()
		return
	case verdictGone:
		lc.fail(fmt.Errorf("rank %d has closed its connection to this rank, or failed to make it: %w", lc.peer, fabric.ErrClosed))
		lc.mu.Unlock()
		_ = c.Close()
		return
	}
	ready := lc.ready
	lc.mu.Unlock()
	_ = c.Close()
	// Rejected (or the arbiter went away before answering): its own dial
	// is on the way.
	select {
	case <-ready:
		return
	case <-ctx.Done():
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.state != stateDialing {
		return
	}
	why := "refused this rank's connection"
	if verdict != verdictReject {
		why = fmt.Sprintf("closed this rank's connection without a verdict (%v)", verr)
	}
	if m.ctx.Err() != nil {
		lc.fail(fmt.Errorf("connecting to rank %d: %w", lc.peer, fabric.ErrClosed))
		return
	}
	lc.fail(fmt.Errorf("rank %d %s and did not connect back within %v: %w", lc.peer, why, m.timeout, ctx.Err()))
}

// explain adds to a failed dial the last failure of this rank's own
// accept loop, if any: when a peer could not set up a pair with this rank,
// this rank's side of it may say why.
func (lc *lazyConn) explain(err error) error {
	lc.m.mu.Lock()
	aerr := lc.m.acceptErr
	lc.m.mu.Unlock()
	if aerr != nil {
		return fmt.Errorf("%w (this rank's last failed accept: %v)", err, aerr)
	}
	return err
}

// Send connects if need be and sends b.
func (lc *lazyConn) Send(ctx context.Context, tag uint32, b []byte) error {
	c, err := lc.get(ctx)
	if err != nil {
		return err
	}
	return c.Send(ctx, tag, b)
}

// Recv connects if need be and receives a message.
func (lc *lazyConn) Recv(ctx context.Context, tag uint32, b []byte) (int, error) {
	c, err := lc.get(ctx)
	if err != nil {
		return 0, err
	}
	return c.Recv(ctx, tag, b)
}

// Close closes the connection, or makes sure none is made: waiting calls
// return fabric.ErrClosed, and so do later ones.
func (lc *lazyConn) Close() error {
	lc.mu.Lock()
	if lc.closed {
		lc.mu.Unlock()
		return nil
	}
	lc.closed = true
	c := lc.conn
	if lc.state != stateConnected && lc.state != stateFailed {
		lc.fail(fmt.Errorf("connection to rank %d: %w", lc.peer, fabric.ErrClosed))
	}
	lc.mu.Unlock()
	if c != nil {
		return c.Close()
	}
	return nil
}

// EagerLimit is what the connection, once made, promises (see
// collectives): the transport's Traits.
func (lc *lazyConn) EagerLimit() int { return lc.traits.EagerLimit }

// SharedMemory reports whether the connection, once made, goes through
// shared memory.
func (lc *lazyConn) SharedMemory() bool { return lc.traits.SharedMemory }

// Crowded reports whether the connection, once made, joins two ranks of a
// crowded host (fabric.Traits.Crowded).
func (lc *lazyConn) Crowded() bool { return lc.traits.Crowded }

// rma returns the connection to peer, made now if it was not yet, as an
// fabric.RMAConn, or why it cannot be one.
func (m *mesh) rma(ctx context.Context, peer int) (fabric.RMAConn, error) {
	if peer < 0 || peer >= len(m.peers) || m.peers[peer] == nil {
		return nil, fmt.Errorf("RMA to rank %d: no such peer", peer)
	}
	c, err := m.peers[peer].get(ctx)
	if err != nil {
		return nil, err
	}
	r, ok := c.(fabric.RMAConn)
	if !ok {
		return nil, fmt.Errorf("RMA to rank %d: %w", peer, fabric.ErrNoRMA)
	}
	return r, nil
}
