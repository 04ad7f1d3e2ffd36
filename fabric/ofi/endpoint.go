package ofi

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unsafe"
)

// Sizes of the endpoint's own tables.
const (
	maxOps    = 4096 // operations in flight at once, control receives included
	pollBatch = 16   // completions read per fi_cq_read
	ctlSlots  = 8    // control receives kept posted
	ctlSize   = 512  // bytes per control receive: a hello carries a peer's name
)

// endpoint is one libfabric RDM endpoint with its fabric, domain, address
// vector and completion queue, and the state of everything posted on it.
// Every call into libfabric is made with mu held (the domain is opened
// FI_THREAD_DOMAIN: the application serialises).
type endpoint struct {
	l        *lib
	provider string // as libfabric names it: "tcp;ofi_rxm"
	domain   string // the domain's name: "lo", "shm"
	info     uintptr
	fabricID uintptr
	domainID uintptr
	av       uintptr
	cq       uintptr
	ep       uintptr
	name     []byte // fi_getname: what peers fi_av_insert
	mrMode   uint32
	inject   int // the largest fi_tinject

	fnSend, fnRecv, fnInject, fnInjectData, fnRead, fnWrite, fnCancel uintptr
	fnAVInsert, fnMRReg, fnWriteMsg                                   uintptr

	mu       sync.Mutex
	ctxs     []byte // contextSize bytes per slot: the struct fi_context the provider gets
	ops      []op
	free     []int32
	addrs    map[string]uint64 // a peer's name → its fi_addr_t
	conns    map[uint32]*Conn
	lns      map[uint32]*Listener
	nextID   uint32
	nextMR   uint64
	pool     bufPool
	ctlQueue []ctlSend          // control messages the provider has not taken yet
	strays   map[uint64][]stray // messages completed into another tag's receive, by tag
	rdvQueue []*rdvOut          // rendezvous writes from copies the provider has not taken yet
	closed   bool
	cqr      cqReader
	args     argv // the hot calls' argument list, used with mu held
}

// op is one operation the provider holds: its buffer stays referenced
// here until its completion arrives.
type op struct {
	inUse  bool
	done   bool
	orphan bool    // its waiter left: the slot is freed when it completes
	auto   bool    // fire-and-forget (control sends): freed when it completes
	ctl    bool    // a control receive: handled and posted again by poll
	conn   *Conn   // a buffered send's Conn, whose pending bytes it counts
	rdv    *rdvOut // a rendezvous write from a copy: its completion finishes it
	recv   bool    // a Conn's receive of want from src
	want   uint64
	src    uint64
	err    int // the positive FI_E* code of an error completion
	n      int // bytes received, or a truncated message's whole length
	tag    uint64
	data   uint64 // the CQ data: a header's body length
	buf    []byte
}

// openEndpoint opens an RDM endpoint of provider (libfabric's spelling) in
// domain ("" for the first).
func openEndpoint(l *lib, provider, domain string) (*endpoint, error) {
	info, err := l.getinfo(hints{provider: provider, domain: domain, epType: epTypeRDM, caps: capTagged | capRMA | capDirectedRecv})
	if err != nil {
		return nil, err
	}
	e := &endpoint{
		l: l, info: info,
		ctxs:   make([]byte, maxOps*contextSize),
		ops:    make([]op, maxOps),
		addrs:  map[string]uint64{},
		conns:  map[uint32]*Conn{},
		lns:    map[uint32]*Listener{},
		strays: map[uint64][]stray{},
		nextID: 1,
		nextMR: 1,
	}
	for i := maxOps - 1; i >= 0; i-- {
		e.free = append(e.free, int32(i))
	}
	if err := e.open(); err != nil {
		e.release()
		return nil, err
	}
	return e, nil
}

