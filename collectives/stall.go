package collectives

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// ErrStalled is wrapped by the error of a call that waited for a peer
// longer than its stall deadline (Options.StallTimeout) without any
// message moving: the peer is stopped, hung, or waiting itself for a rank
// that is. The error is a *StallError naming the peer.
var ErrStalled = errors.New("collectives: a peer made no progress within the stall deadline")

// StallError is the error of a wait that passed its stall deadline.
type StallError struct {
	// Rank is this rank, Peer the rank it waited for.
	Rank, Peer int
	// Host and PeerHost are their hosts, where Options.HostOf names
	// them ("" otherwise).
	Host, PeerHost string
	// Waited is the deadline that passed: how long no message moved.
	Waited time.Duration
	// Send is true when the wait was a send (for the peer to take the
	// message), false for a receive; Bytes is the message's size.
	Send  bool
	Bytes int
	// Call is the call that waited: "Barrier (dissemination, 0 bytes)",
	// "Recv".
	Call string
	// Phase names what this rank was doing (SetPhase), "" if nothing was
	// set; Into is how long after the phase began the wait started.
	Phase string
	Iter  int
	Into  time.Duration
}

func (e *StallError) Error() string {
	what := fmt.Sprintf("no %d-byte message came from rank %d", e.Bytes, e.Peer)
	if e.Send {
		what = fmt.Sprintf("rank %d did not take the %d-byte message", e.Peer, e.Bytes)
	}
	on := func(h string) string { // as Comm.onHost
		if h == "" {
			return ""
		}
		return " on " + h
	}
	s := fmt.Sprintf("collectives: rank %d%s waited %v for rank %d%s in %s", e.Rank, on(e.Host), e.Waited, e.Peer, on(e.PeerHost), e.Call)
	if e.Phase != "" {
		s += fmt.Sprintf(", %v into phase %q (iteration %d)", e.Into.Round(time.Millisecond), e.Phase, e.Iter)
	}
	return s + ": " + what
}

// Is makes errors.Is(err, ErrStalled) true.
func (e *StallError) Is(target error) bool { return target == ErrStalled }

// Stall deadlines.
//
// A Comm whose Options.StallTimeout is positive keeps a watch: every wait
// for a peer (a connection's Send or Recv) counts itself in and out of one
// atomic word, two uncontended atomic additions per message, and the calls
// pass the connections one context for as long as the caller's context is
// the same, derived from it once. A goroutine looks at the word a few
// times per deadline; when a wait is in progress and the word has not
// changed for the deadline, it cancels that context with a cause, and the
// wait that returns with it says whom it waited for. Nothing is armed or
// allocated per message, and the connections see a context that lives as
// long as the caller's (fabric/tcp arms its socket once per context).

const (
	// waitBegin and waitEnd are what a wait adds to stallWatch.state:
	// the low 16 bits count the waits in progress (two at most: a
	// Sendrecv's send and receive), the rest count the events, so that
	// any wait beginning or ending changes the word.
	waitBegin  = 1<<16 + 1
	waitEnd    = 1<<16 - 1
	waitsMask  = 1<<16 - 1
	maxTick    = 250 * time.Millisecond
	minTick    = time.Millisecond
	tickPerDdl = 8 // looks per deadline
)

// A wait counts itself in and out of the watch's word when it begins and
// ends, and not while its message moves: a single message long enough to
// take longer than the deadline to move would look like a stall. So a wait
// for a message of at least longMessage bytes raises the deadline, while
// it lasts, to the time its message takes at minStallRate, a rate no
// working fabric falls below (1 GiB: 100 s; 4 MiB: 0.4 s).
const (
	longMessage  = 1 << 20
	minStallRate = 10 << 20 // bytes per second
)

// messageAllowance is how long a message of n bytes may take to move.
func messageAllowance(n int) time.Duration {
	return time.Duration(float64(n) / minStallRate * float64(time.Second))
}

// stallCause is the cause the watch cancels the calls' context with.
type stallCause struct {
	waited time.Duration
	phase  string
	iter   int
	into   time.Duration
}

func (c *stallCause) Error() string { return fmt.Sprintf("no progress for %v", c.waited) }

// stallWatch is a Comm's stall deadline; see above.
type stallWatch struct {
	state atomic.Uint64
	// long is the messageAllowance of the long message being waited
	// for, in nanoseconds, 0 while there is none (see longMessage).
	long atomic.Int64

	// parent is the caller's context the calls last came with and ctx
	// the one derived from it that the connections get; both are
	// written by the Comm's goroutine only (under mu, which the watch
	// goroutine takes to cancel), and read by it without the lock.
	parent context.Context
	ctx    context.Context
	cancel context.CancelCauseFunc

	// phaseName and phaseIter are SetPhase's, written under mu by the
	// Comm's goroutine and read by it without the lock.
	phaseName string
	phaseIter int

	mu         sync.Mutex
	timeout    time.Duration
	scale      float64
	phaseStart time.Time
	last       uint64    // state at the last look
	lastChange time.Time // when a look last saw state change

	quit chan struct{}
	done chan struct{}
}

