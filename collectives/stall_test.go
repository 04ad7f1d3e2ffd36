package collectives

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// stallTimeout is the deadline of the stall tests: short, so the tests are
// quick, and bounds are asserted generously around it.
const stallTimeout = 300 * time.Millisecond

// TestStall: one rank of four never calls; the others' call fails with
// ErrStalled after StallTimeout, not before and not much later, and the
// error of a rank that waited for the silent one names it.
func TestStall(t *testing.T) {
	const silent = 2
	for _, tc := range []struct {
		name string
		po   pipe.Options
		call func(ctx context.Context, c *Comm) error
		// only: the ranks that make the call (nil: all but silent)
		only []int
		want string // in the error of rank 0
	}{
		{"Barrier", pipe.Options{}, func(ctx context.Context, c *Comm) error { return c.Barrier(ctx) }, nil,
			"waited 300ms for rank 2 in Barrier (dissemination, 0 bytes, 4 ranks): no 0-byte message came from rank 2"},
		{"Bcast", pipe.Options{}, func(ctx context.Context, c *Comm) error { return c.Bcast(ctx, make([]byte, 8), silent) }, nil,
			"rank 0 waited 300ms for rank 2 in Bcast (binomial, 8 bytes, 4 ranks): no 8-byte message came from rank 2"},
		{"Allreduce", pipe.Options{}, func(ctx context.Context, c *Comm) error {
			return c.Allreduce(ctx, make([]byte, 8), make([]byte, 8), Float64, Sum)
		}, nil, "rank 0 waited 300ms for rank 2 in Allreduce (recursive-doubling, 8 bytes, 4 ranks)"},
		{"Recv", pipe.Options{}, func(ctx context.Context, c *Comm) error {
			_, err := c.Recv(ctx, silent, make([]byte, 8))
			return err
		}, []int{0}, "collectives: rank 0 waited 300ms for rank 2 in Recv: no 8-byte message came from rank 2"},
		{"Send rendezvous", pipe.Options{EagerLimit: -1}, func(ctx context.Context, c *Comm) error {
			return c.Send(ctx, silent, make([]byte, 8))
		}, []int{0}, "collectives: rank 0 waited 300ms for rank 2 in Send: rank 2 did not take the 8-byte message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			comms := newComms(t, 4, tc.po, Options{StallTimeout: stallTimeout})
			callers := tc.only
			if callers == nil {
				callers = []int{0, 1, 3}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			type result struct {
				rank    int
				err     error
				elapsed time.Duration
			}
			out := make(chan result, len(callers))
			for _, r := range callers {
				go func() {
					start := time.Now()
					err := tc.call(ctx, comms[r])
					out <- result{r, err, time.Since(start)}
				}()
			}
			named := false
			for range callers {
				res := <-out
				if res.err == nil {
					t.Errorf("rank %d: no error; want one wrapping ErrStalled", res.rank)
					continue
				}
				if !errors.Is(res.err, ErrStalled) && !errors.Is(res.err, fabric.ErrClosed) {
					// A rank whose peer failed first sees the peer close.
					t.Errorf("rank %d: %v; want ErrStalled or, from a peer that failed, ErrClosed", res.rank, res.err)
				}
				if errors.Is(res.err, ErrStalled) && (res.elapsed < stallTimeout || res.elapsed > stallTimeout+5*time.Second) {
					t.Errorf("rank %d: stalled after %v; want %v to %v", res.rank, res.elapsed, stallTimeout, stallTimeout+5*time.Second)
				}
				var se *StallError
				if errors.As(res.err, &se) && se.Peer == silent {
					named = true
				}
				if res.rank == 0 && !strings.Contains(res.err.Error(), tc.want) {
					t.Errorf("rank 0: %q; want it to contain %q", res.err, tc.want)
				}
			}
			if !named {
				t.Errorf("no rank's StallError named rank %d", silent)
			}
		})
	}
}

