package fakeverbs

import (
	"time"

	"github.com/hpcbench/hpcbench/fabric/verbs"
	"golang.org/x/sys/unix"
)

// device is one open handle on an HCA (an ibv_context).
type device struct {
	h      *HCA
	closed bool
	pds    int
	cqs    int
}

var _ verbs.Device = (*device)(nil)

func (d *device) lock() func() { d.h.f.mu.Lock(); return d.h.f.mu.Unlock }

// check fails a call on a closed device, or one FailNext armed.
func (d *device) check(call string) error {
	if d.closed {
		return verbs.Errno(call, unix.EBADF)
	}
	return d.h.injected(call)
}

func (d *device) Name() string { return d.h.cfg.Name }

func (d *device) Query() (verbs.DeviceAttr, error) {
	defer d.lock()()
	if err := d.check("ibv_query_device"); err != nil {
		return verbs.DeviceAttr{}, err
	}
	return verbs.DeviceAttr{
		FWVersion: "0.1.0 (fakeverbs)", NodeGUID: d.h.guid, SysImageGUID: d.h.guid,
		VendorID: 0x02c9, VendorPartID: 4119, HWVersion: 0, PhysPorts: 1,
		MaxMRSize: 1 << 40, MaxQP: 1 << 16, MaxQPWR: d.h.cfg.MaxQPWR, MaxSGE: 1,
		MaxCQ: 1 << 16, MaxCQE: d.h.cfg.MaxCQE, MaxMR: 1 << 20, MaxPD: 1 << 16,
		MaxQPRdAtom: 16, MaxQPInitRdAtom: 16,
	}, nil
}

func (d *device) QueryPort(port int) (verbs.PortAttr, error) {
	defer d.lock()()
	if err := d.check("ibv_query_port"); err != nil {
		return verbs.PortAttr{}, err
	}
	if port != 1 {
		return verbs.PortAttr{}, verbs.Errno("ibv_query_port", unix.EINVAL)
	}
	c := d.h.cfg
	return verbs.PortAttr{
		State: c.State, MaxMTU: verbs.MTU4096, ActiveMTU: c.ActiveMTU, LID: d.h.lid,
		SMLID: 1, LinkLayer: c.LinkLayer, GIDTableLen: len(c.GIDs), PKeyTableLen: 1,
	}, nil
}

func (d *device) QueryGID(port, index int) (verbs.GIDEntry, error) {
	defer d.lock()()
	if err := d.check("ibv_query_gid_ex"); err != nil {
		return verbs.GIDEntry{}, err
	}
	if port != 1 || index < 0 || index >= len(d.h.cfg.GIDs) {
		return verbs.GIDEntry{}, verbs.Errno("ibv_query_gid_ex", unix.EINVAL)
	}
	return d.h.cfg.GIDs[index], nil
}

func (d *device) AllocPD() (verbs.PD, error) {
	defer d.lock()()
	if err := d.check("ibv_alloc_pd"); err != nil {
		return nil, err
	}
	d.pds++
	return &pd{d: d}, nil
}

func (d *device) CreateCQ(entries int, events bool) (verbs.CQ, error) {
	defer d.lock()()
	if err := d.check("ibv_create_cq"); err != nil {
		return nil, err
	}
	if entries < 1 || entries > d.h.cfg.MaxCQE {
		return nil, verbs.Errno("ibv_create_cq", unix.EINVAL)
	}
	d.cqs++
	c := &cq{d: d, size: entries, events: events}
	if events {
		c.ev = make(chan struct{}, 1)
	}
	return c, nil
}

func (d *device) Close() error {
	defer d.lock()()
	if d.closed {
		return verbs.Errno("ibv_close_device", unix.EBADF)
	}
	if d.pds > 0 || d.cqs > 0 {
		return verbs.Errno("ibv_close_device", unix.EBUSY)
	}
	d.closed = true
	d.h.opens--
	return nil
}

// pd is a protection domain.
type pd struct {
	d      *device
	closed bool
	mrs    int
	qps    int
}

func (p *pd) check(call string) error {
	if p.closed {
		return verbs.Errno(call, unix.EBADF)
	}
	return p.d.check(call)
}

func (p *pd) AllocMR(n int, access verbs.Access) (verbs.MR, error) {
	defer p.d.lock()()
	if err := p.check("ibv_reg_mr"); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, verbs.Errno("ibv_reg_mr", unix.EINVAL)
	}
	return p.register(make([]byte, n), access, true), nil
}

func (p *pd) RegMR(b []byte, access verbs.Access) (verbs.MR, error) {
	defer p.d.lock()()
	if err := p.check("ibv_reg_mr"); err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, verbs.Errno("ibv_reg_mr", unix.EINVAL)
	}
	// Remote write or atomic access needs local write, as the kernel
	// insists.
	if access&(verbs.AccessRemoteWrite|verbs.AccessRemoteAtomic) != 0 && access&verbs.AccessLocalWrite == 0 {
		return nil, verbs.Errno("ibv_reg_mr", unix.EINVAL)
	}
	return p.register(b, access, false), nil
}

// register makes b a region at the HCA's next address, with a gap after it
// so that an access one byte past its end hits no region.
func (p *pd) register(b []byte, access verbs.Access, owned bool) *mr {
	h := p.d.h
	m := &mr{pd: p, b: b, addr: h.addr, lkey: h.next, rkey: h.next ^ 0x00ff0000, access: access, owned: owned}
	h.next++
	h.addr += (uint64(len(b)) + 2*4096) &^ 4095
	h.mrs[m.lkey] = m
	h.mrs[m.rkey] = m
	p.mrs++
	return m
}

