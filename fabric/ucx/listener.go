package ucx

import (
	"context"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// Listener is a rank's UCX endpoint id on the transport's worker: its
// address is the worker's, and dialers send their hello to its id.
type Listener struct {
	t      *Transport
	id     uint32
	self   int
	addr   string
	closed bool // under mu
}

// Listen opens rank self's listener.
func (t *Transport) Listen(_ context.Context, self int) (fabric.Listener, error) {
	wk := t.wk
	wk.mu.Lock()
	defer wk.mu.Unlock()
	if !wk.open {
		return nil, fmt.Errorf("ucx: listen: transport closed: %w", fabric.ErrClosed)
	}
	id, err := wk.newID()
	if err != nil {
		return nil, err
	}
	return &Listener{t: t, id: id, self: self, addr: formatAddr(id, wk.addr)}, nil
}

// Addr returns "ucx://" and the listener's id and worker address in hex.
func (ln *Listener) Addr() string { return ln.addr }

// Close stops accepting: a blocked Accept returns ErrClosed. A hello sent
// to a closed listener is never answered, so its Dial fails at its
// deadline (DefaultConnectTimeout without one).
func (ln *Listener) Close() error {
	ln.t.wk.mu.Lock()
	ln.closed = true
	ln.t.wk.mu.Unlock()
	return nil
}

// Accept waits for a dialer's hello, creates the endpoint back to the
// dialer's worker, answers with this side's endpoint id and returns the
// Conn and the dialer's rank.
func (ln *Listener) Accept(ctx context.Context) (fabric.Conn, int, error) {
	t, wk := ln.t, ln.t.wk
	rs := newSlot(maxHello)
	wk.mu.Lock()
	if ln.closed || !wk.open {
		wk.mu.Unlock()
		return nil, 0, fmt.Errorf("accept: listener closed: %w", fabric.ErrClosed)
	}
	req := wk.call(wk.l.tagRecvNbx, wk.w, ptr(rs.buf), uintptr(len(rs.buf)), uintptr(ctrlTag(ln.id, kindHello)), uintptr(fullMask), uintptr(unsafe.Pointer(&rs.p)))
	wk.mu.Unlock()
	if isErrPtr(req) {
		return nil, 0, fmt.Errorf("accept: %w", wk.l.err("ucp_tag_recv_nbx", status(req)))
	}
	if req != 0 {
		st, stopped := wk.waitAccept(req, &rs.info, func(*waiter) error {
			if err := deadline.ContextErr(ctx); err != nil {
				return err
			}
			if ln.closed {
				return fmt.Errorf("accept: listener closed: %w", fabric.ErrClosed)
			}
			return nil
		})
		wk.mu.Unlock()
		if st != statusOK {
			if stopped == nil {
				stopped = fmt.Errorf("accept: %w", wk.l.err("ucp_tag_recv_nbx", st))
			}
			return nil, 0, stopped
		}
	}
	h, err := parseHello(rs.buf[:rs.info.length])
	if err != nil {
		return nil, 0, fmt.Errorf("accept: %w", err)
	}
	c, err := t.answer(ctx, ln.self, h)
	if err != nil {
		return nil, 0, fmt.Errorf("accept from rank %d: %w", h.Rank, err)
	}
	return c, int(h.Rank), nil
}

// answer creates the Conn to the dialer of hello h and sends it the
// answer, this side's endpoint id.
func (t *Transport) answer(ctx context.Context, self int, h hello) (*Conn, error) {
	ctx, cancel := t.handshakeCtx(ctx)
	defer cancel()
	wk := t.wk
	wk.mu.Lock()
	c, err := t.newConn(h.WorkerAddr)
	if err != nil {
		wk.mu.Unlock()
		return nil, err
	}
	c.peer(h, t.host)
	if err := c.postBye(); err != nil {
		c.closeEp(true)
		wk.mu.Unlock()
		return nil, err
	}
	msg := hello{Rank: uint32(self), ID: c.id, Pid: uint32(t.pid), Host: t.host}.encode()
	req := wk.call(wk.l.tagSendNbx, c.ep, ptr(msg), uintptr(len(msg)), uintptr(ctrlTag(h.ID, kindAccept)), uintptr(unsafe.Pointer(&c.ctrlP)))
	wk.mu.Unlock()
	var st int32
	var stopped error
	switch {
	case isErrPtr(req):
		st = status(req)
	case req != 0:
		st, stopped = wk.waitReq(req, nil, func(*waiter) error {
			if err := deadline.ContextErr(ctx); err != nil {
				return err
			}
			return nil
		}, func(_ uintptr, why error) { c.breakLocked(why) })
		wk.mu.Unlock()
	}
	runtime.KeepAlive(msg)
	if stopped == nil && st != statusOK {
		stopped = wk.l.err("ucp_tag_send_nbx", st)
	}
	if stopped != nil {
		_ = c.Close()
		return nil, stopped
	}
	return c, nil
}
