package ofi

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
)

// msgListener is a MSG-mode Listener: a passive endpoint listening, its
// connection requests read from its fabric's event queue.
type msgListener struct {
	m    *msgFabric
	net  *msgNet
	pep  uintptr
	self int
	addr string

	// Guarded by m.mu.
	pending []connReq
	closed  bool
}

// connReq is a connection request not yet accepted: the provider's info
// for the new endpoint (freed once accepted or rejected) and the dialer's
// rank.
type connReq struct {
	info uintptr
	rank int
}

// listen opens a passive endpoint (fi_passive_ep, fi_pep_bind to the
// event queue, fi_listen) on the provider's first address, or -d's.
func (m *msgFabric) listen(self int) (*msgListener, error) {
	h := msgHints(m.provider, m.domain)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("ofi: listen: %w", fabric.ErrClosed)
	}
	info, err := m.l.getinfo(h)
	if err != nil {
		return nil, fmt.Errorf("ofi: listen: %w", err)
	}
	defer call(m.l.fiFreeinfo, info)
	n, err := m.netLocked(info)
	if err != nil {
		return nil, fmt.Errorf("ofi: listen: %w", err)
	}
	ln := &msgListener{m: m, net: n, self: self}
	if rc := call32(n.fnPassiveEP, n.fabricID, info, uintptr(unsafe.Pointer(&ln.pep)), 0); rc != 0 {
		return nil, fmt.Errorf("ofi: listen: %w", m.l.fail("fi_passive_ep", rc))
	}
	fail := func(op string, rc int) (*msgListener, error) {
		closeFid(ln.pep)
		return nil, fmt.Errorf("ofi: listen: %w", m.l.fail(op, rc))
	}
	if rc := bindFid(ln.pep, n.eq, 0); rc != 0 {
		return fail("fi_pep_bind", rc)
	}
	if rc := call32(method(ln.pep, pepCM, cmOpsListen), ln.pep); rc != 0 {
		return fail("fi_listen", rc)
	}
	name := make([]byte, 256)
	size := uint64(len(name))
	if rc := call32(method(ln.pep, pepCM, cmOpsGetname), ln.pep, uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(&size))); rc != 0 {
		return fail("fi_getname", rc)
	}
	ln.addr = address{provider: m.provider, host: m.host, name: name[:size], msg: true}.String()
	m.lns[ln.pep] = ln
	return ln, nil
}

// Addr returns the listener's business card.
func (ln *msgListener) Addr() string { return ln.addr }

// Accept waits for a connection request, opens its endpoint, accepts it
// (fi_accept, with this rank as the parameter) and waits for it to be
// connected.
func (ln *msgListener) Accept(ctx context.Context) (fabric.Conn, int, error) {
	m := ln.m
	err := m.wait(ctx, func() bool { return len(ln.pending) > 0 || ln.closed })
	if err != nil {
		return nil, 0, fmt.Errorf("ofi: accept on %s: %w", ln.addr, err)
	}
	m.mu.Lock()
	if ln.closed || m.closed {
		m.mu.Unlock()
		return nil, 0, fmt.Errorf("ofi: accept on %s: listener closed: %w", ln.addr, fabric.ErrClosed)
	}
	req := ln.pending[0]
	ln.pending = ln.pending[1:]
	c, err := m.openConnLocked(req.info, req.rank)
	if err != nil {
		call32(method(ln.pep, pepCM, cmOpsReject), ln.pep, word(req.info, infoHandle), 0, 0)
		call(m.l.fiFreeinfo, req.info)
		m.mu.Unlock()
		return nil, 0, fmt.Errorf("ofi: accept rank %d on %s: %w", req.rank, ln.addr, err)
	}
	param := encodeRank(ln.self)
	rc := call32(method(c.ep, epCM, cmOpsAccept), c.ep, uintptr(unsafe.Pointer(&param[0])), uintptr(len(param)))
	call(m.l.fiFreeinfo, req.info)
	m.mu.Unlock()
	if rc != 0 {
		_ = c.Close()
		return nil, 0, fmt.Errorf("ofi: accept rank %d on %s: %w", req.rank, ln.addr, m.l.fail("fi_accept", rc))
	}
	if err := c.awaitConnected(ctx); err != nil {
		_ = c.Close()
		return nil, 0, fmt.Errorf("ofi: accept rank %d on %s: %w", req.rank, ln.addr, err)
	}
	return c, req.rank, nil
}

// Close stops listening: requests not yet accepted are rejected, and the
// passive endpoint is closed, so that later dialers are refused.
// Connections already accepted stay open.
func (ln *msgListener) Close() error {
	m := ln.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if ln.closed {
		return nil
	}
	ln.closed = true
	delete(m.lns, ln.pep)
	if m.closed {
		return nil
	}
	for _, req := range ln.pending {
		call32(method(ln.pep, pepCM, cmOpsReject), ln.pep, word(req.info, infoHandle), 0, 0)
		call(m.l.fiFreeinfo, req.info)
	}
	ln.pending = nil
	if rc := closeFid(ln.pep); rc != 0 {
		return m.l.fail("fi_close(pep)", rc)
	}
	return nil
}
