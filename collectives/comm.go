package collectives

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hpcbench/hpcbench/fabric"
)

// Errors returned by a Comm; test with errors.Is.
var (
	// ErrAborted means an earlier collective call failed on this Comm,
	// which then closed its connections; the Comm cannot be used again.
	ErrAborted = errors.New("collectives: communicator aborted")
	// ErrSizeMismatch means a message had a different length than the
	// receiving rank expected: the ranks passed buffers of different
	// sizes to the same collective call.
	ErrSizeMismatch = errors.New("collectives: buffer sizes differ between ranks")
)

// Comm is one rank's view of a group of size ranks joined pairwise by
// fabric connections: point-to-point messages and collective operations.
//
// A Comm is not safe for concurrent use, except Close: like an MPI
// communicator, its calls are made from one goroutine, and every rank makes
// the same collective calls in the same order with matching arguments
// (same sizes, root, datatype and op). Collective calls on different ranks
// never share message tags with user point-to-point traffic or with each
// other (see Tags in the package documentation).
//
// Failure is fatal to the Comm, as MPI's default error handler makes it: a
// collective call that fails (a peer's connection closed, ctx ended, a
// buffer of the wrong size) closes all of this rank's connections before it
// returns, so that ranks blocked on this one fail at once with
// fabric.ErrClosed instead of waiting for their deadlines, and every later
// call returns an error wrapping ErrAborted. The connections are shared
// with the communicators Sub makes, which therefore fail too. Point-to-point
// calls do not abort the Comm: a timed-out Recv leaves it usable.
//
// A Comm keeps scratch buffers as large as the largest call needed, until
// Close; the communicators Sub makes share them, since only one goroutine
// at a time calls any of them (IMB's tables on 2, 4, … 128 of 256 ranks
// would otherwise keep a set each: about 1 GiB at 4 MiB).
type Comm struct {
	rank, size int
	conns      []fabric.Conn
	family     []fabric.Conn // every connection, closed when any communicator on them fails
	eager      []int         // per peer: largest Send that never waits for the peer, or -1
	shared     []bool        // per peer: the connection is through shared memory (sharedMemoryConn)
	crowdedTo  []bool        // per peer: the connection joins two ranks of a crowded host (crowdedConn)
	crowded    bool          // every peer is crowdedTo: see allCrowded
	opts       Options
	th         Thresholds // opts.Thresholds with defaults filled in
	forced     [numColls]alg
	seq        uint32 // sequence number of the last collective call
	id         uint32 // communicator id, in every tag
	ids        *idSet // the ids in use on these connections, shared with Sub's communicators
	sub        bool   // made by Sub: the connections belong to the parent

	stall   *stallWatch      // nil until Options.StallTimeout is first positive
	alloc   fabric.Allocator // Options.Allocator at New; nil for the heap
	scratch *[3][]byte       // reused by the algorithms, shared with Sub's communicators; see buf

	// failed is why the Comm can no longer be used, or nil: set once, by
	// the first failed call or by Close. Every collective call loads it,
	// and an atomic load costs no locked instruction, where a mutex's
	// lock and unlock cost two (a few percent of an 8-byte Bcast).
	failed atomic.Pointer[abortedError]
	mu     sync.Mutex // guards closed
	closed bool
}

// abortedError is what calls on an aborted Comm wrap: errors.Is matches
// ErrAborted and, through the cause, what made the Comm fail.
type abortedError struct {
	reason string // the failed call, or "closed"
	cause  error  // the failure, or nil after Close
}

func (e *abortedError) Error() string {
	if e.cause == nil {
		return "communicator aborted: " + e.reason
	}
	return "communicator aborted: " + e.reason + ": " + e.cause.Error()
}

func (e *abortedError) Is(target error) bool { return target == ErrAborted }
func (e *abortedError) Unwrap() error        { return e.cause }

// eagerConn is implemented by connections that know how large a message
// Send can always deliver without waiting for the peer to Recv it
// (fabric/pipe). A Comm uses it to run a small Sendrecv in one goroutine.
type eagerConn interface {
	EagerLimit() int
}