func (p *pd) CreateQP(a verbs.QPInitAttr) (verbs.QP, error) {
	defer p.d.lock()()
	if err := p.check("ibv_create_qp"); err != nil {
		return nil, err
	}
	scq, ok1 := a.SendCQ.(*cq)
	rcq, ok2 := a.RecvCQ.(*cq)
	c := a.Cap
	switch {
	case !ok1 || !ok2 || scq.d.h != p.d.h || rcq.d.h != p.d.h || scq.closed || rcq.closed:
		return nil, verbs.Errno("ibv_create_qp", unix.EINVAL)
	case c.MaxSendWR < 1 || c.MaxRecvWR < 1 || c.MaxSendWR > p.d.h.cfg.MaxQPWR || c.MaxRecvWR > p.d.h.cfg.MaxQPWR:
		return nil, verbs.Errno("ibv_create_qp", unix.EINVAL)
	case c.MaxSendSGE > 1 || c.MaxRecvSGE > 1 || c.MaxInlineData < 0 || c.MaxInlineData > p.d.h.cfg.MaxInline:
		return nil, verbs.Errno("ibv_create_qp", unix.EINVAL)
	}
	h := p.d.h
	q := &qp{pd: p, num: h.next & 0xffffff, scq: scq, rcq: rcq, cap: c}
	h.next++
	h.qps[q.num] = q
	scq.qps++
	rcq.qps++
	p.qps++
	return q, nil
}

func (p *pd) Close() error {
	defer p.d.lock()()
	if p.closed {
		return verbs.Errno("ibv_dealloc_pd", unix.EBADF)
	}
	if p.mrs > 0 || p.qps > 0 {
		return verbs.Errno("ibv_dealloc_pd", unix.EBUSY)
	}
	p.closed = true
	p.d.pds--
	return nil
}

// mr is a registered region.
type mr struct {
	pd         *pd
	b          []byte
	addr       uint64
	lkey, rkey uint32
	access     verbs.Access
	owned      bool
	closed     bool
}

func (m *mr) Bytes() []byte { return m.b }
func (m *mr) Addr() uint64  { return m.addr }
func (m *mr) LKey() uint32  { return m.lkey }
func (m *mr) RKey() uint32  { return m.rkey }

func (m *mr) Close() error {
	defer m.pd.d.lock()()
	if m.closed {
		return verbs.Errno("ibv_dereg_mr", unix.EBADF)
	}
	m.closed = true
	delete(m.pd.d.h.mrs, m.lkey)
	delete(m.pd.d.h.mrs, m.rkey)
	m.pd.mrs--
	if !m.owned {
		m.b = nil // the caller's memory is the caller's again
	}
	return nil
}

// slice returns the n bytes at addr of m, or false when they are not all
// inside it.
func (m *mr) slice(addr uint64, n uint32) ([]byte, bool) {
	if addr < m.addr || addr-m.addr > uint64(len(m.b)) || uint64(n) > uint64(len(m.b))-(addr-m.addr) {
		return nil, false
	}
	off := addr - m.addr
	return m.b[off : off+uint64(n)], true
}

// cqe is a completion with the QP it came from, for the send queue's
// accounting when it is polled.
type cqe struct {
	wc   verbs.WorkCompletion
	q    *qp
	send bool
}

// cq is a completion queue.
type cq struct {
	d      *device
	size   int
	events bool
	ev     chan struct{} // one pending event
	armed  bool
	q      []cqe
	over   bool // overrun: more than size completions were pending
	qps    int
	closed bool
}

// push adds a completion; the lock is held.
func (c *cq) push(e cqe) {
	if len(c.q) >= c.size {
		c.over = true
		return
	}
	c.q = append(c.q, e)
	if c.armed {
		c.armed = false
		select {
		case c.ev <- struct{}{}:
		default:
		}
	}
}

func (c *cq) Poll(wc []verbs.WorkCompletion) (int, error) {
	defer c.d.lock()()
	if c.closed {
		return 0, verbs.Errno("ibv_poll_cq", unix.EBADF)
	}
	// RNR-blocked sends are retried at every poll of their send CQ.
	for _, q := range c.d.h.qps {
		if q.scq == c && len(q.pending) > 0 {
			q.retry()
		}
	}
	if c.over {
		return 0, verbs.Errno("ibv_poll_cq", unix.EOVERFLOW)
	}
	n := 0
	for n < len(wc) && len(c.q) > 0 {
		e := c.q[0]
		c.q = c.q[1:]
		if e.send {
			e.q.reap(e.wc.WRID)
		}
		wc[n] = e.wc
		n++
	}
	return n, nil
}

func (c *cq) Arm() error {
	defer c.d.lock()()
	if !c.events || c.closed {
		return verbs.Errno("ibv_req_notify_cq", unix.EINVAL)
	}
	c.armed = true
	if len(c.q) > 0 { // a completion is there already: the event fires
		c.armed = false
		select {
		case c.ev <- struct{}{}:
		default:
		}
	}
	return nil
}

func (c *cq) Wait(d time.Duration) (bool, error) {
	c.d.h.f.mu.Lock()
	ok := c.events && !c.closed
	c.d.h.f.mu.Unlock()
	if !ok {
		return false, verbs.Errno("ibv_get_cq_event", unix.EINVAL)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.ev:
		return true, nil
	case <-t.C:
		return false, nil
	}
}

func (c *cq) Close() error {
	defer c.d.lock()()
	if c.closed {
		return verbs.Errno("ibv_destroy_cq", unix.EBADF)
	}
	if c.qps > 0 {
		return verbs.Errno("ibv_destroy_cq", unix.EBUSY)
	}
	c.closed = true
	c.d.cqs--
	return nil
}
