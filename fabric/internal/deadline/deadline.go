// Package deadline binds a context to the deadline of a socket or a
// listener, for the set-up paths of the fabric transports that run over
// sockets (tcp, the side channel of verbs, the unix socket of shm):
// accepting a connection and the handshake on it.
//
// While bound, the context's deadline is the socket's, brought forward to
// a handshake timeout when one is given; the context's cancellation sets a
// deadline in the past, which makes a blocked Read, Write or Accept return
// at once. The goroutine that does so belongs to the Binding, which waits
// for it on Release and then clears the deadline; errors name the context's
// error when its end cut the I/O short.
package deadline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// Setter is a socket or listener whose blocked calls a deadline
// interrupts: a net.Conn, *net.TCPListener or *net.UnixListener.
type Setter interface {
	SetDeadline(t time.Time) error
}

// Past returns a deadline in the past: setting it makes blocked socket I/O
// return at once with os.ErrDeadlineExceeded.
func Past() time.Time { return time.Unix(1, 0) }

// ContextErr returns ctx's error for a call its deadline or cancellation
// interrupted: ctx.Err(), or context.DeadlineExceeded once ctx's deadline
// has passed, for the moment between the socket's deadline (ctx's own)
// firing and ctx's timer marking ctx done. It returns nil while ctx has
// neither ended nor reached its deadline.
func ContextErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}

// Binding is a context bound to the deadline of a Setter, from Bind to
// Release.
type Binding struct {
	ctx     context.Context
	s       Setter
	timeout time.Duration
	stop    func() bool   // unregisters the watcher; false once it has begun
	fired   chan struct{} // closed once the watcher has set a past deadline
}

// Bind sets s's deadline to ctx's, or to timeout from now when that is
// sooner (timeout <= 0 adds no bound), and registers a watcher that sets a
// deadline in the past when ctx ends, so that calls blocked on s return.
// The caller must call Release once its calls on s are done.
func Bind(ctx context.Context, s Setter, timeout time.Duration) (*Binding, error) {
	dl, _ := ctx.Deadline()
	if timeout > 0 {
		if t := time.Now().Add(timeout); dl.IsZero() || t.Before(dl) {
			dl = t
		}
	}
	if err := s.SetDeadline(dl); err != nil {
		return nil, fmt.Errorf("setting deadline: %w", err)
	}
	b := &Binding{ctx: ctx, s: s, timeout: timeout, fired: make(chan struct{})}
	b.stop = context.AfterFunc(ctx, func() {
		defer close(b.fired)
		_ = s.SetDeadline(Past()) // fails only once s is closed, and so do its calls
	})
	return b, nil
}

// Release unregisters the watcher and, if it has begun, waits for it to
// finish, so that it cannot set a past deadline under later calls; then it
// clears s's deadline. It fails only if clearing does (s is closed).
func (b *Binding) Release() error {
	if !b.stop() {
		<-b.fired
	}
	if err := b.s.SetDeadline(time.Time{}); err != nil {
		return fmt.Errorf("clearing deadline: %w", err)
	}
	return nil
}

// Err words err, the error of a call on s while bound, by what ended it.
// When ctx has ended (ContextErr), it is ctx's error with err as detail,
// "context canceled (read …: i/o timeout)", and both match errors.Is;
// when the timeout passed, "no answer within 10s: read …: i/o timeout";
// otherwise err itself. A nil err stays nil.
func (b *Binding) Err(err error) error {
	if err == nil {
		return nil
	}
	if cerr := ContextErr(b.ctx); cerr != nil {
		if errors.Is(err, cerr) {
			return err
		}
		return fmt.Errorf("%w (%w)", cerr, err)
	}
	if b.timeout > 0 && errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("no answer within %v: %w", b.timeout, err)
	}
	return err
}

// Do runs fn with s bound to ctx and timeout (see Bind), releases s, and
// returns fn's error as Err words it, or else Bind's or Release's.
func Do(ctx context.Context, s Setter, timeout time.Duration, fn func() error) error {
	b, err := Bind(ctx, s, timeout)
	if err != nil {
		return err
	}
	err = fn()
	if rerr := b.Release(); err == nil {
		return rerr
	}
	return b.Err(err)
}