// sharedMemoryConn is implemented by connections through memory both
// processes map (fabric/shm), where a message costs a cache-line transfer
// rather than a trip through a network stack. A Comm uses it to choose the
// two-rank barrier (see Comm.Barrier).
type sharedMemoryConn interface {
	SharedMemory() bool
}

// crowdedConn is implemented by connections that know whether they join
// two ranks of a host running many more ranks than CPUs (fabric/shm; see
// fabric.Traits.Crowded). A Comm whose every connection is crowded picks
// the algorithms with the fewest messages (see Comm.Algorithm).
type crowdedConn interface {
	Crowded() bool
}

// allCrowded reports whether a Comm of more than two ranks reaches every
// peer through a crowded connection. Every rank of a Comm computes the
// same answer: the ranks are then all on one crowded host, and if one of
// them is elsewhere, each rank has a peer across hosts.
func allCrowded(rank int, crowdedTo []bool) bool {
	if len(crowdedTo) <= 2 {
		return false
	}
	for i, cr := range crowdedTo {
		if i != rank && !cr {
			return false
		}
	}
	return true
}

// Self returns the Comm of a rank alone: a singleton job, or a one-rank
// stand-in where a caller holds no communicator.
func Self(o Options) (*Comm, error) {
	return New(0, 1, []fabric.Conn{nil}, o)
}

// New returns rank's Comm in a group of size ranks. conns[i] is the
// connection to rank i; conns[rank] must be nil and every other entry
// non-nil. The Comm owns the connections from then on: Close, or a failed
// collective, closes them.
func New(rank, size int, conns []fabric.Conn, o Options) (*Comm, error) {
	if size < 1 {
		return nil, fmt.Errorf("collectives: new communicator: size %d must be at least 1", size)
	}
	if rank < 0 || rank >= size {
		return nil, fmt.Errorf("collectives: new communicator: rank %d out of range [0, %d)", rank, size)
	}
	if len(conns) != size {
		return nil, fmt.Errorf("collectives: new communicator: %d connections for %d ranks; want one per rank", len(conns), size)
	}
	for i, cn := range conns {
		if i == rank && cn != nil {
			return nil, fmt.Errorf("collectives: new communicator: conns[%d] is rank %d's own and must be nil", i, rank)
		}
		if i != rank && cn == nil {
			return nil, fmt.Errorf("collectives: new communicator: conns[%d] is nil; rank %d needs a connection to every peer", i, rank)
		}
	}
	c := &Comm{rank: rank, size: size, conns: conns, family: conns, eager: make([]int, size), shared: make([]bool, size),
		crowdedTo: make([]bool, size),
		ids:       newIDSet(), alloc: o.Allocator, scratch: new([3][]byte)}
	for i, cn := range conns {
		c.eager[i] = -1
		if e, ok := cn.(eagerConn); ok {
			c.eager[i] = e.EagerLimit()
		}
		if s, ok := cn.(sharedMemoryConn); ok {
			c.shared[i] = s.SharedMemory()
		}
		if cr, ok := cn.(crowdedConn); ok {
			c.crowdedTo[i] = cr.Crowded()
		}
	}
	c.crowded = allCrowded(rank, c.crowdedTo)
	if err := c.SetOptions(o); err != nil {
		return nil, err
	}
	return c, nil
}

// Rank returns this rank's number, in [0, Size()).
func (c *Comm) Rank() int { return c.rank }

// Size returns the number of ranks.
func (c *Comm) Size() int { return c.size }

// Options returns the options in effect, with the thresholds' defaults
// filled in.
func (c *Comm) Options() Options {
	return Options{Algorithms: maps.Clone(c.opts.Algorithms), Thresholds: c.th,
		StallTimeout: c.opts.StallTimeout, StallScale: c.opts.StallScale, HostOf: c.opts.HostOf}
}

