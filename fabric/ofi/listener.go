package ofi

import (
	"context"
	"fmt"

	"github.com/hpcbench/hpcbench/fabric"
)

// Listener is one rank's listener on the transport's endpoint: an id that
// dialers' hellos name.
type Listener struct {
	t    *Transport
	id   uint32
	self int
	addr string

	// Guarded by t.e.mu.
	pending []hello
	closed  bool
}

// Addr returns the listener's business card.
func (ln *Listener) Addr() string { return ln.addr }

// Accept waits for a dialer's hello, answers it, and returns the Conn and
// the dialer's rank.
func (ln *Listener) Accept(ctx context.Context) (fabric.Conn, int, error) {
	e := ln.t.e
	err := e.wait(ctx, func() bool { return len(ln.pending) > 0 || ln.closed }, func() error { return nil })
	if err != nil {
		return nil, 0, fmt.Errorf("ofi: accept on %s: %w", ln.addr, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if ln.closed || e.closed {
		return nil, 0, fmt.Errorf("ofi: accept on %s: listener closed: %w", ln.addr, fabric.ErrClosed)
	}
	h := ln.pending[0]
	ln.pending = ln.pending[1:]
	a, err := e.insertLocked(h.name)
	if err != nil {
		return nil, 0, fmt.Errorf("ofi: accept rank %d on %s: %w", h.rank, ln.addr, err)
	}
	c := &Conn{e: e, id: e.newIDLocked(), rank: h.rank, peer: h.id, addr: a, state: stateOpen}
	e.conns[c.id] = c
	e.sendControlLocked(a, ctlTag(h.id, kindWelcome), welcome{id: c.id, rank: ln.self}.encode())
	return c, h.rank, nil
}

// Close stops accepting: hellos that come later are refused, and those
// not yet accepted are refused now. Conns already accepted stay open.
func (ln *Listener) Close() error {
	e := ln.t.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if ln.closed {
		return nil
	}
	ln.closed = true
	delete(e.lns, ln.id)
	for _, h := range ln.pending {
		if a, err := e.insertLocked(h.name); err == nil {
			e.sendControlLocked(a, ctlTag(h.id, kindRefuse), nil)
		}
	}
	ln.pending = nil
	return nil
}
