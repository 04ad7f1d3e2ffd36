package tcp

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// side maps a context onto one direction of a socket (its read or its write
// deadline), for Send and Recv; the set-up paths (accept, handshake) bind
// a context for one call with package deadline instead. Its methods,
// except drop, are called with that direction's lock held.
//
// The context's deadline becomes the socket deadline, and its cancellation
// is a context.AfterFunc that sets a deadline in the past. The AfterFunc
// stays registered while successive calls pass the same context, so the hot
// path, one long-lived context for many Sends or Recvs, neither allocates
// nor touches the context's lock; it is replaced when another context comes
// along and dropped when the connection closes.
type side struct {
	set   func(time.Time) error // SetReadDeadline or SetWriteDeadline
	dl    time.Time             // the deadline last set through set
	watch atomic.Pointer[watch] // cancellation of the last context seen; nil if none
}

// watch is one context's registered cancellation.
type watch struct {
	ctx  context.Context
	stop func() bool
	done chan struct{} // closed when the AfterFunc has run
}

// arm makes the socket's deadline and cancellation those of ctx. It returns
// ctx.Err() as it is once armed: if ctx ends later, its AfterFunc interrupts
// the I/O; if it ended before, the caller must not start any.
func (s *side) arm(ctx context.Context) error {
	if ctx.Done() == nil {
		// context.Background and friends: no deadline, no cancellation.
		s.release()
		s.setDeadline(time.Time{})
		return nil
	}
	if w := s.watch.Load(); w == nil || w.ctx != ctx {
		s.release()
		w := &watch{ctx: ctx, done: make(chan struct{})}
		w.stop = context.AfterFunc(ctx, func() {
			defer close(w.done)
			_ = s.set(deadline.Past())
		})
		s.watch.Store(w)
	}
	dl, _ := ctx.Deadline()
	s.setDeadline(dl)
	return ctx.Err()
}

// release unregisters the current watch. If it has fired, release waits for
// it to finish, so that it cannot set a past deadline under a later call,
// and forgets dl, which no longer is the socket's deadline.
func (s *side) release() {
	w := s.watch.Swap(nil)
	if w != nil && !w.stop() {
		<-w.done
		s.dl = deadline.Past()
	}
}

// setDeadline sets the socket's deadline when it differs from the last one
// set.
func (s *side) setDeadline(t time.Time) {
	if !t.Equal(s.dl) {
		_ = s.set(t) // fails only on a closed socket, which the I/O reports
		s.dl = t
	}
}

// drop unregisters the current watch without waiting; Close calls it
// without holding the side's lock.
func (s *side) drop() {
	if w := s.watch.Swap(nil); w != nil {
		w.stop()
	}
}
