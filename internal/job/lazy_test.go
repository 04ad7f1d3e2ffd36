package job

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// testNet joins in-process meshes with pipe pairs, through listeners fed by
// channels, with hooks that hold a dial back so that a test can force the
// order in which the two dials of a pair arrive.
type testNet struct {
	meshes []*mesh
	lns    []*chanListener

	mu    sync.Mutex
	pair  map[fabric.Conn]int // pipe end → pair number
	made  map[[2]int]int      // dials delivered, per (from, to)
	gates map[[2]int]chan struct{}
	fails map[[2]int]error
}

type arrival struct {
	c    fabric.Conn
	peer int
}

// chanListener is a fabric.Listener fed by testNet's dials.
type chanListener struct {
	ch        chan arrival
	done      chan struct{}
	closeOnce sync.Once
}

func (l *chanListener) Addr() string { return "test://" }
func (l *chanListener) Accept(ctx context.Context) (fabric.Conn, int, error) {
	select {
	case a := <-l.ch:
		return a.c, a.peer, nil
	case <-l.done:
		return nil, 0, fabric.ErrClosed
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
}
func (l *chanListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return nil
}

// newTestNet makes n ranks' meshes, each accepting on its listener.
func newTestNet(t *testing.T, n int, timeout time.Duration) *testNet {
	t.Helper()
	tn := &testNet{pair: map[fabric.Conn]int{}, made: map[[2]int]int{}, gates: map[[2]int]chan struct{}{}, fails: map[[2]int]error{}}
	traits := make([]fabric.Traits, n)
	for i := range traits {
		traits[i] = fabric.Traits{EagerLimit: pipe.DefaultEagerLimit}
	}
	for r := range n {
		ln := &chanListener{ch: make(chan arrival), done: make(chan struct{})}
		tn.lns = append(tn.lns, ln)
		m := newMesh(r, n, timeout)
		m.route(traits, func(ctx context.Context, p int) (fabric.Conn, error) { return tn.dial(ctx, r, p) })
		tn.meshes = append(tn.meshes, m)
	}
	for r, m := range tn.meshes {
		m.serve(tn.lns[r], "test")
	}
	t.Cleanup(func() {
		for _, m := range tn.meshes {
			m.close()
		}
	})
	return tn
}

// hold makes from's dial to to wait until the returned function is called.
func (tn *testNet) hold(from, to int) (release func()) {
	ch := make(chan struct{})
	tn.mu.Lock()
	tn.gates[[2]int{from, to}] = ch
	tn.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

func (tn *testNet) dial(ctx context.Context, from, to int) (fabric.Conn, error) {
	tn.mu.Lock()
	gate, err := tn.gates[[2]int{from, to}], tn.fails[[2]int{from, to}]
	tn.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, err
	}
	mine, theirs := pipe.Pair()
	tn.mu.Lock()
	id := len(tn.pair) / 2
	tn.pair[mine], tn.pair[theirs] = id, id
	tn.mu.Unlock()
	select {
	case tn.lns[to].ch <- arrival{theirs, from}:
	case <-tn.lns[to].done:
		return nil, fmt.Errorf("rank %d's listener is closed: connection refused", to)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	tn.mu.Lock()
	tn.made[[2]int{from, to}]++
	tn.mu.Unlock()
	return mine, nil
}

// conn returns rank a's lazy connection to rank b.
func (tn *testNet) conn(a, b int) *lazyConn { return tn.meshes[a].peers[b] }

// checkOne checks that ranks a and b use the two ends of one pipe pair.
func (tn *testNet) checkOne(t *testing.T, a, b int) {
	t.Helper()
	ca, cb := tn.conn(a, b), tn.conn(b, a)
	ca.mu.Lock()
	x := ca.conn
	ca.mu.Unlock()
	cb.mu.Lock()
	y := cb.conn
	cb.mu.Unlock()
	tn.mu.Lock()
	defer tn.mu.Unlock()
	if x == nil || y == nil || tn.pair[x] != tn.pair[y] {
		t.Errorf("ranks %d and %d do not share one connection: %v (pair %d), %v (pair %d)", a, b, x, tn.pair[x], y, tn.pair[y])
	}
}

// exchange sends a message each way between a and b, from two goroutines
// per rank, and checks them.
func exchange(t *testing.T, ctx context.Context, tn *testNet, a, b int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i, dir := range [][2]int{{a, b}, {b, a}} {
		from, to := dir[0], dir[1]
		wg.Go(func() { errs[2*i] = tn.conn(from, to).Send(ctx, 7, []byte(fmt.Sprint(from))) })
		wg.Go(func() {
			buf := make([]byte, 8)
			n, err := tn.conn(to, from).Recv(ctx, 7, buf)
			if err == nil && string(buf[:n]) != fmt.Sprint(from) {
				err = fmt.Errorf("got %q, want %q", buf[:n], fmt.Sprint(from))
			}
			errs[2*i+1] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("exchange %d<->%d: %v", a, b, err)
	}
}

// waitState waits until lc is in state.
func waitState(t *testing.T, lc *lazyConn, state int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lc.mu.Lock()
		s := lc.state
		lc.mu.Unlock()
		if s == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("rank %d's connection to %d stuck in state %d, want %d", lc.m.self, lc.peer, s, state)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLazyInterleavings forces each order in which the two ranks of a pair
// can start connecting, and checks that they end on one connection that
// carries messages both ways, with the dials expected.
func TestLazyInterleavings(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, ctx context.Context, tn *testNet)
		// dials delivered: lower→higher, higher→lower
		lower, higher int
	}{
		{"LowerFirst", func(t *testing.T, ctx context.Context, tn *testNet) {
			if err := tn.conn(0, 1).Send(ctx, 7, []byte("0")); err != nil {
				t.Fatal(err)
			}
			exchange(t, ctx, tn, 0, 1)
		}, 1, 0},
		{"HigherFirst", func(t *testing.T, ctx context.Context, tn *testNet) {
			if err := tn.conn(1, 0).Send(ctx, 7, []byte("1")); err != nil {
				t.Fatal(err)
			}
			waitState(t, tn.conn(0, 1), stateConnected) // its accept loop took the dial
			exchange(t, ctx, tn, 0, 1)
		}, 0, 1},
		{"HigherFirstLowerIdleRecv", func(t *testing.T, ctx context.Context, tn *testNet) {
			// A Recv connects too: the lower rank's Recv dials, and so
			// does the higher's Send.
			exchange(t, ctx, tn, 0, 1)
		}, -1, -1},
		{"BothDialLowerArrivesWhileHigherDials", func(t *testing.T, ctx context.Context, tn *testNet) {
			// The higher rank is dialing (its dial held); the lower's
			// arrives and is rejected; the lower waits for the higher's.
			release := tn.hold(1, 0)
			higher := make(chan error, 1)
			go func() { higher <- tn.conn(1, 0).Send(ctx, 7, []byte("1")) }()
			waitState(t, tn.conn(1, 0), stateDialing)
			lower := make(chan error, 1)
			go func() { lower <- tn.conn(0, 1).Send(ctx, 7, []byte("0")) }()
			waitDelivered(t, tn, 0, 1)
			time.Sleep(20 * time.Millisecond) // the lower rank waits for the higher's dial
			if s := state(tn.conn(0, 1)); s != stateDialing {
				t.Errorf("lower rank in state %d before the higher's dial arrived, want dialing", s)
			}
			release()
			if err := errors.Join(<-higher, <-lower); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 1)
			for _, d := range [][2]int{{0, 1}, {1, 0}} {
				if _, err := tn.conn(d[1], d[0]).Recv(ctx, 7, buf); err != nil || buf[0] != byte('0'+d[0]) {
					t.Fatalf("rank %d from %d: %q, %v", d[1], d[0], buf, err)
				}
			}
		}, 1, 1},
		{"BothDialHigherArrivesFirst", func(t *testing.T, ctx context.Context, tn *testNet) {
			// The lower rank's dial is held until the higher's has
			// connected both; then the lower's arrives, is rejected,
			// and is dropped.
			release := tn.hold(0, 1)
			lower := make(chan error, 1)
			go func() { lower <- tn.conn(0, 1).Send(ctx, 7, []byte("0")) }()
			waitState(t, tn.conn(0, 1), stateDialing)
			if err := tn.conn(1, 0).Send(ctx, 7, []byte("1")); err != nil {
				t.Fatal(err)
			}
			waitState(t, tn.conn(0, 1), stateConnected)
			if err := <-lower; err != nil { // it used the higher rank's connection
				t.Fatal(err)
			}
			release()
			waitDelivered(t, tn, 0, 1)
			exchange(t, ctx, tn, 0, 1)
			buf := make([]byte, 1)
			for _, d := range [][2]int{{0, 1}, {1, 0}} {
				if _, err := tn.conn(d[1], d[0]).Recv(ctx, 7, buf); err != nil || buf[0] != byte('0'+d[0]) {
					t.Fatalf("rank %d from %d: %q, %v", d[1], d[0], buf, err)
				}
			}
		}, 1, 1},
		{"LowerAcceptedThenHigherUses", func(t *testing.T, ctx context.Context, tn *testNet) {
			// The lower rank's dial is accepted before the higher rank
			// needs the pair: the higher never dials.
			if err := tn.conn(0, 1).Send(ctx, 7, []byte("0")); err != nil {
				t.Fatal(err)
			}
			waitState(t, tn.conn(1, 0), stateConnected)
			exchange(t, ctx, tn, 0, 1)
		}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tn := newTestNet(t, 2, 10*time.Second)
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			tc.run(t, ctx, tn)
			tn.checkOne(t, 0, 1)
			tn.mu.Lock()
			lo, hi := tn.made[[2]int{0, 1}], tn.made[[2]int{1, 0}]
			tn.mu.Unlock()
			if tc.lower >= 0 && (lo != tc.lower || hi != tc.higher) {
				t.Errorf("dials delivered: lower→higher %d, higher→lower %d; want %d, %d", lo, hi, tc.lower, tc.higher)
			}
			if lo+hi < 1 || lo > 1 || hi > 1 {
				t.Errorf("dials delivered: lower→higher %d, higher→lower %d; want one or two, at most one each", lo, hi)
			}
		})
	}
}

func state(lc *lazyConn) int {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.state
}

// waitDelivered waits until from's dial to `to` has been accepted.
func waitDelivered(t *testing.T, tn *testNet, from, to int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tn.mu.Lock()
		n := tn.made[[2]int{from, to}]
		tn.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("rank %d's dial to %d never arrived", from, to)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLazyFailures checks that a call waiting for a connection returns:
// on ctx's end (and the pair connects later all the same), on Close, when
// the dial fails, when the peer is closed, and when the higher rank
// rejects the lower's dial and never dials back.
func TestLazyFailures(t *testing.T) {
	t.Run("CtxEnds", func(t *testing.T) {
		tn := newTestNet(t, 2, 10*time.Second)
		release := tn.hold(1, 0)
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := tn.conn(1, 0).Recv(ctx, 7, make([]byte, 1))
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
			t.Fatalf("Recv = %v after %v; want the deadline, at once", err, time.Since(start))
		}
		release()
		ctx2, cancel2 := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel2()
		exchange(t, ctx2, tn, 0, 1)
	})
	t.Run("Close", func(t *testing.T) {
		tn := newTestNet(t, 2, 10*time.Second)
		tn.hold(0, 1) // never released: the mesh's close ends the dial
		errc := make(chan error, 1)
		go func() {
			_, err := tn.conn(0, 1).Recv(t.Context(), 7, make([]byte, 1))
			errc <- err
		}()
		waitState(t, tn.conn(0, 1), stateDialing)
		tn.conn(0, 1).Close()
		select {
		case err := <-errc:
			if !errors.Is(err, fabric.ErrClosed) {
				t.Errorf("Recv after Close = %v, want ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not unblock a Recv waiting for its connection")
		}
		if err := tn.conn(0, 1).Send(t.Context(), 7, nil); !errors.Is(err, fabric.ErrClosed) {
			t.Errorf("Send after Close = %v, want ErrClosed", err)
		}
	})
	t.Run("DialFails", func(t *testing.T) {
		tn := newTestNet(t, 2, 10*time.Second)
		tn.mu.Lock()
		tn.fails[[2]int{1, 0}] = errors.New("connection refused")
		tn.mu.Unlock()
		err := tn.conn(1, 0).Send(t.Context(), 7, nil)
		if err == nil || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("Send = %v, want the dial's error", err)
		}
		if err2 := tn.conn(1, 0).Send(t.Context(), 7, nil); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("second Send = %v, want the same error", err2)
		}
		// The lower rank's dial to the failed side is told so at once.
		start := time.Now()
		if err := tn.conn(0, 1).Send(t.Context(), 7, nil); !errors.Is(err, fabric.ErrClosed) || time.Since(start) > 5*time.Second {
			t.Errorf("lower rank's Send = %v after %v, want ErrClosed at once", err, time.Since(start))
		}
	})
	for _, closed := range []int{0, 1} {
		t.Run(fmt.Sprintf("PeerClosed%d", closed), func(t *testing.T) {
			tn := newTestNet(t, 2, 10*time.Second)
			tn.conn(closed, 1-closed).Close()
			start := time.Now()
			_, err := tn.conn(1-closed, closed).Recv(t.Context(), 7, make([]byte, 1))
			if !errors.Is(err, fabric.ErrClosed) || time.Since(start) > 5*time.Second {
				t.Errorf("Recv from a closed peer = %v after %v, want ErrClosed at once", err, time.Since(start))
			}
		})
	}
	t.Run("RejectedNeverDialedBack", func(t *testing.T) {
		tn := newTestNet(t, 2, 300*time.Millisecond)
		tn.hold(1, 0) // the higher rank dials but never arrives
		go tn.conn(1, 0).Send(t.Context(), 7, nil)
		waitState(t, tn.conn(1, 0), stateDialing)
		start := time.Now()
		err := tn.conn(0, 1).Send(t.Context(), 7, nil)
		if err == nil || !strings.Contains(err.Error(), "rank 1 refused this rank's connection and did not connect back within 300ms") || time.Since(start) > 5*time.Second {
			t.Errorf("Send = %v after %v; want the refusal, after the connect timeout", err, time.Since(start))
		}
	})
}