// SetOptions replaces the options (the algorithms forced, the thresholds
// and the stall deadline). Like a collective call, every rank must make it
// at the same point with the same algorithms and thresholds; the stall
// deadline may differ. It is not safe to call while another call of this
// Comm runs.
func (c *Comm) SetOptions(o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	var forced [numColls]alg
	algs := make(map[string]string, len(o.Algorithms))
	for collName, algName := range o.Algorithms {
		a, _ := lookupAlgorithm(collName, algName) // validated above
		id, _ := lookupColl(collName)
		forced[id] = a
		algs[id.String()] = a.String()
	}
	c.opts = Options{Algorithms: algs, Thresholds: o.Thresholds, StallTimeout: o.StallTimeout, StallScale: o.StallScale, HostOf: o.HostOf}
	switch {
	case c.stall != nil:
		c.stall.set(o.StallTimeout, o.StallScale)
	case o.StallTimeout > 0:
		c.stall = newStallWatch(o.StallTimeout, o.StallScale)
	}
	c.th = o.Thresholds.withDefaults()
	c.forced = forced
	return nil
}

// Close closes every connection and releases the scratch buffers. Calls
// blocked in another goroutine fail; later calls fail with ErrAborted. A
// communicator made by Sub leaves the connections, which belong to its
// parent, open, and gives its id back for reuse. Close on a nil Comm (what
// Sub returns to the ranks it leaves out) does nothing.
func (c *Comm) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.failed.CompareAndSwap(nil, &abortedError{reason: "closed"})
	c.mu.Unlock()
	if c.stall != nil {
		c.stall.stop()
	}
	if c.sub {
		c.ids.release(c.id)
		return nil
	}
	err := c.closeConns()
	scratch := *c.scratch
	*c.scratch = [3][]byte{}
	for _, b := range scratch {
		c.Free(b)
	}
	return err
}

// Alloc returns a zeroed n-byte buffer from the Comm's allocator (see
// Options.Allocator), or from the heap. Messages sent from and received
// into such buffers may move faster. Give it back with Free.
func (c *Comm) Alloc(n int) []byte {
	if c.alloc == nil {
		return make([]byte, n)
	}
	return c.alloc.Alloc(n)
}

// Free gives back a buffer from Alloc once no call uses it.
func (c *Comm) Free(b []byte) {
	if c.alloc != nil && b != nil {
		c.alloc.Free(b)
	}
}

// closeConns closes every connection, those of the ranks a Sub
// communicator leaves out too, and joins their errors.
func (c *Comm) closeConns() error {
	var errs []error
	for i, cn := range c.family {
		if cn == nil {
			continue
		}
		if err := cn.Close(); err != nil && !errors.Is(err, fabric.ErrClosed) {
			errs = append(errs, fmt.Errorf("collectives: close connection to rank %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// begin starts a collective call: it fails if the Comm was aborted or ctx
// has ended, and returns the context the call's waits use (ctx, under the
// stall watch if there is one) and the call's tag.
func (c *Comm) begin(ctx context.Context) (context.Context, uint32, error) {
	tag := c.nextTag()
	if failed := c.failed.Load(); failed != nil {
		return ctx, tag, failed
	}
	if err := ctx.Err(); err != nil {
		return ctx, tag, err
	}
	return c.watch(ctx), tag, nil
}

// end finishes a collective call. On failure it wraps err with the call's
// description and, unless the Comm had already failed, aborts the Comm.
func (c *Comm) end(err error, id coll, a alg, bytes int) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrAborted) {
		return fmt.Errorf("collectives: %s on rank %d: %w", id, c.rank, err)
	}
	call := fmt.Sprintf("%s (%s, %d bytes) on rank %d of %d", id, a, bytes, c.rank, c.size)
	if c.failed.CompareAndSwap(nil, &abortedError{reason: call, cause: err}) {
		c.closeConns() // peers see ErrClosed; our own error is the one to report
	}
	var se *StallError
	if errors.As(err, &se) {
		// The StallError says it all: which rank, whom, how long, in what.
		name := id.String()
		se.Call = fmt.Sprintf("%s%s (%s, %d bytes, %d ranks)", strings.ToUpper(name[:1]), name[1:], a, bytes, c.size)
		return se
	}
	return fmt.Errorf("collectives: %s: %w", call, err)
}

// buf returns scratch buffer i (0 to 2) resized to n bytes, growing it if
// needed. Its contents are undefined. An algorithm uses distinct i for
// buffers it needs at the same time.
func (c *Comm) buf(i, n int) []byte {
	s := c.scratch
	if cap(s[i]) < n {
		c.Free(s[i])
		s[i] = c.Alloc(n)
	}
	return s[i][:n]
}
