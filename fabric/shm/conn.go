//go:build linux

package shm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/fabric"
)

// Conn is a shared-memory connection to one peer rank on this host. It
// implements fabric.Conn.
type Conn struct {
	lay           layout
	side          int        // sideDialer or sideListener
	peerPid       int        // the peer's pid in this pid namespace
	canAccess     bool       // this process may process_vm_readv/writev the peer
	peerCanAccess bool       // the peer may process_vm_readv/writev this process
	arena         *arena     // this process's arena, which the peer maps; nil without
	peerArena     *peerArena // this process's mapping of the peer's arena; nil without
	peerMapsArena bool       // the peer mapped this process's arena
	myDoors       [2]door    // this side's bells, rung through this process's wake-up eventfd
	peerDoors     [2]door    // the peer's bells, rung through the peer's eventfd
	peerWake      int        // the peer's wake-up eventfd, -1 without one; closed by Close
	opts          Options    // this side's options
	sock          *net.UnixConn
	watchDone     chan struct{}

	closed    atomic.Bool // Close was called
	gone      atomic.Bool // the set-up socket reached EOF: the peer closed or died
	closeOnce sync.Once

	_   [cacheLine]byte
	snd sendState
	_   [cacheLine]byte
	rcv recvState
	_   [cacheLine]byte
}

// sendState belongs to the goroutine in Send (under mu).
type sendState struct {
	mu   sync.Mutex
	w    waiter
	p    producer
	ctl  *ringCtl
	seq  uint32        // last rendezvous sequence number used
	err  error         // sticky: this direction is broken
	pin  []byte        // the rendezvous buffer, which must escape to the heap
	last atomic.Uint32 // ring bytes of the last eager record (see warmSend)
	warm bool          // the CPU can prefetch for writing (see warmSend)
}

// recvState belongs to the goroutine in Recv (under mu).
type recvState struct {
	mu   sync.Mutex
	w    waiter
	c    consumer
	ctl  *ringCtl
	q    queue
	part *partial // a pipelined message interrupted half way
	err  error    // sticky: the incoming stream cannot be followed
	pin  []byte   // the rendezvous destination, which must escape to the heap
	long bool     // the Recv in progress is a RecvLong: its waits sleep at once
}

var (
	_ fabric.Conn         = (*Conn)(nil)
	_ fabric.LongReceiver = (*Conn)(nil)
)

// connParams is what set-up learned about a pair.
type connParams struct {
	mem           []byte
	side          int
	peerPid       int
	canAccess     bool
	peerCanAccess bool
	sock          *net.UnixConn
	opts          Options
	arena         *arena
	peerArena     *peerArena
	peerMapsArena bool
	wake          *wake // this process's wake-up eventfd; nil without one
	peerWake      int   // the peer's, -1 without one; the Conn owns it
}

// newConn starts a Conn over a mapping whose header has been checked, and
// its watcher goroutine. The Conn owns p.peerWake from then on; on error
// the caller still does.
func newConn(p connParams) (*Conn, error) {
	lay, err := newLayout(p.mem)
	if err != nil {
		return nil, err
	}
	c := &Conn{
		lay:           lay,
		side:          p.side,
		peerPid:       p.peerPid,
		canAccess:     p.canAccess,
		peerCanAccess: p.peerCanAccess,
		arena:         p.arena,
		peerArena:     p.peerArena,
		peerMapsArena: p.peerMapsArena,
		peerWake:      p.peerWake,
		opts:          p.opts.forRing(int(lay.hdr.ringSize)),
		sock:          p.sock,
		watchDone:     make(chan struct{}),
	}
	myWake := -1
	if p.wake != nil {
		myWake = p.wake.fd
	}
	for i := range c.myDoors {
		c.myDoors[i] = door{b: &lay.hdr.bells[p.side][i], fd: myWake}
		c.peerDoors[i] = door{b: &lay.hdr.bells[1-p.side][i], fd: p.peerWake}
	}
	spin, yield := p.opts.Spin, p.opts.Yield
	if lay.hdr.crowded != 0 {
		spin, yield = min(spin, shortSpin), 0
	}
	w := waiter{maxSpin: spin, yield: yield, mine: &lay.hdr.cpu[p.side].v, peer: &lay.hdr.cpu[1-p.side].v,
		singleP: runtime.GOMAXPROCS(0) == 1, wake: p.wake}
	c.snd.w, c.rcv.w = w, w
	c.snd.warm = prefetchWSupported()
	out, in := &lay.hdr.rings[p.side], &lay.hdr.rings[1-p.side]
	c.snd.ctl, c.snd.p = out, newProducer(out, lay.ringData(p.side))
	c.rcv.ctl, c.rcv.c = in, newConsumer(in, lay.ringData(1-p.side))
	go c.watch()
	return c, nil
}