// TestStallProgress: a peer that sends slowly but steadily, every message
// within the deadline, never trips it, although the whole exchange takes
// several deadlines.
func TestStallProgress(t *testing.T) {
	comms := newComms(t, 2, pipe.Options{}, Options{StallTimeout: stallTimeout})
	const n = 8
	errs := runRanks(comms, 30*time.Second, func(ctx context.Context, c *Comm) error {
		b := make([]byte, 8)
		for range n {
			if c.Rank() == 1 {
				time.Sleep(stallTimeout / 3)
				if err := c.Send(ctx, 0, b); err != nil {
					return err
				}
				continue
			}
			if _, err := c.Recv(ctx, 1, b); err != nil {
				return err
			}
		}
		return c.Barrier(ctx)
	})
	checkRanks(t, errs)
}

// TestStallScale: with StallScale, a wait that begins d into the phase may
// last up to StallScale × d: a rank late by more than StallTimeout but
// less than that does not trip the deadline; without the scale it does.
func TestStallScale(t *testing.T) {
	for _, tc := range []struct {
		scale   float64
		stalled bool
	}{{4, false}, {0, true}} {
		t.Run(fmt.Sprintf("scale=%v", tc.scale), func(t *testing.T) {
			comms := newComms(t, 2, pipe.Options{}, Options{StallTimeout: stallTimeout, StallScale: tc.scale})
			errs := runRanks(comms, 30*time.Second, func(ctx context.Context, c *Comm) error {
				c.SetPhase("write", 0)
				time.Sleep(stallTimeout) // this rank's own phase
				if c.Rank() == 1 {
					time.Sleep(2 * stallTimeout) // late, by under 4 × its phase
				}
				return c.Barrier(ctx)
			})
			got := errors.Is(errs[0], ErrStalled)
			if got != tc.stalled {
				t.Fatalf("rank 0: %v; want stalled %v", errs[0], tc.stalled)
			}
			if tc.stalled && !strings.Contains(errs[0].Error(), `into phase "write" (iteration 0)`) {
				t.Errorf("rank 0: %q; want the phase named", errs[0])
			}
			if !tc.stalled {
				checkRanks(t, errs)
			}
		})
	}
}

// TestStallRecvLeavesCommUsable: a stalled Recv, like any failed
// point-to-point call, does not abort the Comm: the next call works, with
// its own deadline.
func TestStallRecvLeavesCommUsable(t *testing.T) {
	comms := newComms(t, 2, pipe.Options{}, Options{StallTimeout: stallTimeout})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := comms[0].Recv(ctx, 1, make([]byte, 8)); !errors.Is(err, ErrStalled) {
		t.Fatalf("Recv from a silent peer: %v; want ErrStalled", err)
	}
	errs := runRanks(comms, 30*time.Second, func(ctx context.Context, c *Comm) error { return c.Barrier(ctx) })
	checkRanks(t, errs)
}

// TestStallOff: with StallTimeout 0 a Comm starts no watch and a wait
// lasts until the caller's context ends.
func TestStallOff(t *testing.T) {
	before := runtime.NumGoroutine()
	comms := newComms(t, 2, pipe.Options{}, Options{})
	// Other tests' goroutines may end meanwhile: only more is a watch.
	if comms[0].stall != nil || runtime.NumGoroutine() > before {
		t.Fatalf("a Comm without StallTimeout has a watch (%d goroutines, %d before)", runtime.NumGoroutine(), before)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*stallTimeout)
	defer cancel()
	_, err := comms[0].Recv(ctx, 1, make([]byte, 8))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrStalled) {
		t.Fatalf("Recv: %v; want the context's deadline", err)
	}
}

