package fabrictest

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// transportCases are TestTransport's own cases, in the order they run.
var transportCases = []struct {
	name string
	fn   func(e *env, tr fabric.Transport)
}{
	{"Addr", testAddr},
	{"AcceptPeerRank", testAcceptPeerRank},
	{"AcceptDeadline", testAcceptDeadline},
	{"ListenerClose", testListenerClose},
	{"DialClosedListener", testDialClosedListener},
	{"AllToAll", testAllToAll},
}

// listen opens rank self's listener and hands it to the watchdog.
func (e *env) listen(tr fabric.Transport, self int) fabric.Listener {
	e.t.Helper()
	ln, err := tr.Listen(e.ctx, self)
	if err != nil {
		e.t.Fatalf("Listen(rank %d): %v", self, err)
	}
	e.track(ln)
	return ln
}

// dialAsync dials addr as rank self from a goroutine the case owns and hands
// the Conn to the watchdog.
func (e *env) dialAsync(tr fabric.Transport, self int, addr string) <-chan error {
	return e.spawn(func() error {
		c, err := tr.Dial(e.ctx, self, addr)
		if err != nil {
			return fmt.Errorf("Dial(rank %d, %s): %w", self, addr, err)
		}
		e.track(c)
		return nil
	})
}

// accept accepts one connection on ln, checks the peer's rank and hands the
// Conn to the watchdog.
func (e *env) accept(ln fabric.Listener, wantPeer int) fabric.Conn {
	e.t.Helper()
	c, peer, err := ln.Accept(e.ctx)
	if err != nil {
		e.t.Fatalf("Accept on %s: %v", ln.Addr(), err)
	}
	e.track(c)
	if peer != wantPeer {
		e.t.Fatalf("Accept on %s returned peer rank %d; want %d, the rank that dialed", ln.Addr(), peer, wantPeer)
	}
	return c
}

// testAddr checks the listener's address form and Reachable.
func testAddr(e *env, tr fabric.Transport) {
	ln := e.listen(tr, 0)
	addr := ln.Addr()
	if want := tr.Name() + "://"; !strings.HasPrefix(addr, want) || len(addr) == len(want) {
		e.t.Errorf("Addr() = %q; want %q followed by the transport's address", addr, want)
	}
	if got := fabric.Scheme(addr); got != tr.Name() {
		e.t.Errorf("fabric.Scheme(%q) = %q; want %q", addr, got, tr.Name())
	}
	if !tr.Reachable(addr) {
		e.t.Errorf("Reachable(%q) = false for this process's own listener", addr)
	}
	if other := "nosuchtransport://x"; tr.Reachable(other) {
		e.t.Errorf("Reachable(%q) = true for another transport's address", other)
	}
}

// testAcceptPeerRank checks that Accept reports the rank that dialed, for
// ranks other than 0 and 1 too, and that both Conns carry messages.
func testAcceptPeerRank(e *env, tr fabric.Transport) {
	for _, p := range []struct{ listener, dialer int }{{0, 1}, {5, 3}, {2, 1000}} {
		ln := e.listen(tr, p.listener)
		dialed := make(chan fabric.Conn, 1)
		done := e.spawn(func() error {
			c, err := tr.Dial(e.ctx, p.dialer, ln.Addr())
			if err != nil {
				return fmt.Errorf("Dial(rank %d, %s): %w", p.dialer, ln.Addr(), err)
			}
			e.track(c)
			dialed <- c
			return nil
		})
		acc := &end{"accepted", e.accept(ln, p.dialer)}
		e.wait(done)
		dl := &end{"dialed", <-dialed}
		pingPong(e, acc, dl)
	}
}

// pingPong sends one message each way between x and y.
func pingPong(e *env, x, y *end) {
	e.t.Helper()
	done := e.sendAsync(x, msg{1, []byte("ping")})
	e.recvString(y, 1, "ping")
	e.wait(done)
	done = e.sendAsync(y, msg{1, []byte("pong")})
	e.recvString(x, 1, "pong")
	e.wait(done)
}

