package deadline

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a net.Conn that records the deadlines set on it.
type recorder struct {
	net.Conn
	mu  sync.Mutex
	set []time.Time
}

func (r *recorder) SetDeadline(t time.Time) error {
	r.mu.Lock()
	r.set = append(r.set, t)
	r.mu.Unlock()
	return r.Conn.SetDeadline(t)
}

// deadlines returns a copy of the deadlines set so far.
func (r *recorder) deadlines() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.set...)
}

// TestDo checks that Do puts ctx's deadline (or the sooner timeout) on the
// socket, that ctx's cancellation interrupts a blocked Read, that the
// error names what ended the Read, and that the deadline is cleared
// afterwards and no watcher touches it later.
func TestDo(t *testing.T) {
	const short, long = 50 * time.Millisecond, time.Hour
	cases := []struct {
		name     string
		timeout  time.Duration
		ctx      func(context.Context) (context.Context, context.CancelFunc)
		cancelIn time.Duration // cancel the context this long after the Read starts; 0: never
		answer   bool          // the peer writes a byte, so the Read succeeds
		first    time.Duration // the first deadline set, from the start; 0: none
		want     []error       // what the error matches; nil: no error
		wantMsg  string        // what its text holds
	}{
		{name: "ctx deadline", ctx: withTimeout(short),
			first: short, want: []error{context.DeadlineExceeded, os.ErrDeadlineExceeded}, wantMsg: "context deadline exceeded (read pipe: i/o timeout)"},
		{name: "ctx deadline before timeout", timeout: long, ctx: withTimeout(short),
			first: short, want: []error{context.DeadlineExceeded, os.ErrDeadlineExceeded}},
		{name: "timeout before ctx deadline", timeout: short, ctx: withTimeout(long),
			first: short, want: []error{os.ErrDeadlineExceeded}, wantMsg: "no answer within 50ms: read pipe: i/o timeout"},
		{name: "cancellation interrupts", ctx: context.WithCancel, cancelIn: short,
			want: []error{context.Canceled, os.ErrDeadlineExceeded}, wantMsg: "context canceled (read pipe: i/o timeout)"},
		{name: "cancellation before the timeout", timeout: long, ctx: context.WithCancel, cancelIn: short,
			first: long, want: []error{context.Canceled, os.ErrDeadlineExceeded}},
		{name: "cancelled before", ctx: cancelled,
			want: []error{context.Canceled}},
		{name: "answer", timeout: long, ctx: context.WithCancel, answer: true, first: long},
		{name: "answer without a deadline", ctx: context.WithCancel, answer: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, peer := net.Pipe()
			defer a.Close()
			defer peer.Close()
			r := &recorder{Conn: a}
			start := time.Now()
			ctx, cancel := c.ctx(t.Context())
			defer cancel()
			if c.cancelIn > 0 {
				timer := time.AfterFunc(c.cancelIn, cancel)
				defer timer.Stop()
			}
			if c.answer {
				go peer.Write([]byte{1})
			}
			err := Do(ctx, r, c.timeout, func() error {
				_, err := r.Read(make([]byte, 1))
				return err
			})
			took := time.Since(start)

			if c.want == nil && err != nil {
				t.Fatalf("Do = %v; want nil", err)
			}
			for _, w := range c.want {
				if !errors.Is(err, w) {
					t.Errorf("Do = %v; want an error matching %v", err, w)
				}
			}
			if !strings.Contains(errString(err), c.wantMsg) {
				t.Errorf("Do = %q; want it to hold %q", err, c.wantMsg)
			}
			if c.want != nil && took > short+2*time.Second {
				t.Errorf("the interrupted Read took %v; want about %v", took, short)
			}

			set := r.deadlines()
			if len(set) == 0 {
				t.Fatal("no deadline was set")
			}
			switch first := set[0]; {
			case c.first == 0 && !first.IsZero():
				t.Errorf("first deadline %v; want none", first)
			case c.first != 0 && (first.Before(start.Add(c.first)) || first.After(start.Add(c.first+time.Second))):
				t.Errorf("first deadline %v after the start; want %v", first.Sub(start), c.first)
			}
			if last := set[len(set)-1]; !last.IsZero() {
				t.Errorf("last deadline set %v; want it cleared", last)
			}

			// The watcher is gone: ending ctx now sets nothing, and the
			// socket reads without a deadline.
			cancel()
			go peer.Write([]byte{2})
			if _, err := a.Read(make([]byte, 1)); err != nil {
				t.Errorf("Read after Do: %v; want the deadline cleared", err)
			}
			if got := r.deadlines(); len(got) != len(set) {
				t.Errorf("deadlines set after Do returned: %v", got[len(set):])
			}
		})
	}
}

// TestBindError checks that a socket whose deadline cannot be set fails
// Bind, and Do without running fn.
func TestBindError(t *testing.T) {
	a, b := net.Pipe()
	b.Close()
	a.Close()
	ran := false
	err := Do(t.Context(), a, time.Second, func() error { ran = true; return nil })
	if err == nil || ran || !strings.HasPrefix(err.Error(), "setting deadline: ") {
		t.Errorf("Do on a closed socket = %v, fn ran: %v; want \"setting deadline: …\" and fn not run", err, ran)
	}
}

// TestErr checks how Err words the errors of bound calls.
func TestErr(t *testing.T) {
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	other := errors.New("bad record")
	cases := []struct {
		name    string
		ctx     context.Context
		timeout time.Duration
		err     error
		want    string
	}{
		{"nil", ended, time.Second, nil, ""},
		{"ctx ended", ended, time.Second, other, "context canceled (bad record)"},
		{"ctx's error already", ended, 0, context.Canceled, "context canceled"},
		{"timeout", t.Context(), time.Second, os.ErrDeadlineExceeded, "no answer within 1s: i/o timeout"},
		{"deadline without a timeout", t.Context(), 0, os.ErrDeadlineExceeded, "i/o timeout"},
		{"other", t.Context(), time.Second, other, "bad record"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &Binding{ctx: c.ctx, timeout: c.timeout}
			got := b.Err(c.err)
			if errString(got) != c.want {
				t.Errorf("Err(%v) = %q; want %q", c.err, got, c.want)
			}
			if c.err != nil && !errors.Is(got, c.err) {
				t.Errorf("Err(%v) = %v; want it to match %v", c.err, got, c.err)
			}
		})
	}
}

// TestContextErr checks ContextErr, also in the moment between a deadline
// passing and the context saying so.
func TestContextErr(t *testing.T) {
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"running", t.Context(), nil},
		{"deadline ahead", fixedDeadline{t.Context(), time.Now().Add(time.Hour)}, nil},
		{"cancelled", ended, context.Canceled},
		{"deadline passed, not yet marked", fixedDeadline{t.Context(), time.Now().Add(-time.Millisecond)}, context.DeadlineExceeded},
	}
	for _, c := range cases {
		if got := ContextErr(c.ctx); got != c.want {
			t.Errorf("%s: ContextErr = %v; want %v", c.name, got, c.want)
		}
	}
}

// fixedDeadline is a context whose deadline is dl but which only ends with
// its parent, as a context does between its deadline and its timer.
type fixedDeadline struct {
	context.Context
	dl time.Time
}

func (f fixedDeadline) Deadline() (time.Time, bool) { return f.dl, true }

func withTimeout(d time.Duration) func(context.Context) (context.Context, context.CancelFunc) {
	return func(ctx context.Context) (context.Context, context.CancelFunc) {
		return context.WithTimeout(ctx, d)
	}
}

func cancelled(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	return ctx, cancel
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