// TestStallWatchStops: Close ends the watch's goroutine, on a Comm and
// on a Sub communicator, which has a watch of its own.
func TestStallWatchStops(t *testing.T) {
	before := runtime.NumGoroutine()
	mesh := pipe.NewMesh(2, pipe.Options{})
	comms := make([]*Comm, 2)
	for r := range 2 {
		c, err := New(r, 2, mesh[r], Options{StallTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		comms[r] = c
	}
	errs := runRanks(comms, 30*time.Second, func(ctx context.Context, c *Comm) error {
		s, err := c.Sub(ctx, 2)
		if err != nil {
			return err
		}
		if s.stall == nil || s.Options().StallTimeout != time.Minute {
			return fmt.Errorf("Sub: stall watch %v, options %+v; want the parent's deadline", s.stall, s.Options())
		}
		if err := s.Barrier(ctx); err != nil {
			return err
		}
		return s.Close()
	})
	checkRanks(t, errs)
	for _, c := range comms {
		c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after Close, %d before", n, before)
	}
}

// TestStallOptionsValidate: negative deadlines are refused.
func TestStallOptionsValidate(t *testing.T) {
	for _, o := range []Options{{StallTimeout: -time.Second}, {StallScale: -1}} {
		if err := o.Validate(); err == nil {
			t.Errorf("Validate(%+v): nil; want an error", o)
		}
	}
}

// slowConn delays the receipt of every long message (longMessage bytes or
// more) by delay, as a message that takes that long to move would: the
// wait is one call for the whole time.
type slowConn struct {
	fabric.Conn
	delay time.Duration
}

func (c slowConn) Recv(ctx context.Context, tag uint32, b []byte) (int, error) {
	if len(b) >= longMessage {
		select {
		case <-time.After(c.delay):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return c.Conn.Recv(ctx, tag, b)
}

// TestStallLongMessage: one message that takes longer than the deadline to
// move is not a stall while it is within its allowance at minStallRate (an
// 8 MiB message: 800 ms); a silent peer is still found, after that
// allowance; and a short message gets no allowance.
func TestStallLongMessage(t *testing.T) {
	const long = 8 << 20
	allowance := messageAllowance(long)
	for _, tc := range []struct {
		name    string
		size    int
		send    bool // rank 1 sends; false: it stays silent
		stalled bool
	}{
		{"long message, slow", long, true, false},
		{"long message, silent peer", long, false, true},
		{"short message, slow", longMessage - 1, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mesh := pipe.NewMesh(2, pipe.Options{})
			// Slower than the deadline, well within the allowance; a
			// short message (below longMessage) is not delayed by
			// slowConn, so rank 1 sleeps before it sends instead.
			delay := 2 * stallTimeout
			mesh[0][1] = slowConn{mesh[0][1], delay}
			comms := make([]*Comm, 2)
			for r := range 2 {
				c, err := New(r, 2, mesh[r], Options{StallTimeout: stallTimeout})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				comms[r] = c
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			done := make(chan error, 1)
			if tc.send {
				go func() {
					if tc.size < longMessage {
						time.Sleep(delay)
					}
					done <- comms[1].Send(ctx, 0, make([]byte, tc.size))
				}()
			}
			start := time.Now()
			_, err := comms[0].Recv(ctx, 1, make([]byte, tc.size))
			elapsed := time.Since(start)
			if got := errors.Is(err, ErrStalled); got != tc.stalled {
				t.Fatalf("Recv after %v: %v; want stalled %v", elapsed, err, tc.stalled)
			}
			if tc.stalled && tc.size >= longMessage && elapsed < allowance {
				t.Errorf("stalled after %v, before the message's allowance %v", elapsed, allowance)
			}
			if tc.stalled && tc.size >= longMessage && !strings.Contains(err.Error(), "waited 800ms for rank 1") {
				t.Errorf("%q: want the allowance named as the wait", err)
			}
			if tc.send {
				cancel()
				<-done
			}
		})
	}
}

// TestStallErrorNamesHosts: with Options.HostOf, a stalled wait names
// both ranks' hosts; without, only the ranks.
func TestStallErrorNamesHosts(t *testing.T) {
	for _, c := range []struct {
		e    StallError
		want string
	}{
		{StallError{Rank: 0, Peer: 2, Waited: 2 * time.Second, Bytes: 8, Call: "Recv"},
			"collectives: rank 0 waited 2s for rank 2 in Recv: no 8-byte message came from rank 2"},
		{StallError{Rank: 0, Peer: 2, Host: "nshost1", PeerHost: "nshost2", Waited: 2 * time.Second, Bytes: 8, Call: "Recv", Send: true},
			"collectives: rank 0 on nshost1 waited 2s for rank 2 on nshost2 in Recv: rank 2 did not take the 8-byte message"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
