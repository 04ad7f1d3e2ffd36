package ofi

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
)

// msgFabric is a Transport's MSG mode (-e msg): a passive endpoint per
// Listener and an active endpoint, with its own completion queue, per
// Conn. The fabrics, domains and event queues they need are opened once
// per fabric and domain name (a dialer's fi_getinfo picks the domain that
// reaches the peer: lo for 127.0.0.1) and shared.
type msgFabric struct {
	l        *lib
	provider string // as the user named it
	domain   string // -d, or "" for the provider's first
	host     string

	mu     sync.Mutex // guards the fields below and every EQ read
	nets   map[string]*msgNet
	conns  map[uintptr]*msgConn     // by endpoint fid, for the EQs' events
	lns    map[uintptr]*msgListener // by passive endpoint fid
	nextMR uint64
	closed bool
	first  *msgNet // the first opened: Provider's answer
	eqbuf  [eqBufSize]byte
	errbuf [eqErrSize]byte
}

// eqBufSize holds a connection event and its parameter (libfabric's
// largest connection data is 256 bytes, the tcp provider's less).
const eqBufSize = 512

// msgNet is one fabric, its domain and the event queue of everything
// opened on them.
type msgNet struct {
	provider, domain       string // libfabric's names: "tcp", "lo"
	fabricID, domainID, eq uintptr
	mrMode                 uint32
	inject                 int // the largest fi_injectdata

	fnEQRead, fnEQReadErr, fnMRReg, fnPassiveEP, fnEndpoint, fnCQOpen uintptr
}

// newMsgFabric checks that the provider has MSG endpoints (in domain) and
// returns the Transport's MSG mode.
func newMsgFabric(l *lib, o Options, host string) (*msgFabric, error) {
	info, err := l.getinfo(msgHints(o.Provider, o.Domain))
	if err != nil {
		return nil, err
	}
	call(l.fiFreeinfo, info)
	return &msgFabric{
		l: l, provider: o.Provider, domain: o.Domain, host: host,
		nets: map[string]*msgNet{}, conns: map[uintptr]*msgConn{}, lns: map[uintptr]*msgListener{}, nextMR: 1,
	}, nil
}

// msgHints asks for MSG endpoints with messages and RMA.
func msgHints(provider, domain string) hints {
	return hints{provider: provider, domain: domain, epType: epTypeMsg,
		caps: capMsg | capRMA | capRead | capWrite | capRemoteRead | capRemoteWrite | capSend | capRecv}
}

// netLocked returns the fabric, domain and EQ of info, opening them the
// first time.
func (m *msgFabric) netLocked(info uintptr) (*msgNet, error) {
	fa, da := word(info, infoFabricAttr), word(info, infoDomainAttr)
	fname, dname := cString(word(fa, fabAttrName)), cString(word(da, domAttrName))
	if n, ok := m.nets[fname+"\x00"+dname]; ok {
		return n, nil
	}
	l := m.l
	n := &msgNet{provider: cString(word(fa, fabAttrProvName)), domain: dname, mrMode: u32(da, domAttrMRMode),
		inject: int(word(word(info, infoTxAttr), txAttrInjectSz))}
	if rc := call32(l.fiFabric, fa, uintptr(unsafe.Pointer(&n.fabricID)), 0); rc != 0 {
		return nil, l.fail("fi_fabric", rc)
	}
	if rc := call32(method(n.fabricID, fidStructOps, fabOpsDomain), n.fabricID, info, uintptr(unsafe.Pointer(&n.domainID)), 0); rc != 0 {
		n.release()
		return nil, l.fail("fi_domain", rc)
	}
	var attr [eqAttrSize]byte // wait_obj FI_WAIT_NONE: the EQ is polled
	if rc := call32(method(n.fabricID, fidStructOps, fabOpsEQOpen), n.fabricID, uintptr(unsafe.Pointer(&attr[0])), uintptr(unsafe.Pointer(&n.eq)), 0); rc != 0 {
		n.release()
		return nil, l.fail("fi_eq_open", rc)
	}
	n.fnEQRead = method(n.eq, fidStructOps, eqOpsRead)
	n.fnEQReadErr = method(n.eq, fidStructOps, eqOpsReadErr)
	n.fnMRReg = method(n.domainID, domMR, mrOpsReg)
	n.fnPassiveEP = method(n.fabricID, fidStructOps, fabOpsPassiveEP)
	n.fnEndpoint = method(n.domainID, fidStructOps, domOpsEP)
	n.fnCQOpen = method(n.domainID, fidStructOps, domOpsCQOpen)
	m.nets[fname+"\x00"+dname] = n
	if m.first == nil {
		m.first = n
	}
	return n, nil
}

// release closes n's event queue, domain and fabric.
func (n *msgNet) release() {
	for _, fid := range []uintptr{n.eq, n.domainID, n.fabricID} {
		closeFid(fid)
	}
	n.eq, n.domainID, n.fabricID = 0, 0, 0
}

// pollEQ reads every event waiting in the event queues and hands each to
// its listener or connection.
func (m *msgFabric) pollEQ() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pollEQLocked()
}

