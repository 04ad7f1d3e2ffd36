//go:build linux

package shm

import (
	"context"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// variant is a configuration the tests run under.
type variant struct {
	name string
	opts Options
}

// variants are the default options (the conformance suite's buffers then
// come from the arena), and options that send every message above 16 KiB by
// each of the large-message paths (pipelined through the ring, cross-memory
// attach, or a copy through the peer's arena) with a small ring, so that
// messages wrap and fill it.
func variants() []variant {
	pipe := DefaultOptions()
	pipe.RingSize, pipe.EagerLimit, pipe.PipeChunk, pipe.ArenaSize = 64<<10, 16<<10, 8<<10, 0
	cma := pipe
	cma.CMAThreshold, cma.CMAChunk = 16<<10+1, 64<<10
	arena := pipe
	arena.ArenaSize, arena.ArenaThreshold, arena.CMAChunk = 1<<30, 16<<10+1, 64<<10
	return []variant{{"default", DefaultOptions()}, {"pipe", pipe}, {"cma", cma}, {"arena", arena}}
}

func newTransport(tb testing.TB, o Options) *Transport {
	tb.Helper()
	tr, err := New(o)
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// pair connects two Conns of one process through tr.
func pair(tb testing.TB, tr *Transport) (dialed, accepted *Conn) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ln, err := tr.Listen(ctx, 1)
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	type res struct {
		c    fabric.Conn
		rank int
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		c, r, err := ln.Accept(ctx)
		ch <- res{c, r, err}
	}()
	d, err := tr.Dial(ctx, 0, ln.Addr())
	a := <-ch
	if err != nil || a.err != nil {
		tb.Fatalf("dial: %v; accept: %v", err, a.err)
	}
	if a.rank != 0 {
		tb.Fatalf("accept returned rank %d, want 0", a.rank)
	}
	tb.Cleanup(func() {
		d.Close()
		a.c.Close()
	})
	return d.(*Conn), a.c.(*Conn)
}

// timingAttempts is how often a test that checks a latency tries before it
// fails: on a loaded machine a thread can miss its wake-up by a time slice.
const timingAttempts = 3

// retryTiming runs attempt until it returns nil, at most timingAttempts
// times, and fails t with the last error.
func retryTiming(t *testing.T, attempt func() error) {
	t.Helper()
	var err error
	for range timingAttempts {
		if err = attempt(); err == nil {
			return
		}
		t.Logf("timing attempt failed: %v", err)
	}
	t.Error(err)
}