// open creates the fabric, domain, AV, CQ and endpoint of e.info and
// posts the control receives.
func (e *endpoint) open() error {
	l, info := e.l, e.info
	fa, da := word(info, infoFabricAttr), word(info, infoDomainAttr)
	e.provider = cString(word(fa, fabAttrProvName))
	e.domain = cString(word(da, domAttrName))
	e.mrMode = u32(da, domAttrMRMode)
	e.inject = int(word(word(info, infoTxAttr), txAttrInjectSz))
	if rc := call32(l.fiFabric, fa, uintptr(unsafe.Pointer(&e.fabricID)), 0); rc != 0 {
		return l.fail("fi_fabric", rc)
	}
	if rc := call32(method(e.fabricID, fidStructOps, fabOpsDomain), e.fabricID, info, uintptr(unsafe.Pointer(&e.domainID)), 0); rc != 0 {
		return l.fail("fi_domain", rc)
	}
	var avAttr [avAttrSize]byte
	*(*int32)(unsafe.Pointer(&avAttr[0])) = avMap // type is the first field
	if rc := call32(method(e.domainID, fidStructOps, domOpsAVOpen), e.domainID, uintptr(unsafe.Pointer(&avAttr[0])), uintptr(unsafe.Pointer(&e.av)), 0); rc != 0 {
		return l.fail("fi_av_open", rc)
	}
	var cqAttr [cqAttrSize]byte
	*(*int32)(unsafe.Pointer(&cqAttr[cqAttrFormat])) = cqFormatTagged
	if rc := call32(method(e.domainID, fidStructOps, domOpsCQOpen), e.domainID, uintptr(unsafe.Pointer(&cqAttr[0])), uintptr(unsafe.Pointer(&e.cq)), 0); rc != 0 {
		return l.fail("fi_cq_open", rc)
	}
	if rc := call32(method(e.domainID, fidStructOps, domOpsEP), e.domainID, info, uintptr(unsafe.Pointer(&e.ep)), 0); rc != 0 {
		return l.fail("fi_endpoint", rc)
	}
	if rc := bindFid(e.ep, e.cq, capSend|capRecv); rc != 0 {
		return l.fail("fi_ep_bind(cq)", rc)
	}
	if rc := bindFid(e.ep, e.av, 0); rc != 0 {
		return l.fail("fi_ep_bind(av)", rc)
	}
	if rc := controlFid(e.ep, fiEnable, 0); rc != 0 {
		return l.fail("fi_enable", rc)
	}
	name := make([]byte, 256)
	n := uint64(len(name))
	if rc := call32(method(e.ep, epCM, cmOpsGetname), e.ep, uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(&n))); rc != 0 {
		return l.fail("fi_getname", rc)
	}
	e.name = name[:n]
	e.fnSend = method(e.ep, epTagged, tagOpsSend)
	e.fnRecv = method(e.ep, epTagged, tagOpsRecv)
	e.fnInject = method(e.ep, epTagged, tagOpsInject)
	e.fnInjectData = method(e.ep, epTagged, tagOpsInjectData)
	e.fnRead = method(e.ep, epRMA, rmaOpsRead)
	e.fnWrite = method(e.ep, epRMA, rmaOpsWrite)
	e.fnWriteMsg = method(e.ep, epRMA, rmaOpsWriteMsg)
	e.fnCancel = method(e.ep, fidStructOps, epOpsCancel)
	e.cqr.open(e.cq)
	e.fnAVInsert = method(e.av, fidStructOps, avOpsInsert)
	e.fnMRReg = method(e.domainID, domMR, mrOpsReg)
	e.mu.Lock()
	defer e.mu.Unlock()
	for range ctlSlots {
		if err := e.postControlRecvLocked(); err != nil {
			return err
		}
	}
	return nil
}

// release closes every object e opened, newest first, and frees its info.
func (e *endpoint) release() {
	for _, fid := range []uintptr{e.ep, e.cq, e.av, e.domainID, e.fabricID} {
		closeFid(fid)
	}
	e.ep, e.cq, e.av, e.domainID, e.fabricID = 0, 0, 0, 0, 0
	if e.info != 0 {
		call(e.l.fiFreeinfo, e.info)
		e.info = 0
	}
}

// Draining before close: up to drainWait for the sends still in flight
// (buffered bodies, rendezvous writes, queued control messages), then
// drainTail more of polling, in which the provider sends what it injected.
const (
	drainWait = 2 * time.Second
	drainTail = 5 * time.Millisecond
)

// close drains e's sends, marks e closed and releases it. Operations still
// posted after the drain are dropped with the endpoint.
func (e *endpoint) close() {
	e.drain()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.closed = true
	e.release()
}

// drain polls until no send is in flight, or drainWait has passed, and
// then for drainTail: libfabric's progress is manual, so an injected
// message or a peer's last FIN leaves only while someone polls.
func (e *endpoint) drain() {
	ctx, cancel := context.WithTimeout(context.Background(), drainWait)
	defer cancel()
	_ = e.wait(ctx, e.idleLocked, func() error { return nil })
	tail, cancelTail := context.WithTimeout(context.Background(), drainTail)
	defer cancelTail()
	_ = e.wait(tail, func() bool { return e.closed }, func() error { return nil })
}

// idleLocked reports whether e has nothing of its own in flight: only
// receives posted.
func (e *endpoint) idleLocked() bool {
	if e.closed {
		return true
	}
	if len(e.ctlQueue) > 0 || len(e.rdvQueue) > 0 {
		return false
	}
	for i := range e.ops {
		if o := &e.ops[i]; o.inUse && (o.auto || o.rdv != nil) {
			return false
		}
	}
	return true
}

// ctxPtr is the address of slot i's struct fi_context.
func (e *endpoint) ctxPtr(i int32) uintptr {
	return uintptr(unsafe.Pointer(&e.ctxs[int(i)*contextSize]))
}