// newStallWatch starts the watch's goroutine; stop ends it.
func newStallWatch(timeout time.Duration, scale float64) *stallWatch {
	w := &stallWatch{timeout: timeout, scale: scale, lastChange: time.Now(),
		quit: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

// set changes the deadline.
func (w *stallWatch) set(timeout time.Duration, scale float64) {
	w.mu.Lock()
	w.timeout, w.scale = timeout, scale
	w.mu.Unlock()
}

// tick is how often the watch looks: tickPerDdl times per deadline, within
// [minTick, maxTick], so a stall is seen at most maxTick after its
// deadline.
func (w *stallWatch) tick() time.Duration {
	w.mu.Lock()
	d := w.timeout
	w.mu.Unlock()
	if d <= 0 {
		return maxTick
	}
	return min(max(d/tickPerDdl, minTick), maxTick)
}

func (w *stallWatch) run() {
	defer close(w.done)
	t := time.NewTimer(w.tick())
	defer t.Stop()
	for {
		select {
		case <-w.quit:
			return
		case now := <-t.C:
			w.look(now)
		}
		t.Reset(w.tick())
	}
}

// look is one look at the waits: it cancels the calls' context when a wait
// is in progress and nothing has moved for the deadline.
func (w *stallWatch) look(now time.Time) {
	v := w.state.Load()
	w.mu.Lock()
	defer w.mu.Unlock()
	if v != w.last {
		w.last, w.lastChange = v, now
		return
	}
	if v&waitsMask == 0 || w.timeout <= 0 || w.ctx == nil || w.ctx.Err() != nil {
		return
	}
	ddl := max(w.timeout, time.Duration(w.long.Load()))
	var into time.Duration
	if !w.phaseStart.IsZero() {
		into = max(w.lastChange.Sub(w.phaseStart), 0)
		if w.scale > 0 {
			ddl = max(ddl, time.Duration(w.scale*float64(into)))
		}
	}
	if now.Sub(w.lastChange) < ddl {
		return
	}
	w.cancel(&stallCause{waited: ddl, phase: w.phaseName, iter: w.phaseIter, into: into})
}

// begin and end count a wait for a message of n bytes in and out.
func (w *stallWatch) begin(n int) {
	if n >= longMessage {
		w.long.Store(int64(messageAllowance(n)))
	}
	w.state.Add(waitBegin)
}

func (w *stallWatch) end(n int) {
	w.state.Add(waitEnd)
	if n >= longMessage {
		w.long.Store(0)
	}
}

// context returns the context the connections get for a call made with
// parent: the one derived from parent, made again when parent changes or
// the last one ended. Only the Comm's goroutine calls it.
func (w *stallWatch) context(parent context.Context) context.Context {
	if w.parent != nil && parent == w.parent && w.ctx.Err() == nil {
		return w.ctx
	}
	ctx, cancel := context.WithCancelCause(parent)
	w.mu.Lock()
	old := w.cancel
	w.ctx, w.cancel = ctx, cancel
	// Comparing parent with == panics for a context type that is not
	// comparable: such a context is derived from on every call instead.
	w.parent = nil
	if reflect.TypeOf(parent).Comparable() {
		w.parent = parent
	}
	w.mu.Unlock()
	if old != nil {
		old(nil) // releases it from its parent
	}
	return ctx
}

// setPhase records what the rank is doing.
func (w *stallWatch) setPhase(name string, iter int) {
	if name == w.phaseName && iter == w.phaseIter && !w.phaseStart.IsZero() {
		return
	}
	now := time.Now()
	w.mu.Lock()
	w.phaseName, w.phaseIter, w.phaseStart = name, iter, now
	w.mu.Unlock()
}

// stop ends the watch's goroutine and releases the context.
func (w *stallWatch) stop() {
	close(w.quit)
	<-w.done
	w.mu.Lock()
	cancel := w.cancel
	w.mu.Unlock()
	if cancel != nil {
		cancel(nil)
	}
}

// watch returns the context a call made with ctx passes to the
// connections: ctx itself without a watch.
func (c *Comm) watch(ctx context.Context) context.Context {
	if c.stall == nil {
		return ctx
	}
	return c.stall.context(ctx)
}

// stalled returns the StallError of a wait on peer that failed, or nil if
// the watch did not end it.
func (c *Comm) stalled(ctx context.Context, peer int, send bool, bytes int) *StallError {
	if c.stall == nil {
		return nil
	}
	sc, ok := context.Cause(ctx).(*stallCause)
	if !ok {
		return nil
	}
	se := &StallError{Rank: c.rank, Peer: peer, Waited: sc.waited, Send: send, Bytes: bytes,
		Phase: sc.phase, Iter: sc.iter, Into: sc.into}
	if c.opts.HostOf != nil {
		se.Host, se.PeerHost = c.opts.HostOf(c.rank), c.opts.HostOf(peer)
	}
	return se
}

// SetPhase tells the Comm what this rank is doing: the phase's name and
// iteration, for the errors of waits that stall (see StallError), and the
// start of the phase, from which Options.StallScale measures. A call with
// the phase already set does nothing, so it may be made on every progress
// report. It is not safe to call while another call of this Comm runs.
func (c *Comm) SetPhase(name string, iter int) {
	if c.stall != nil {
		c.stall.setPhase(name, iter)
	}
}
