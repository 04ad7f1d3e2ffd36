package tcp

import (
	"context"
	"sync/atomic"
	"time"
)

// past returns a deadline in the past: setting it makes blocked socket I/O
// return at once with os.ErrDeadlineExceeded.
func past() time.Time { return time.Unix(1, 0) }

// side maps a context onto one direction of a socket (its read or its write
// deadline). Its methods, except drop, are called with that direction's lock
// held.
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
			_ = s.set(past())
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
		s.dl = past()
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

// withContext bounds the socket I/O in fn by ctx, for the setup paths
// (accept, handshake): it sets ctx's deadline through set, interrupts on
// cancellation, and clears the deadline afterwards.
func withContext(ctx context.Context, set func(time.Time) error, fn func() error) error {
	dl, _ := ctx.Deadline()
	_ = set(dl)
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(done)
		_ = set(past())
	})
	err := fn()
	if !stop() {
		<-done
	}
	_ = set(time.Time{})
	return err
}