// watch reads the set-up socket until it fails: at EOF the peer has closed
// its Conn or died; after Close the read fails because the socket is closed.
// Either way the waiters are woken to look at the state.
func (c *Conn) watch() {
	defer close(c.watchDone)
	var b [16]byte
	for {
		_, err := c.sock.Read(b[:])
		if err == nil {
			continue
		}
		if errors.Is(err, net.ErrClosed) {
			return // Close closed the socket; the peer may still be there
		}
		break
	}
	c.gone.Store(true)
	c.myDoors[bellSend].ring()
	c.myDoors[bellRecv].ring()
}

// peerClosed reports whether the peer closed its Conn or went away.
func (c *Conn) peerClosed() bool {
	return c.gone.Load() || c.lay.hdr.closed.v.Load()&(1<<(1-c.side)) != 0
}

// errClosed explains why the connection is unusable.
func (c *Conn) errClosed(op string) error {
	if c.closed.Load() {
		return fmt.Errorf("shm: %s: %w", op, fabric.ErrClosed)
	}
	return fmt.Errorf("shm: %s: peer closed the connection or exited: %w", op, fabric.ErrClosed)
}

// ctxStop returns a stop function for await that ends the wait when ctx
// ends, this side closes, or the peer is gone.
func (c *Conn) ctxStop(ctx context.Context, op string) func() error {
	return func() error {
		if c.closed.Load() || c.peerClosed() {
			return c.errClosed(op)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("shm: %s: %w", op, err)
		}
		return nil
	}
}

// Close releases the connection: blocked calls return ErrClosed, the peer
// sees the connection closed, and the mapping is unmapped once no call is
// using it. A rendezvous copy already under way finishes first. Close is
// safe to call more than once.
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.lay.hdr.closed.v.Or(1 << c.side)
		for i := range c.myDoors {
			c.myDoors[i].ring()
			c.peerDoors[i].ring()
		}
		// Wait for Send and Recv to return (a rendezvous copy under way
		// finishes first), then drop the socket, which the peer sees as
		// EOF, and the mapping.
		c.snd.mu.Lock()
		c.rcv.mu.Lock()
		defer c.snd.mu.Unlock()
		defer c.rcv.mu.Unlock()
		if cerr := c.sock.Close(); cerr != nil {
			err = fmt.Errorf("shm: close: socket: %w", cerr)
		}
		<-c.watchDone
		if merr := unix.Munmap(c.lay.mem); merr != nil && err == nil {
			err = fmt.Errorf("shm: close: munmap: %w", merr)
		}
		if merr := c.peerArena.unmap(); merr != nil && err == nil {
			err = fmt.Errorf("shm: close: unmapping the peer's arena: %w", merr)
		}
		// No call is under way, and only calls ring the peer's doors.
		if c.peerWake >= 0 {
			if cerr := unix.Close(c.peerWake); cerr != nil && err == nil {
				err = fmt.Errorf("shm: close: the peer's wake-up eventfd: %w", cerr)
			}
			c.peerWake = -1
			for i := range c.peerDoors {
				c.peerDoors[i].fd = -1
			}
		}
		c.rcv.q = queue{}
		c.rcv.part = nil
	})
	return err
}

// EagerLimit is the largest message Send copies whole into the ring and
// returns without waiting for the peer to receive it, as long as the ring
// has room: the ring holds RingSize bytes, so a Send waits only when the
// peer has left that much unreceived. collectives.Comm uses it to run a
// small Sendrecv in one goroutine: handing the send to a second goroutine
// costs a thread wake-up, about 35 µs on a 2-CPU VM, because the first one
// keeps its CPU busy spinning on the receive.
func (c *Conn) EagerLimit() int { return c.opts.EagerLimit }

// SharedMemory reports that messages move through memory both processes
// map: a small one costs a few cache-line transfers, not a trip through a
// network stack. collectives.Comm picks its two-rank barrier by it.
func (c *Conn) SharedMemory() bool { return true }

// Crowded reports whether the pair was dialed on a crowded host (see
// fabric.Traits.Crowded and crowdedFactor), as both ends agree.
func (c *Conn) Crowded() bool { return c.lay.hdr.crowded != 0 }