// TestLazyConformance runs the fabric.Conn conformance suite over a pair of
// lazy connections, with rank 0 (the lower) as a and rank 1 as b.
func TestLazyConformance(t *testing.T) {
	fabrictest.TestConnPair(t, func(t *testing.T) (a, b fabric.Conn) {
		tn := newTestNet(t, 2, 10*time.Second)
		return tn.conn(0, 1), tn.conn(1, 0)
	})
}

// TestLazyManyRanks has 12 ranks all send to all at once, from a sender
// and a receiver goroutine each, and checks every message and that every
// pair ended on one connection.
func TestLazyManyRanks(t *testing.T) {
	const n = 12
	tn := newTestNet(t, n, 20*time.Second)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for r := range n {
		wg.Go(func() {
			for k := 1; k < n; k++ {
				if err := tn.conn(r, (r+k)%n).Send(ctx, 3, []byte{byte(r)}); err != nil {
					errs <- err
					return
				}
			}
		})
		wg.Go(func() {
			buf := make([]byte, 1)
			for k := 1; k < n; k++ {
				from := (r - k + n) % n
				if _, err := tn.conn(r, from).Recv(ctx, 3, buf); err != nil || buf[0] != byte(from) {
					errs <- fmt.Errorf("rank %d from %d: %v, %v", r, from, buf, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for a := range n {
		for b := a + 1; b < n; b++ {
			tn.checkOne(t, a, b)
		}
	}
}
