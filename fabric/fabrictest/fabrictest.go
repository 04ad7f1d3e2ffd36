// Package fabrictest checks that a fabric transport keeps the fabric.Conn,
// fabric.Listener and fabric.Transport contracts, and measures it.
//
// It is modelled on golang.org/x/net/nettest's TestConn: one suite of cases
// runs against every implementation, each case under a watchdog. TestConnPair
// takes a function that makes a connected pair of Conns; TestTransport makes
// its own pairs through a Transport's Listen, Dial and Accept and adds the
// cases about listeners and wiring up many ranks. BenchRoundTrip and
// BenchStream (or BenchConnPair for the standard sizes) give every transport
// the same benchmarks.
//
// A transport's test file needs little more than:
//
//	func TestConformance(t *testing.T) { fabrictest.TestTransport(t, newTransport(t)) }
//
//	func BenchmarkTCP(b *testing.B) {
//		tr := newTransport(b)
//		fabrictest.BenchConnPair(b, func(b *testing.B) (x, y fabric.Conn) { return fabrictest.Pair(b, tr) })
//	}
//
// and a transport tested as a pair of Conns (no Listener) calls TestConnPair
// with a function that makes one.
//
// Cases run one after another, never in parallel: several of them check that
// a call returns promptly after a deadline, which a busy machine would blur.
// Run the suite under the race detector.
package fabrictest

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// Watchdog bounds. When a case has run for CaseTimeout, the watchdog marks
// the test failed and closes every connection and listener the case uses,
// which must unblock all of their calls. If the case is still running
// StuckGrace after that, Close does not unblock the transport's calls, and
// the watchdog panics naming the case, so that the test binary fails instead
// of hanging until go test's own -timeout.
const (
	CaseTimeout = 60 * time.Second
	StuckGrace  = 10 * time.Second
)

// env is what a case gets: the pair under test (a and b; nil in transport
// cases, which make their own), a context that ends at the case's deadline,
// the goroutines the case starts, and everything the watchdog must close.
type env struct {
	t    *testing.T
	ctx  context.Context
	a, b *end

	wg      sync.WaitGroup // the case's goroutines; waited for after the closers are closed
	mu      sync.Mutex
	closers []io.Closer
	closed  bool // closeAll has run; later closers are closed at once

	alloc fabric.Allocator // message buffers come from it when not nil
	bufs  [][]byte         // what alloc gave, freed when the case ends
}

// buf returns a zeroed n-byte buffer for a message: the transport's own
// (see fabric.Allocator) when it has an allocator, so that the paths such
// buffers take are the ones tested.
func (e *env) buf(n int) []byte {
	if e.alloc == nil {
		return make([]byte, n)
	}
	b := e.alloc.Alloc(n)
	e.mu.Lock()
	e.bufs = append(e.bufs, b)
	e.mu.Unlock()
	return b
}

// pattern is the package's pattern in a buffer from e.buf.
func (e *env) pattern(size int, seed byte) []byte {
	b := e.buf(size)
	copy(b, pattern(size, seed))
	return b
}

// freeBufs gives the case's buffers back once nothing uses them.
func (e *env) freeBufs() {
	for _, b := range e.bufs {
		e.alloc.Free(b)
	}
	e.bufs = nil
}

// track hands c to the watchdog: it is closed when the case ends or times
// out, or at once if that has already happened.
func (e *env) track(c io.Closer) {
	e.mu.Lock()
	closed := e.closed
	if !closed {
		e.closers = append(e.closers, c)
	}
	e.mu.Unlock()
	if closed {
		_ = c.Close()
	}
}

// closeAll closes everything tracked, ignoring errors (the case may have
// closed some already).
func (e *env) closeAll() {
	e.mu.Lock()
	cs := e.closers
	e.closers, e.closed = nil, true
	e.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
	}
}

// spawn runs f in a goroutine the case owns and returns a channel that
// receives f's result. Goroutines never call t's methods: they report through
// the channel and the case's own goroutine decides.
func (e *env) spawn(f func() error) <-chan error {
	ch := make(chan error, 1)
	e.wg.Go(func() { ch <- f() })
	return ch
}

// end is one side of the pair under test, named "a" or "b" in messages.
type end struct {
	name string
	c    fabric.Conn
}

