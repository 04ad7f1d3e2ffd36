//go:build linux

package shm

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// rawDial connects a plain unix socket to a listener's address.
func rawDial(t *testing.T, addr string) *net.UnixConn {
	t.Helper()
	_, name, err := parseAddr(addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: name, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestDialDeadline dials a listener nobody accepts on: the connection
// succeeds (backlog) but the handshake never answers, and Dial must return
// the context's error at its deadline.
func TestDialDeadline(t *testing.T) {
	tr := newTransport(t, DefaultOptions())
	ln, err := tr.Listen(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = tr.Dial(ctx, 1, ln.Addr())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Dial to a listener that never accepts: %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Dial returned %v after start; want about 100 ms", d)
	}
}

// TestAcceptBadPeers checks that a silent client and a client speaking
// garbage fail Accept with an error, and that the listener then still
// accepts a real dialer.
func TestAcceptBadPeers(t *testing.T) {
	o := DefaultOptions()
	tr := newTransport(t, o)
	ln, err := tr.Listen(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()

	rawDial(t, ln.Addr()) // connects, says nothing
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, _, err = ln.Accept(ctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Accept of a silent client: %v, want DeadlineExceeded", err)
	}

	garbage := rawDial(t, ln.Addr())
	if _, err := garbage.Write(make([]byte, helloSize)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := ln.Accept(ctx); err == nil || ctx.Err() != nil {
		t.Errorf("Accept of a client sending zeros: %v, want a prompt handshake error", err)
	}

	dialed := make(chan error, 1)
	go func() {
		c, err := tr.Dial(ctx, 3, ln.Addr())
		if err == nil {
			c.Close()
		}
		dialed <- err
	}()
	c, rank, err := ln.Accept(ctx)
	if err != nil || rank != 3 {
		t.Fatalf("Accept after bad clients: rank %d, %v", rank, err)
	}
	c.Close()
	if err := <-dialed; err != nil {
		t.Fatal(err)
	}
}