func (m *msgFabric) pollEQLocked() {
	if m.closed {
		return
	}
	m.pollOthersLocked()
	for _, n := range m.nets {
		for {
			var event uint32
			rc := call(n.fnEQRead, n.eq, uintptr(unsafe.Pointer(&event)), uintptr(unsafe.Pointer(&m.eqbuf[0])), eqBufSize, 0)
			if rc == -errAvail {
				clear(m.errbuf[:])
				if call(n.fnEQReadErr, n.eq, uintptr(unsafe.Pointer(&m.errbuf[0])), 0) <= 0 {
					break
				}
				fid := *(*uintptr)(unsafe.Pointer(&m.errbuf[eqErrFid]))
				code := int(*(*int32)(unsafe.Pointer(&m.errbuf[eqErrErr])))
				if c, ok := m.conns[fid]; ok {
					c.eqError(max(code, -code))
				}
				continue
			}
			if rc < 16 {
				break
			}
			m.eventLocked(n, event, m.eqbuf[:rc])
		}
	}
}

// pollOthersLocked polls the completion queues of the connections whose
// own goroutines are not polling them (their lock is free): libfabric
// 1.17's tcp provider moves data between the socket and the application's
// buffers when a completion queue is read, its "automatic" progress
// notwithstanding, so copies a Send left behind go, and a peer's RMA
// lands, only while someone polls. A closed connection whose copies have
// all gone, or whose drainWait has passed, is shut down and released.
func (m *msgFabric) pollOthersLocked() {
	for _, c := range m.conns {
		if !c.mu.TryLock() {
			continue
		}
		c.pollLocked()
		done := c.closed && (c.sending == 0 || c.peerGone || time.Now().After(c.lingerEnd))
		if done {
			c.shutdownLocked()
		}
		c.mu.Unlock()
		if done {
			delete(m.conns, c.ep)
		}
	}
}

// eventLocked handles one connection event: ent is a struct
// fi_eq_cm_entry and its parameter.
func (m *msgFabric) eventLocked(n *msgNet, event uint32, ent []byte) {
	fid := *(*uintptr)(unsafe.Pointer(&ent[0]))
	info := *(*uintptr)(unsafe.Pointer(&ent[8]))
	param := ent[eqCMData:]
	switch event {
	case eventConnReq:
		ln, ok := m.lns[fid]
		rank, err := parseRank(param)
		if !ok || ln.closed || err != nil {
			call32(method(fid, pepCM, cmOpsReject), fid, word(info, infoHandle), 0, 0)
			call(m.l.fiFreeinfo, info)
			return
		}
		ln.pending = append(ln.pending, connReq{info: info, rank: rank})
	case eventConnected:
		if c, ok := m.conns[fid]; ok {
			rank, err := parseRank(param)
			if err != nil {
				rank = -1 // the provider passed no parameter: the rank stays unknown
			}
			c.eqConnected(rank)
		}
	case eventShutdown:
		if c, ok := m.conns[fid]; ok {
			c.eqShutdown()
		}
	}
}

// wait polls the event queues until ready (called with mu held) is true
// or ctx ends.
func (m *msgFabric) wait(ctx context.Context, ready func() bool) error {
	var p pacer
	for {
		m.mu.Lock()
		m.pollEQLocked()
		ok := ready() || m.closed
		m.mu.Unlock()
		if ok {
			return nil
		}
		if err := p.pause(ctx); err != nil {
			return err
		}
	}
}

// close closes every listener and connection, then the event queues,
// domains and fabrics.
func (m *msgFabric) close() {
	m.mu.Lock()
	cs := make([]*msgConn, 0, len(m.conns))
	for _, c := range m.conns {
		cs = append(cs, c)
	}
	lns := make([]*msgListener, 0, len(m.lns))
	for _, ln := range m.lns {
		lns = append(lns, ln)
	}
	m.mu.Unlock()
	for _, ln := range lns {
		_ = ln.Close()
	}
	for _, c := range cs {
		_ = c.Close()
	}
	// Up to drainWait for the copies still in flight.
	ctx, cancel := context.WithTimeout(context.Background(), drainWait)
	defer cancel()
	_ = m.wait(ctx, func() bool { return len(m.conns) == 0 })
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.conns {
		c.mu.Lock()
		c.shutdownLocked()
		c.mu.Unlock()
	}
	m.conns = map[uintptr]*msgConn{}
	m.closed = true
	for _, n := range m.nets {
		n.release()
	}
	m.nets = map[string]*msgNet{}
}

// dial connects rank self to the MSG listener at a.
func (m *msgFabric) dial(ctx context.Context, self int, a address, addr string) (fabric.Conn, error) {
	h := msgHints(m.provider, m.domain)
	h.dest = a.name
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, fmt.Errorf("ofi: dial %s: %w", addr, fabric.ErrClosed)
	}
	info, err := m.l.getinfo(h)
	if err != nil {
		m.mu.Unlock()
		return nil, fmt.Errorf("ofi: dial %s: %w", addr, err)
	}
	c, err := m.openConnLocked(info, -1)
	if err != nil {
		call(m.l.fiFreeinfo, info)
		m.mu.Unlock()
		return nil, fmt.Errorf("ofi: dial %s: %w", addr, err)
	}
	param := encodeRank(self)
	rc := call32(method(c.ep, epCM, cmOpsConnect), c.ep, word(info, infoDestAddr), uintptr(unsafe.Pointer(&param[0])), uintptr(len(param)))
	call(m.l.fiFreeinfo, info)
	m.mu.Unlock()
	if rc != 0 {
		_ = c.Close()
		return nil, fmt.Errorf("ofi: dial %s: %w", addr, m.l.fail("fi_connect", rc))
	}
	if err := c.awaitConnected(ctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("ofi: dial %s: %w", addr, err)
	}
	return c, nil
}

// nextMRKey returns a memory region key no region of the Transport has.
func (m *msgFabric) nextMRKey() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := m.nextMR
	m.nextMR++
	return k
}