// allocLocked takes a free slot for an operation on buf, or returns -1
// when all are in use.
func (e *endpoint) allocLocked(buf []byte) int32 {
	if len(e.free) == 0 {
		return -1
	}
	i := e.free[len(e.free)-1]
	e.free = e.free[:len(e.free)-1]
	e.ops[i] = op{inUse: true, buf: buf}
	return i
}

// freeLocked gives slot i back.
func (e *endpoint) freeLocked(i int32) {
	e.ops[i] = op{}
	e.free = append(e.free, i)
}

// bufPtr is the address libfabric gets for b: its first byte, or a valid
// address for an empty message.
func bufPtr(b []byte) uintptr {
	if cap(b) == 0 {
		return uintptr(unsafe.Pointer(&zeroByte))
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}

var zeroByte byte

// pollLocked reads up to pollBatch completions, and an error completion
// if one is waiting, and hands them to their operations. It returns how
// many it handled.
func (e *endpoint) pollLocked() int {
	if e.closed {
		return 0
	}
	if len(e.ctlQueue) > 0 {
		e.flushControlLocked()
	}
	if len(e.rdvQueue) > 0 {
		e.flushRdvLocked()
	}
	return e.cqr.poll(e)
}

// completeLocked records the completion of the operation whose context is
// ctx.
func (e *endpoint) completeLocked(ctx uintptr, code, n int, tag, data uint64) {
	base := uintptr(unsafe.Pointer(&e.ctxs[0]))
	if ctx < base || ctx >= base+uintptr(len(e.ctxs)) {
		return // not ours: providers report no other contexts
	}
	i := int32((ctx - base) / contextSize)
	o := &e.ops[i]
	if !o.inUse {
		return
	}
	if o.recv && code != errCanceled && tag != o.want && e.strayLocked(i, code, n, tag, data) {
		return // posted again for its own message
	}
	o.done, o.err, o.n, o.tag, o.data = true, code, n, tag, data

	switch {
	case o.ctl:
		e.controlLocked(i)
	case o.rdv != nil:
		if code != 0 && o.rdv.c.sendErr == 0 {
			o.rdv.c.sendErr = code
		}
		e.finishRdvLocked(o.rdv)
		e.freeLocked(i)
	case o.auto || o.orphan:
		if c := o.conn; c != nil {
			c.pending -= len(o.buf)
			if code != 0 && c.sendErr == 0 {
				c.sendErr = code
			}
			e.putBufLocked(o.buf)
		}
		e.freeLocked(i)
	}
}

// post runs fn, which posts an operation, with mu held, polling the CQ and
// trying again while the provider answers FI_EAGAIN, until ctx ends or stop
// reports an error.
func (e *endpoint) post(ctx context.Context, what string, fn func() int, stop func() error) error {
	var p pacer
	for {
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			return fmt.Errorf("ofi: %s: the endpoint is closed: %w", what, errEndpointClosed)
		}
		rc := fn()
		if rc == -errAgain {
			e.pollLocked()
		}
		e.mu.Unlock()
		if rc != -errAgain {
			if rc < 0 {
				return e.l.fail(what, rc)
			}
			return nil
		}
		if err := stop(); err != nil {
			return err
		}
		if err := p.pause(ctx); err != nil {
			return err
		}
	}
}

// wait polls the CQ until ready (called with mu held) is true, ctx ends or
// stop (called without, every stopEvery polls) reports an error.
func (e *endpoint) wait(ctx context.Context, ready func() bool, stop func() error) error {
	var p pacer
	for n := 1; ; n++ {
		e.mu.Lock()
		e.pollLocked()
		ok := ready()
		e.mu.Unlock()
		if ok {
			return nil
		}
		if n%stopEvery == 0 {
			if err := stop(); err != nil {
				return err
			}
		}
		if err := p.pause(ctx); err != nil {
			return err
		}
	}
}

// stopEvery is how many polls a wait makes between looks at its stop.
const stopEvery = 16

// insertLocked returns name's fi_addr_t, inserting it into the AV once.
func (e *endpoint) insertLocked(name []byte) (uint64, error) {
	if a, ok := e.addrs[string(name)]; ok {
		return a, nil
	}
	if len(name) == 0 {
		return 0, fmt.Errorf("ofi: fi_av_insert: empty address")
	}
	var a uint64
	if rc := call32(e.fnAVInsert, e.av, uintptr(unsafe.Pointer(&name[0])), 1, uintptr(unsafe.Pointer(&a)), 0, 0); rc != 1 {
		if rc >= 0 {
			rc = -22 // FI_EINVAL: the provider took none
		}
		return 0, e.l.fail("fi_av_insert", rc)
	}
	e.addrs[string(name)] = a
	return a, nil
}

// newIDLocked returns an id no Conn or Listener of e has had.
func (e *endpoint) newIDLocked() uint32 {
	id := e.nextID
	e.nextID++
	if e.nextID >= 1<<31 {
		e.nextID = 1 // after two billion connections; the oldest are long gone
	}
	return id
}