// run runs one case under the watchdog. a and b may be nil; alloc, if not
// nil, provides the message buffers.
func run(t *testing.T, a, b fabric.Conn, alloc fabric.Allocator, fn func(e *env)) {
	e := &env{t: t, alloc: alloc}
	defer e.freeBufs() // runs last: after the goroutines and the closers
	if a != nil && b != nil {
		e.a, e.b = &end{"a", a}, &end{"b", b}
		e.track(a)
		e.track(b)
	}
	name := t.Name()
	stuck := time.AfterFunc(CaseTimeout+StuckGrace, func() {
		panic("fabrictest: " + name + " still blocked " + StuckGrace.String() +
			" after its connections were closed: Close does not unblock Send, Recv or Accept")
	})
	defer stuck.Stop()
	defer e.wg.Wait()
	// The calls' context outlives the watchdog a little, so that a hung case
	// is reported as one, not as the context errors of its calls.
	ctx, cancel := context.WithTimeout(t.Context(), CaseTimeout+StuckGrace/2)
	defer cancel()
	e.ctx = ctx

	var once sync.Once
	defer once.Do(e.closeAll)
	timer := time.AfterFunc(CaseTimeout, func() {
		once.Do(func() {
			t.Errorf("case timed out after %v; closing its connections", CaseTimeout)
			e.closeAll()
		})
	})
	defer timer.Stop()
	fn(e)
}

// TestConnPair runs the Conn cases against pairs made by mk: anything sent on
// a arrives on b and the other way round. mk is called once per case with the
// case's t; the suite closes both Conns when the case ends, and mk may also
// register their Close with t.Cleanup (a second Close is allowed to fail).
//
// The cases: ordering of 1000 messages each way; tag matching with
// unexpected messages queued; zero-length messages; sizes 1, 7, 4096, 65537
// and 8 MiB with their content checked; truncation (ErrTruncated, then the
// connection still works); an 8 MiB exchange in both directions at once (a
// Send and a Recv on each side); a Recv deadline (context.DeadlineExceeded
// within 1 s of the deadline, the Conn usable afterwards); Recv retried under
// very short deadlines while 8 MiB messages arrive (no byte lost or
// duplicated); Recv cancellation; Close unblocking a Recv and a Send (errors
// wrap fabric.ErrClosed); peer Close failing Recv and, eventually, Send; Send
// and Recv after Close; and a Send deadline when the peer stops receiving.
func TestConnPair(t *testing.T, mk func(t *testing.T) (a, b fabric.Conn)) {
	testConnPair(t, mk, nil)
}

func testConnPair(t *testing.T, mk func(t *testing.T) (a, b fabric.Conn), alloc fabric.Allocator) {
	for _, c := range connCases {
		t.Run(c.name, func(t *testing.T) {
			a, b := mk(t)
			run(t, a, b, alloc, c.fn)
		})
	}
}

// TestTransport runs the Listener and Transport cases against tr, then every
// TestConnPair case twice, once with a as the accepted Conn and once with a
// as the dialed one (b is the other end), both made by Pair. If tr is a
// fabric.Allocator, the messages are sent from and received into its
// buffers.
//
// Transport cases: Addr starts with tr.Name()+"://" and is Reachable; Accept
// returns the dialer's rank; an Accept deadline returns
// context.DeadlineExceeded and the listener still accepts afterwards; closing
// a listener unblocks Accept and leaves its connections open; dialing a
// closed listener fails; and four ranks connect all-to-all the way
// internal/job did (see AllToAll) and exchange a message on every Conn.
// When tr's Conns are fabric.RMAConns, the TestRMAPair cases follow.
func TestTransport(t *testing.T, tr fabric.Transport) {
	alloc, _ := tr.(fabric.Allocator)
	for _, c := range transportCases {
		t.Run(c.name, func(t *testing.T) {
			run(t, nil, nil, alloc, func(e *env) { c.fn(e, tr) })
		})
	}
	t.Run("Accepted", func(t *testing.T) {
		testConnPair(t, func(t *testing.T) (a, b fabric.Conn) { return Pair(t, tr) }, alloc)
	})
	t.Run("Dialed", func(t *testing.T) {
		testConnPair(t, func(t *testing.T) (a, b fabric.Conn) {
			a, b = Pair(t, tr)
			return b, a
		}, alloc)
	})
	testRMA(t, tr)
}