// testAcceptDeadline checks that an Accept with no dialer returns
// context.DeadlineExceeded soon after the deadline, and that the listener
// accepts afterwards.
func testAcceptDeadline(e *env, tr fabric.Transport) {
	const d = 100 * time.Millisecond
	ln := e.listen(tr, 0)
	start := time.Now()
	ctx, cancel := context.WithTimeout(e.ctx, d)
	c, peer, err := ln.Accept(ctx)
	cancel()
	if err == nil {
		e.track(c)
		e.t.Fatalf("Accept with no dialer returned a Conn from rank %d", peer)
	}
	e.wantErr("Accept with no dialer", err, context.DeadlineExceeded)
	e.wantPrompt("Accept past its deadline", start.Add(d))

	done := e.dialAsync(tr, 1, ln.Addr())
	e.accept(ln, 1)
	e.wait(done)
}

// testListenerClose checks that closing a listener ends a blocked Accept and
// leaves the Conns it accepted working.
func testListenerClose(e *env, tr fabric.Transport) {
	ln := e.listen(tr, 0)
	dialed := make(chan fabric.Conn, 1)
	done := e.spawn(func() error {
		c, err := tr.Dial(e.ctx, 1, ln.Addr())
		if err != nil {
			return err
		}
		e.track(c)
		dialed <- c
		return nil
	})
	acc := &end{"accepted", e.accept(ln, 1)}
	e.wait(done)
	dl := &end{"dialed", <-dialed}

	got := e.spawn(func() error {
		c, peer, err := ln.Accept(e.ctx)
		if err == nil {
			e.track(c)
			return fmt.Errorf("Accept returned a Conn from rank %d, unexpectedly", peer)
		}
		return nil
	})
	time.Sleep(50 * time.Millisecond) // let the Accept block
	closed := time.Now()
	if err := ln.Close(); err != nil {
		e.t.Errorf("listener Close: %v", err)
	}
	e.wait(got)
	e.wantPrompt("Accept blocked during the listener's Close", closed)
	pingPong(e, acc, dl)
}

// testDialClosedListener checks that dialing the address of a closed
// listener fails rather than hangs.
func testDialClosedListener(e *env, tr fabric.Transport) {
	ln, err := tr.Listen(e.ctx, 0)
	if err != nil {
		e.t.Fatalf("Listen(rank 0): %v", err)
	}
	addr := ln.Addr()
	if err := ln.Close(); err != nil {
		e.t.Fatalf("listener Close: %v", err)
	}
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
	defer cancel()
	c, err := tr.Dial(ctx, 1, addr)
	if err == nil {
		e.track(c)
		e.t.Fatalf("Dial(%s) succeeded after the listener was closed", addr)
	}
}

// testAllToAll connects four ranks as AllToAll does and sends one message on
// every Conn in each direction, checking that it reaches the rank it names.
func testAllToAll(e *env, tr fabric.Transport) {
	const n = 4
	conns, err := connect(e.ctx, tr, n)
	if err != nil {
		e.t.Fatalf("connecting %d ranks: %v", n, err)
	}
	for _, row := range conns {
		for _, c := range row {
			if c != nil {
				e.track(c)
			}
		}
	}
	body := func(from, to int) []byte {
		return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(from)), uint32(to))
	}
	var chs []<-chan error
	for self := range n {
		// Each rank sends to every peer from one goroutine and receives from
		// every peer in another: one Send and one Recv per Conn at a time.
		chs = append(chs, e.spawn(func() error {
			for peer := range n {
				if peer == self {
					continue
				}
				if err := conns[self][peer].Send(e.ctx, uint32(self), body(self, peer)); err != nil {
					return fmt.Errorf("rank %d: Send to rank %d: %w", self, peer, err)
				}
			}
			return nil
		}), e.spawn(func() error {
			buf := make([]byte, 64)
			for peer := range n {
				if peer == self {
					continue
				}
				k, err := conns[self][peer].Recv(e.ctx, uint32(peer), buf)
				if err != nil {
					return fmt.Errorf("rank %d: Recv from rank %d: %w", self, peer, err)
				}
				if want := body(peer, self); string(buf[:k]) != string(want) {
					return fmt.Errorf("rank %d: the Conn to rank %d delivered %x; want %x (from rank %d to rank %d)",
						self, peer, buf[:k], want, peer, self)
				}
			}
			return nil
		}))
	}
	for _, ch := range chs {
		e.wait(ch)
	}
}
