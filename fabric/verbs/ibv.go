//go:build verbs && linux && cgo

package verbs

// The cgo binding: Device over rdma-core's libibverbs. The C side is a
// handful of wrappers, because verbs.h makes several calls macros or
// static inline functions (ibv_query_port, ibv_reg_mr, ibv_query_gid_ex,
// ibv_req_notify_cq, ibv_post_send, ibv_post_recv, ibv_poll_cq) and builds
// its work requests out of linked structs, which Go memory may not hold
// for C: each wrapper takes scalars (or a flat struct without pointers)
// and builds the verbs structs on the C stack. ibv_poll_cq reaps up to 32
// completions per cgo call.
//
// Memory: AllocMR maps anonymous memory outside the Go heap (mmap), which
// the garbage collector never moves or frees, and registers it; RegMR
// registers caller memory that a runtime.Pinner pins until the region is
// deregistered, which is what lets a C-side object (the kernel's
// registration) keep a Go pointer.
//
// None of this has run against a real device: the machine it was written
// on has no RDMA hardware and no RDMA support in its kernel.

/*
#cgo pkg-config: libibverbs
#include <infiniband/verbs.h>
#include <endian.h>
#include <errno.h>
#include <string.h>

struct hp_wc {
	uint64_t wr_id;
	uint32_t status, opcode, byte_len, imm, has_imm, qp_num;
};

struct hp_qp_attr {
	int state, port, pkey_index, access;
	int mtu;
	uint32_t dest_qpn, rq_psn;
	uint16_t dlid;
	int is_global;
	uint8_t dgid[16];
	int sgid_index, hop_limit, max_dest_rd_atomic, min_rnr_timer;
	uint32_t sq_psn;
	int timeout, retry_cnt, rnr_retry, max_rd_atomic;
};

struct hp_dev_attr {
	char fw_ver[64];
	uint64_t node_guid, sys_image_guid, max_mr_size;
	uint32_t vendor_id, vendor_part_id, hw_ver;
	int max_qp, max_qp_wr, max_sge, max_cq, max_cqe, max_mr, max_pd;
	int max_qp_rd_atom, max_qp_init_rd_atom, phys_port_cnt;
};

static int hp_query_device(struct ibv_context *c, struct hp_dev_attr *o) {
	struct ibv_device_attr a;
	int rc = ibv_query_device(c, &a);
	if (rc)
		return rc;
	memcpy(o->fw_ver, a.fw_ver, sizeof o->fw_ver);
	o->node_guid = be64toh(a.node_guid);
	o->sys_image_guid = be64toh(a.sys_image_guid);
	o->max_mr_size = a.max_mr_size;
	o->vendor_id = a.vendor_id;
	o->vendor_part_id = a.vendor_part_id;
	o->hw_ver = a.hw_ver;
	o->max_qp = a.max_qp;
	o->max_qp_wr = a.max_qp_wr;
	o->max_sge = a.max_sge;
	o->max_cq = a.max_cq;
	o->max_cqe = a.max_cqe;
	o->max_mr = a.max_mr;
	o->max_pd = a.max_pd;
	o->max_qp_rd_atom = a.max_qp_rd_atom;
	o->max_qp_init_rd_atom = a.max_qp_init_rd_atom;
	o->phys_port_cnt = a.phys_port_cnt;
	return 0;
}

static int hp_query_port(struct ibv_context *c, int port, struct ibv_port_attr *a) {
	return ibv_query_port(c, (uint8_t)port, a);
}

static int hp_query_gid(struct ibv_context *c, int port, int index, struct ibv_gid_entry *e) {
	return ibv_query_gid_ex(c, (uint32_t)port, (uint32_t)index, e, 0);
}

static struct ibv_mr *hp_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access) {
	return ibv_reg_mr(pd, addr, len, access);
}

static struct ibv_qp *hp_create_qp(struct ibv_pd *pd, struct ibv_cq *scq, struct ibv_cq *rcq,
		int swr, int rwr, int ssge, int rsge, int inl, struct ibv_qp_cap *out) {
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof a);
	a.send_cq = scq;
	a.recv_cq = rcq;
	a.qp_type = IBV_QPT_RC;
	a.sq_sig_all = 0;
	a.cap.max_send_wr = swr;
	a.cap.max_recv_wr = rwr;
	a.cap.max_send_sge = ssge;
	a.cap.max_recv_sge = rsge;
	a.cap.max_inline_data = inl;
	struct ibv_qp *qp = ibv_create_qp(pd, &a);
	if (qp)
		*out = a.cap;
	return qp;
}

static int hp_modify_qp(struct ibv_qp *qp, struct hp_qp_attr *h) {
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	int mask = IBV_QP_STATE;
	a.qp_state = h->state;
	switch (h->state) {
	case IBV_QPS_INIT:
		a.pkey_index = h->pkey_index;
		a.port_num = h->port;
		a.qp_access_flags = h->access;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPS_RTR:
		a.path_mtu = h->mtu;
		a.dest_qp_num = h->dest_qpn;
		a.rq_psn = h->rq_psn;
		a.max_dest_rd_atomic = h->max_dest_rd_atomic;
		a.min_rnr_timer = h->min_rnr_timer;
		a.ah_attr.dlid = h->dlid;
		a.ah_attr.sl = 0;
		a.ah_attr.src_path_bits = 0;
		a.ah_attr.port_num = h->port;
		if (h->is_global) {
			a.ah_attr.is_global = 1;
			memcpy(a.ah_attr.grh.dgid.raw, h->dgid, 16);
			a.ah_attr.grh.sgid_index = h->sgid_index;
			a.ah_attr.grh.hop_limit = h->hop_limit;
		}
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		break;
	case IBV_QPS_RTS:
		a.sq_psn = h->sq_psn;
		a.timeout = h->timeout;
		a.retry_cnt = h->retry_cnt;
		a.rnr_retry = h->rnr_retry;
		a.max_rd_atomic = h->max_rd_atomic;
		mask |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	}
	return ibv_modify_qp(qp, &a, mask);
}

static int hp_post_send(struct ibv_qp *qp, uint64_t wr_id, int opcode, unsigned flags,
		uint64_t addr, uint32_t len, uint32_t lkey, uint32_t imm, uint64_t raddr, uint32_t rkey) {
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr, *bad = NULL;
	memset(&wr, 0, sizeof wr);
	wr.wr_id = wr_id;
	wr.opcode = opcode;
	wr.send_flags = flags;
	wr.sg_list = &sge;
	wr.num_sge = len ? 1 : 0;
	wr.imm_data = htobe32(imm);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

static int hp_post_recv(struct ibv_qp *qp, uint64_t wr_id, uint64_t addr, uint32_t len, uint32_t lkey) {
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr, *bad = NULL;
	memset(&wr, 0, sizeof wr);
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = len ? 1 : 0;
	return ibv_post_recv(qp, &wr, &bad);
}

#define HP_POLL_MAX 32

static int hp_poll(struct ibv_cq *cq, int n, struct hp_wc *out) {
	struct ibv_wc wc[HP_POLL_MAX];
	if (n > HP_POLL_MAX)
		n = HP_POLL_MAX;
	int got = ibv_poll_cq(cq, n, wc);
	for (int i = 0; i < got; i++) {
		out[i].wr_id = wc[i].wr_id;
		out[i].status = wc[i].status;
		out[i].opcode = wc[i].opcode;
		out[i].byte_len = wc[i].byte_len;
		out[i].has_imm = (wc[i].wc_flags & IBV_WC_WITH_IMM) != 0;
		out[i].imm = out[i].has_imm ? be32toh(wc[i].imm_data) : 0;
		out[i].qp_num = wc[i].qp_num;
	}
	return got;
}

static int hp_req_notify(struct ibv_cq *cq) { return ibv_req_notify_cq(cq, 0); }

// hp_get_event takes one event from a nonblocking channel and acknowledges
// it: 0, or errno (EAGAIN: none).
static int hp_get_event(struct ibv_comp_channel *ch) {
	struct ibv_cq *cq;
	void *ctx;
	if (ibv_get_cq_event(ch, &cq, &ctx))
		return errno ? errno : EAGAIN;
	ibv_ack_cq_events(cq, 1);
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pollMax is hp_poll's batch.
const pollMax = C.HP_POLL_MAX

// errnoOf is the error of a verbs call that returned rc (an errno, or -1
// with errno in err).
func errnoOf(call string, rc C.int, err error) error {
	if rc > 0 {
		return Errno(call, unix.Errno(rc))
	}
	var e unix.Errno
	if errors.As(err, &e) && e != 0 {
		return Errno(call, e)
	}
	return Errno(call, unix.EIO)
}

// rcErr is the error of a data-path call that returned rc, an errno on
// rdma-core's providers (ibv_post_send) or a negative number (ibv_poll_cq,
// some providers): -errno, or -1 with nothing more to say.
func rcErr(call string, rc C.int) error {
	switch {
	case rc > 0:
		return Errno(call, unix.Errno(rc))
	case rc < -1:
		return Errno(call, unix.Errno(-rc))
	}
	return Errno(call, unix.EIO)
}

// nilErr is the error of a verbs call that returned NULL.
func nilErr(call string, err error) error {
	var e unix.Errno
	if errors.As(err, &e) && e != 0 {
		return Errno(call, e)
	}
	return Errno(call, unix.ENOMEM)
}

// OpenDevices opens every RDMA device of this host (ibv_get_device_list,
// ibv_open_device). No device, or no RDMA support in the kernel, is an
// error wrapping ErrNoDevice.
func OpenDevices() ([]Device, error) {
	var n C.int
	list, err := C.ibv_get_device_list(&n)
	if list == nil {
		return nil, fmt.Errorf("%w: %w", ErrNoDevice, nilErr("ibv_get_device_list", err))
	}
	defer C.ibv_free_device_list(list)
	if n == 0 {
		return nil, ErrNoDevice
	}
	devs := unsafe.Slice(list, int(n))
	var out []Device
	for _, d := range devs {
		name := C.GoString(C.ibv_get_device_name(d))
		ctx, err := C.ibv_open_device(d)
		if ctx == nil {
			for _, o := range out {
				_ = o.Close()
			}
			return nil, fmt.Errorf("%s: %w", name, nilErr("ibv_open_device", err))
		}
		out = append(out, &ibvDevice{ctx: ctx, name: name})
	}
	return out, nil
}

// ibvDevice is an open ibv_context.
type ibvDevice struct {
	ctx  *C.struct_ibv_context
	name string
}

func (d *ibvDevice) Name() string { return d.name }

func (d *ibvDevice) Query() (DeviceAttr, error) {
	var a C.struct_hp_dev_attr
	if rc, err := C.hp_query_device(d.ctx, &a); rc != 0 {
		return DeviceAttr{}, errnoOf("ibv_query_device", rc, err)
	}
	return DeviceAttr{
		FWVersion: C.GoString(&a.fw_ver[0]), NodeGUID: uint64(a.node_guid), SysImageGUID: uint64(a.sys_image_guid),
		VendorID: uint32(a.vendor_id), VendorPartID: uint32(a.vendor_part_id), HWVersion: uint32(a.hw_ver),
		PhysPorts: int(a.phys_port_cnt), MaxMRSize: uint64(a.max_mr_size), MaxQP: int(a.max_qp),
		MaxQPWR: int(a.max_qp_wr), MaxSGE: int(a.max_sge), MaxCQ: int(a.max_cq), MaxCQE: int(a.max_cqe),
		MaxMR: int(a.max_mr), MaxPD: int(a.max_pd), MaxQPRdAtom: int(a.max_qp_rd_atom),
		MaxQPInitRdAtom: int(a.max_qp_init_rd_atom),
	}, nil
}

func (d *ibvDevice) QueryPort(port int) (PortAttr, error) {
	var a C.struct_ibv_port_attr
	if rc, err := C.hp_query_port(d.ctx, C.int(port), &a); rc != 0 {
		return PortAttr{}, errnoOf("ibv_query_port", rc, err)
	}
	return PortAttr{
		State: PortState(a.state), MaxMTU: MTU(a.max_mtu), ActiveMTU: MTU(a.active_mtu),
		LID: uint16(a.lid), SMLID: uint16(a.sm_lid), LMC: uint8(a.lmc), LinkLayer: LinkLayer(a.link_layer),
		GIDTableLen: int(a.gid_tbl_len), PKeyTableLen: int(a.pkey_tbl_len),
	}, nil
}

func (d *ibvDevice) QueryGID(port, index int) (GIDEntry, error) {
	var e C.struct_ibv_gid_entry
	if rc, err := C.hp_query_gid(d.ctx, C.int(port), C.int(index), &e); rc != 0 {
		return GIDEntry{}, errnoOf("ibv_query_gid_ex", rc, err)
	}
	g := GIDEntry{Index: index, Type: GIDType(e.gid_type)}
	copy(g.GID[:], C.GoBytes(unsafe.Pointer(&e.gid), 16))
	return g, nil
}

func (d *ibvDevice) AllocPD() (PD, error) {
	pd, err := C.ibv_alloc_pd(d.ctx)
	if pd == nil {
		return nil, nilErr("ibv_alloc_pd", err)
	}
	return &ibvPD{pd: pd}, nil
}

func (d *ibvDevice) CreateCQ(entries int, events bool) (CQ, error) {
	c := &ibvCQ{}
	if events {
		ch, err := C.ibv_create_comp_channel(d.ctx)
		if ch == nil {
			return nil, nilErr("ibv_create_comp_channel", err)
		}
		if err := unix.SetNonblock(int(ch.fd), true); err != nil {
			C.ibv_destroy_comp_channel(ch)
			return nil, fmt.Errorf("completion channel: setting O_NONBLOCK: %w", err)
		}
		c.ch = ch
	}
	cq, err := C.ibv_create_cq(d.ctx, C.int(entries), nil, c.ch, 0)
	if cq == nil {
		if c.ch != nil {
			C.ibv_destroy_comp_channel(c.ch)
		}
		return nil, nilErr("ibv_create_cq", err)
	}
	c.cq = cq
	return c, nil
}

func (d *ibvDevice) Close() error {
	if rc, err := C.ibv_close_device(d.ctx); rc != 0 {
		return errnoOf("ibv_close_device", rc, err)
	}
	return nil
}

// ibvPD is a protection domain.
type ibvPD struct{ pd *C.struct_ibv_pd }

func (p *ibvPD) AllocMR(n int, access Access) (MR, error) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("mmap of %d bytes for a memory region: %w", n, err)
	}
	mr, err := C.hp_reg_mr(p.pd, unsafe.Pointer(&b[0]), C.size_t(n), C.int(access))
	if mr == nil {
		_ = unix.Munmap(b)
		return nil, nilErr("ibv_reg_mr", err)
	}
	return &ibvMR{mr: mr, b: b, mapped: true}, nil
}

func (p *ibvPD) RegMR(b []byte, access Access) (MR, error) {
	if len(b) == 0 {
		return nil, Errno("ibv_reg_mr", unix.EINVAL)
	}
	m := &ibvMR{b: b}
	m.pin.Pin(&b[0])
	mr, err := C.hp_reg_mr(p.pd, unsafe.Pointer(&b[0]), C.size_t(len(b)), C.int(access))
	if mr == nil {
		m.pin.Unpin()
		return nil, nilErr("ibv_reg_mr", err)
	}
	m.mr = mr
	return m, nil
}

func (p *ibvPD) CreateQP(a QPInitAttr) (QP, error) {
	scq, ok1 := a.SendCQ.(*ibvCQ)
	rcq, ok2 := a.RecvCQ.(*ibvCQ)
	if !ok1 || !ok2 {
		return nil, errors.New("ibv_create_qp: the completion queues are not libibverbs ones")
	}
	var got C.struct_ibv_qp_cap
	c := a.Cap
	qp, err := C.hp_create_qp(p.pd, scq.cq, rcq.cq, C.int(c.MaxSendWR), C.int(c.MaxRecvWR),
		C.int(c.MaxSendSGE), C.int(c.MaxRecvSGE), C.int(c.MaxInlineData), &got)
	if qp == nil {
		return nil, nilErr("ibv_create_qp", err)
	}
	return &ibvQP{qp: qp, cap: QPCap{
		MaxSendWR: int(got.max_send_wr), MaxRecvWR: int(got.max_recv_wr), MaxSendSGE: int(got.max_send_sge),
		MaxRecvSGE: int(got.max_recv_sge), MaxInlineData: int(got.max_inline_data),
	}}, nil
}

func (p *ibvPD) Close() error {
	if rc, err := C.ibv_dealloc_pd(p.pd); rc != 0 {
		return errnoOf("ibv_dealloc_pd", rc, err)
	}
	return nil
}

// ibvMR is a registered region: mapped memory AllocMR owns, or pinned
// caller memory.
type ibvMR struct {
	mr     *C.struct_ibv_mr
	b      []byte
	mapped bool
	pin    runtime.Pinner
}

func (m *ibvMR) Bytes() []byte { return m.b }
func (m *ibvMR) Addr() uint64  { return uint64(uintptr(m.mr.addr)) }
func (m *ibvMR) LKey() uint32  { return uint32(m.mr.lkey) }
func (m *ibvMR) RKey() uint32  { return uint32(m.mr.rkey) }

func (m *ibvMR) Close() error {
	if rc, err := C.ibv_dereg_mr(m.mr); rc != 0 {
		return errnoOf("ibv_dereg_mr", rc, err)
	}
	if m.mapped {
		if err := unix.Munmap(m.b); err != nil {
			return fmt.Errorf("munmap of a memory region: %w", err)
		}
	} else {
		m.pin.Unpin()
	}
	m.b = nil
	return nil
}

// ibvCQ is a completion queue with, in event mode, its channel.
type ibvCQ struct {
	cq  *C.struct_ibv_cq
	ch  *C.struct_ibv_comp_channel
	wcs [pollMax]C.struct_hp_wc
}

func (c *ibvCQ) Poll(wc []WorkCompletion) (int, error) {
	n := min(len(wc), pollMax)
	got := C.hp_poll(c.cq, C.int(n), &c.wcs[0])
	if got < 0 {
		return 0, rcErr("ibv_poll_cq", got)
	}
	for i := range int(got) {
		w := &c.wcs[i]
		wc[i] = WorkCompletion{
			WRID: uint64(w.wr_id), Status: WCStatus(w.status), Opcode: WCOpcode(w.opcode),
			ByteLen: uint32(w.byte_len), Imm: uint32(w.imm), HasImm: w.has_imm != 0, QPNum: uint32(w.qp_num),
		}
	}
	return int(got), nil
}

func (c *ibvCQ) Arm() error {
	if c.ch == nil {
		return Errno("ibv_req_notify_cq", unix.EINVAL)
	}
	if rc := C.hp_req_notify(c.cq); rc != 0 {
		return rcErr("ibv_req_notify_cq", rc)
	}
	return nil
}

func (c *ibvCQ) Wait(d time.Duration) (bool, error) {
	if c.ch == nil {
		return false, Errno("ibv_get_cq_event", unix.EINVAL)
	}
	ms := int((d + time.Millisecond - 1) / time.Millisecond)
	fds := []unix.PollFd{{Fd: int32(c.ch.fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, ms)
	if err != nil && !errors.Is(err, unix.EINTR) {
		return false, fmt.Errorf("poll on the completion channel: %w", err)
	}
	if n == 0 {
		return false, nil
	}
	switch rc := C.hp_get_event(c.ch); rc {
	case 0:
		return true, nil
	case C.EAGAIN:
		return false, nil
	default:
		return false, Errno("ibv_get_cq_event", unix.Errno(rc))
	}
}

func (c *ibvCQ) Close() error {
	if rc, err := C.ibv_destroy_cq(c.cq); rc != 0 {
		return errnoOf("ibv_destroy_cq", rc, err)
	}
	if c.ch != nil {
		if rc, err := C.ibv_destroy_comp_channel(c.ch); rc != 0 {
			return errnoOf("ibv_destroy_comp_channel", rc, err)
		}
	}
	return nil
}

// ibvQP is an RC queue pair. port is the one INIT named, which RTR's
// address vector needs again.
type ibvQP struct {
	qp   *C.struct_ibv_qp
	cap  QPCap
	port int
}

func (q *ibvQP) Num() uint32 { return uint32(q.qp.qp_num) }
func (q *ibvQP) Cap() QPCap  { return q.cap }

func (q *ibvQP) Modify(a QPAttr) error {
	if a.State == QPSInit {
		q.port = a.Port
	}
	h := C.struct_hp_qp_attr{
		state: C.int(a.State), port: C.int(q.port), pkey_index: C.int(a.PKeyIndex), access: C.int(a.Access),
		mtu: C.int(a.PathMTU), dest_qpn: C.uint32_t(a.DestQPN), rq_psn: C.uint32_t(a.RQPSN),
		dlid: C.uint16_t(a.DestLID), sgid_index: C.int(a.SGIDIndex), hop_limit: C.int(a.HopLimit),
		max_dest_rd_atomic: C.int(a.MaxDestRdAtomic), min_rnr_timer: C.int(a.MinRNRTimer),
		sq_psn: C.uint32_t(a.SQPSN), timeout: C.int(a.Timeout), retry_cnt: C.int(a.RetryCnt),
		rnr_retry: C.int(a.RNRRetry), max_rd_atomic: C.int(a.MaxRdAtomic),
	}
	if a.IsGlobal {
		h.is_global = 1
		for i, b := range a.DGID {
			h.dgid[i] = C.uint8_t(b)
		}
	}
	if rc, err := C.hp_modify_qp(q.qp, &h); rc != 0 {
		return errnoOf("ibv_modify_qp", rc, err)
	}
	return nil
}

func (q *ibvQP) PostSend(wr SendWR) error {
	rc := C.hp_post_send(q.qp, C.uint64_t(wr.WRID), C.int(wr.Opcode), C.uint(wr.Flags),
		C.uint64_t(wr.SGE.Addr), C.uint32_t(wr.SGE.Len), C.uint32_t(wr.SGE.LKey), C.uint32_t(wr.Imm),
		C.uint64_t(wr.RemoteAddr), C.uint32_t(wr.RKey))
	if rc != 0 {
		return rcErr("ibv_post_send", rc)
	}
	return nil
}

func (q *ibvQP) PostRecv(wr RecvWR) error {
	rc := C.hp_post_recv(q.qp, C.uint64_t(wr.WRID), C.uint64_t(wr.SGE.Addr), C.uint32_t(wr.SGE.Len), C.uint32_t(wr.SGE.LKey))
	if rc != 0 {
		return rcErr("ibv_post_recv", rc)
	}
	return nil
}

func (q *ibvQP) Close() error {
	if rc, err := C.ibv_destroy_qp(q.qp); rc != 0 {
		return errnoOf("ibv_destroy_qp", rc, err)
	}
	return nil
}

// cConstants pairs each constant of enums.go with its verbs.h value, for
// ibv_test.go (test files cannot use cgo).
func cConstants() []struct {
	name  string
	goVal uint64
	cVal  uint64
} {
	type c = struct {
		name  string
		goVal uint64
		cVal  uint64
	}
	return []c{
		{"IBV_ACCESS_LOCAL_WRITE", uint64(AccessLocalWrite), C.IBV_ACCESS_LOCAL_WRITE},
		{"IBV_ACCESS_REMOTE_WRITE", uint64(AccessRemoteWrite), C.IBV_ACCESS_REMOTE_WRITE},
		{"IBV_ACCESS_REMOTE_READ", uint64(AccessRemoteRead), C.IBV_ACCESS_REMOTE_READ},
		{"IBV_ACCESS_REMOTE_ATOMIC", uint64(AccessRemoteAtomic), C.IBV_ACCESS_REMOTE_ATOMIC},
		{"IBV_SEND_FENCE", uint64(SendFence), C.IBV_SEND_FENCE},
		{"IBV_SEND_SIGNALED", uint64(SendSignaled), C.IBV_SEND_SIGNALED},
		{"IBV_SEND_SOLICITED", uint64(SendSolicited), C.IBV_SEND_SOLICITED},
		{"IBV_SEND_INLINE", uint64(SendInline), C.IBV_SEND_INLINE},
		{"IBV_WR_RDMA_WRITE", uint64(WRRDMAWrite), C.IBV_WR_RDMA_WRITE},
		{"IBV_WR_RDMA_WRITE_WITH_IMM", uint64(WRRDMAWriteWithImm), C.IBV_WR_RDMA_WRITE_WITH_IMM},
		{"IBV_WR_SEND", uint64(WRSend), C.IBV_WR_SEND},
		{"IBV_WR_SEND_WITH_IMM", uint64(WRSendWithImm), C.IBV_WR_SEND_WITH_IMM},
		{"IBV_WR_RDMA_READ", uint64(WRRDMARead), C.IBV_WR_RDMA_READ},
		{"IBV_WC_SEND", uint64(WCSend), C.IBV_WC_SEND},
		{"IBV_WC_RDMA_WRITE", uint64(WCRDMAWrite), C.IBV_WC_RDMA_WRITE},
		{"IBV_WC_RDMA_READ", uint64(WCRDMARead), C.IBV_WC_RDMA_READ},
		{"IBV_WC_RECV", uint64(WCRecv), C.IBV_WC_RECV},
		{"IBV_WC_RECV_RDMA_WITH_IMM", uint64(WCRecvRDMAWithImm), C.IBV_WC_RECV_RDMA_WITH_IMM},
		{"IBV_WC_SUCCESS", uint64(WCSuccess), C.IBV_WC_SUCCESS},
		{"IBV_WC_LOC_LEN_ERR", uint64(WCLocLenErr), C.IBV_WC_LOC_LEN_ERR},
		{"IBV_WC_LOC_QP_OP_ERR", uint64(WCLocQPOpErr), C.IBV_WC_LOC_QP_OP_ERR},
		{"IBV_WC_LOC_PROT_ERR", uint64(WCLocProtErr), C.IBV_WC_LOC_PROT_ERR},
		{"IBV_WC_WR_FLUSH_ERR", uint64(WCWRFlushErr), C.IBV_WC_WR_FLUSH_ERR},
		{"IBV_WC_BAD_RESP_ERR", uint64(WCBadRespErr), C.IBV_WC_BAD_RESP_ERR},
		{"IBV_WC_LOC_ACCESS_ERR", uint64(WCLocAccessErr), C.IBV_WC_LOC_ACCESS_ERR},
		{"IBV_WC_REM_INV_REQ_ERR", uint64(WCRemInvReqErr), C.IBV_WC_REM_INV_REQ_ERR},
		{"IBV_WC_REM_ACCESS_ERR", uint64(WCRemAccessErr), C.IBV_WC_REM_ACCESS_ERR},
		{"IBV_WC_REM_OP_ERR", uint64(WCRemOpErr), C.IBV_WC_REM_OP_ERR},
		{"IBV_WC_RETRY_EXC_ERR", uint64(WCRetryExcErr), C.IBV_WC_RETRY_EXC_ERR},
		{"IBV_WC_RNR_RETRY_EXC_ERR", uint64(WCRNRRetryExcErr), C.IBV_WC_RNR_RETRY_EXC_ERR},
		{"IBV_WC_FATAL_ERR", uint64(WCFatalErr), C.IBV_WC_FATAL_ERR},
		{"IBV_WC_RESP_TIMEOUT_ERR", uint64(WCRespTimeoutErr), C.IBV_WC_RESP_TIMEOUT_ERR},
		{"IBV_WC_GENERAL_ERR", uint64(WCGeneralErr), C.IBV_WC_GENERAL_ERR},
		{"IBV_QPS_RESET", uint64(QPSReset), C.IBV_QPS_RESET},
		{"IBV_QPS_INIT", uint64(QPSInit), C.IBV_QPS_INIT},
		{"IBV_QPS_RTR", uint64(QPSRTR), C.IBV_QPS_RTR},
		{"IBV_QPS_RTS", uint64(QPSRTS), C.IBV_QPS_RTS},
		{"IBV_QPS_SQD", uint64(QPSSQD), C.IBV_QPS_SQD},
		{"IBV_QPS_SQE", uint64(QPSSQE), C.IBV_QPS_SQE},
		{"IBV_QPS_ERR", uint64(QPSErr), C.IBV_QPS_ERR},
		{"IBV_MTU_256", uint64(MTU256), C.IBV_MTU_256},
		{"IBV_MTU_4096", uint64(MTU4096), C.IBV_MTU_4096},
		{"IBV_PORT_ACTIVE", uint64(PortActive), C.IBV_PORT_ACTIVE},
		{"IBV_PORT_ACTIVE_DEFER", uint64(PortActiveDefer), C.IBV_PORT_ACTIVE_DEFER},
		{"IBV_LINK_LAYER_INFINIBAND", uint64(LinkInfiniBand), C.IBV_LINK_LAYER_INFINIBAND},
		{"IBV_LINK_LAYER_ETHERNET", uint64(LinkEthernet), C.IBV_LINK_LAYER_ETHERNET},
		{"IBV_GID_TYPE_IB", uint64(GIDTypeIB), C.IBV_GID_TYPE_IB},
		{"IBV_GID_TYPE_ROCE_V1", uint64(GIDTypeRoCEv1), C.IBV_GID_TYPE_ROCE_V1},
		{"IBV_GID_TYPE_ROCE_V2", uint64(GIDTypeRoCEv2), C.IBV_GID_TYPE_ROCE_V2},
	}
}

// cStatusStr is ibv_wc_status_str(s).
func cStatusStr(s WCStatus) string { return C.GoString(C.ibv_wc_status_str(C.enum_ibv_wc_status(s))) }
