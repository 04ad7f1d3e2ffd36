package fabrictest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
)

// Pair connects two ranks through tr: rank 0 listens, rank 1 dials, and
// Accept must report rank 1. It returns rank 0's Conn as a and rank 1's as b,
// closes the listener, and registers both Conns' Close with tb.Cleanup. Any
// failure, including Accept naming another rank, is fatal to tb. Setting up
// is bounded by CaseTimeout.
func Pair(tb testing.TB, tr fabric.Transport) (a, b fabric.Conn) {
	tb.Helper()
	conns, err := connect(tb.Context(), tr, 2)
	if err != nil {
		tb.Fatalf("connecting a %s pair: %v", tr.Name(), err)
	}
	a, b = conns[0][1], conns[1][0]
	tb.Cleanup(func() {
		_ = a.Close()
		_ = b.Close()
	})
	return a, b
}

// AllToAll connects n ranks through tr, every rank to every other, and
// returns conns[i][j], rank i's Conn to rank j (nil when i == j). It closes
// the listeners and registers every Conn's Close with tb.Cleanup; any failure
// is fatal to tb.
//
// The pattern is the one internal/job used before it connected lazily.
// Every rank listens first (in a
// job, it then publishes Addr in the PMI KVS and enters a barrier). Then each
// rank i, in its own goroutine, dials every j < i in increasing order, and
// after that accepts n-1-i connections, placing each by the rank Accept
// reports. This cannot deadlock: rank 0 only accepts, and by induction rank j
// is accepting once its own dials to ranks below it have completed. A rank
// that accepts a rank it did not expect, or the same rank twice, fails.
func AllToAll(tb testing.TB, tr fabric.Transport, n int) [][]fabric.Conn {
	tb.Helper()
	conns, err := connect(tb.Context(), tr, n)
	if err != nil {
		tb.Fatalf("connecting %d ranks all-to-all over %s: %v", n, tr.Name(), err)
	}
	tb.Cleanup(func() { closeAllConns(conns) })
	return conns
}

// connect wires n ranks as AllToAll describes, bounded by CaseTimeout. On
// error every Conn and listener it opened is closed.
func connect(ctx context.Context, tr fabric.Transport, n int) ([][]fabric.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, CaseTimeout)
	defer cancel()
	lns := make([]fabric.Listener, 0, n)
	defer func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}()
	addrs := make([]string, n)
	for r := range n {
		ln, err := tr.Listen(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("rank %d: listen: %w", r, err)
		}
		lns = append(lns, ln)
		addrs[r] = ln.Addr()
	}

	conns := make([][]fabric.Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		conns[r] = make([]fabric.Conn, n)
		wg.Go(func() {
			errs[r] = wireRank(ctx, tr, lns[r], addrs, r, conns[r])
			if errs[r] != nil {
				// Unblock the ranks waiting for this one.
				cancel()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		closeAllConns(conns)
		return nil, err
	}
	return conns, nil
}

// wireRank is one rank's part of connect: dial every lower rank, then accept
// every higher one, filling row[peer].
func wireRank(ctx context.Context, tr fabric.Transport, ln fabric.Listener, addrs []string, self int, row []fabric.Conn) error {
	for j := range self {
		c, err := tr.Dial(ctx, self, addrs[j])
		if err != nil {
			return fmt.Errorf("rank %d: dial rank %d at %s: %w", self, j, addrs[j], err)
		}
		row[j] = c
	}
	for range len(addrs) - 1 - self {
		c, peer, err := ln.Accept(ctx)
		if err != nil {
			return fmt.Errorf("rank %d: accept: %w", self, err)
		}
		if peer <= self || peer >= len(addrs) || row[peer] != nil {
			_ = c.Close()
			return fmt.Errorf("rank %d: accept returned peer rank %d: want a rank in (%d, %d) not accepted before", self, peer, self, len(addrs))
		}
		row[peer] = c
	}
	return nil
}

// closeAllConns closes every non-nil Conn in conns, ignoring errors.
func closeAllConns(conns [][]fabric.Conn) {
	for _, row := range conns {
		for _, c := range row {
			if c != nil {
				_ = c.Close()
			}
		}
	}
}
