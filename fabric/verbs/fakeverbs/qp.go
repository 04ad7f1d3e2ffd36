package fakeverbs

import (
	"github.com/hpcbench/hpcbench/fabric/verbs"
	"golang.org/x/sys/unix"
)

// sqEntry is a posted send work request, until its completion (or, when
// unsignaled, a later signaled one's) is polled.
type sqEntry struct {
	wrid     uint64
	signaled bool
}

// pendingSend is a send work request not executed yet (it found no
// receive posted), with the bytes of an inline payload captured at post
// time.
type pendingSend struct {
	wr     verbs.SendWR
	inline []byte
	rnr    int // RNR retries so far
}

// qp is a reliable-connected queue pair.
type qp struct {
	pd       *pd
	num      uint32
	scq, rcq *cq
	cap      verbs.QPCap
	state    verbs.QPState
	attr     verbs.QPAttr // the fields each transition set
	recvQ    []verbs.RecvWR
	sq       []sqEntry     // posted sends not reaped
	pending  []pendingSend // sends not executed, oldest first
	closed   bool
}

func (q *qp) Num() uint32      { return q.num }
func (q *qp) Cap() verbs.QPCap { return q.cap }

func (q *qp) Modify(a verbs.QPAttr) error {
	defer q.pd.d.lock()()
	const call = "ibv_modify_qp"
	if q.closed {
		return verbs.Errno(call, unix.EBADF)
	}
	if err := q.pd.d.h.injected(call); err != nil {
		return err
	}
	if verbs.CheckAttr(q.state, a) != nil {
		return verbs.Errno(call, unix.EINVAL)
	}
	port := q.pd.d.h.cfg
	switch a.State {
	case verbs.QPSInit:
		if a.Port != 1 {
			return verbs.Errno(call, unix.EINVAL)
		}
		q.attr.Port, q.attr.Access = a.Port, a.Access
	case verbs.QPSRTR:
		if a.PathMTU > port.ActiveMTU {
			return verbs.Errno(call, unix.EINVAL)
		}
		if port.LinkLayer == verbs.LinkEthernet && !a.IsGlobal {
			return verbs.Errno(call, unix.EINVAL) // RoCE needs a GRH
		}
		if a.IsGlobal && a.SGIDIndex >= len(port.GIDs) {
			return verbs.Errno(call, unix.EINVAL)
		}
		q.attr.PathMTU, q.attr.DestQPN, q.attr.RQPSN = a.PathMTU, a.DestQPN, a.RQPSN
		q.attr.DestLID, q.attr.IsGlobal, q.attr.DGID, q.attr.SGIDIndex = a.DestLID, a.IsGlobal, a.DGID, a.SGIDIndex
		q.attr.MaxDestRdAtomic, q.attr.MinRNRTimer = a.MaxDestRdAtomic, a.MinRNRTimer
	case verbs.QPSRTS:
		q.attr.SQPSN, q.attr.Timeout, q.attr.RetryCnt = a.SQPSN, a.Timeout, a.RetryCnt
		q.attr.RNRRetry, q.attr.MaxRdAtomic = a.RNRRetry, a.MaxRdAtomic
	case verbs.QPSErr:
		q.toErr()
		return nil
	case verbs.QPSReset:
		q.recvQ, q.sq, q.pending = nil, nil, nil
		q.attr = verbs.QPAttr{}
	}
	q.state = a.State
	return nil
}

// toErr moves the QP to ERR and flushes every posted work request with
// "Work Request Flushed Error"; the lock is held.
func (q *qp) toErr() {
	q.state = verbs.QPSErr
	for _, p := range q.pending {
		q.complete(p.wr, verbs.WCWRFlushErr)
	}
	q.pending = nil
	for _, r := range q.recvQ {
		q.rcq.push(cqe{wc: verbs.WorkCompletion{WRID: r.WRID, Status: verbs.WCWRFlushErr, Opcode: verbs.WCRecv, QPNum: q.num}, q: q})
	}
	q.recvQ = nil
}

func (q *qp) PostRecv(wr verbs.RecvWR) error {
	defer q.pd.d.lock()()
	const call = "ibv_post_recv"
	switch {
	case q.closed:
		return verbs.Errno(call, unix.EBADF)
	case q.state == verbs.QPSReset:
		return verbs.Errno(call, unix.EINVAL)
	case len(q.recvQ) >= q.cap.MaxRecvWR:
		return verbs.Errno(call, unix.ENOMEM)
	}
	if err := q.pd.d.h.injected(call); err != nil {
		return err
	}
	if q.state == verbs.QPSErr {
		q.rcq.push(cqe{wc: verbs.WorkCompletion{WRID: wr.WRID, Status: verbs.WCWRFlushErr, Opcode: verbs.WCRecv, QPNum: q.num}, q: q})
		return nil
	}
	q.recvQ = append(q.recvQ, wr)
	// A peer blocked by RNR on this QP goes on now.
	if p := q.peer(); p != nil && len(p.pending) > 0 {
		p.retry()
	}
	return nil
}

func (q *qp) PostSend(wr verbs.SendWR) error {
	defer q.pd.d.lock()()
	const call = "ibv_post_send"
	switch {
	case q.closed:
		return verbs.Errno(call, unix.EBADF)
	case q.state != verbs.QPSRTS && q.state != verbs.QPSErr:
		return verbs.Errno(call, unix.EINVAL)
	case len(q.sq) >= q.cap.MaxSendWR:
		return verbs.Errno(call, unix.ENOMEM)
	case wr.Flags&verbs.SendInline != 0 && int(wr.SGE.Len) > q.cap.MaxInlineData:
		return verbs.Errno(call, unix.EINVAL)
	case wr.Flags&verbs.SendInline != 0 && (wr.Opcode == verbs.WRRDMARead):
		return verbs.Errno(call, unix.EINVAL)
	case wr.Opcode > verbs.WRRDMARead:
		return verbs.Errno(call, unix.EINVAL)
	}
	if err := q.pd.d.h.injected(call); err != nil {
		return err
	}
	p := pendingSend{wr: wr}
	if wr.Flags&verbs.SendInline != 0 {
		// Inline: the bytes are taken now, wherever they are (no lkey).
		b, ok := q.findLocal(wr.SGE.Addr, wr.SGE.Len)
		if !ok {
			return verbs.Errno(call, unix.EFAULT)
		}
		p.inline = append([]byte(nil), b...)
	}
	q.sq = append(q.sq, sqEntry{wrid: wr.WRID, signaled: wr.Flags&verbs.SendSignaled != 0})
	q.pending = append(q.pending, p)
	q.retry()
	return nil
}

// findLocal returns the n bytes at addr of any region of this QP's PD: an
// inline payload needs no lkey, but the fake can only read memory it knows.
func (q *qp) findLocal(addr uint64, n uint32) ([]byte, bool) {
	if n == 0 {
		return nil, true
	}
	for _, m := range q.pd.d.h.mrs {
		if m.pd != q.pd {
			continue
		}
		if b, ok := m.slice(addr, n); ok {
			return b, true
		}
	}
	return nil, false
}

// local returns the bytes an SGE names through its lkey.
func (q *qp) local(s verbs.SGE, need verbs.Access) ([]byte, bool) {
	if s.Len == 0 {
		return nil, true
	}
	m := q.pd.d.h.mrs[s.LKey]
	if m == nil || m.lkey != s.LKey || m.pd != q.pd || m.access&need != need {
		return nil, false
	}
	return m.slice(s.Addr, s.Len)
}

// peer returns the QP this one's RTR names, if it exists and names this
// one back with matching PSNs; the lock is held.
func (q *qp) peer() *qp {
	if q.state != verbs.QPSRTS && q.state != verbs.QPSRTR {
		return nil
	}
	p := q.pd.d.h.f.lookupQP(q.attr.IsGlobal, q.attr.DestLID, q.attr.DGID, q.attr.DestQPN)
	if p == nil || p.closed || (p.state != verbs.QPSRTR && p.state != verbs.QPSRTS) {
		return nil
	}
	if p.attr.DestQPN != q.num || p.attr.RQPSN != q.attr.SQPSN || q.attr.RQPSN != p.attr.SQPSN {
		return nil
	}
	if p.attr.PathMTU != q.attr.PathMTU {
		return nil
	}
	return p
}

// retry executes the pending sends in order until one is blocked by RNR;
// the lock is held.
func (q *qp) retry() {
	for len(q.pending) > 0 {
		if q.state == verbs.QPSErr {
			q.toErr()
			return
		}
		p := &q.pending[0]
		st, blocked := q.execute(p)
		if blocked {
			if q.attr.RNRRetry == 7 {
				return // for ever: until the peer posts a receive
			}
			p.rnr++
			if p.rnr <= int(q.attr.RNRRetry) {
				return
			}
			st = verbs.WCRNRRetryExcErr
		}
		wr := p.wr
		q.pending = q.pending[1:]
		q.complete(wr, st)
		if st != verbs.WCSuccess {
			q.toErr()
			return
		}
	}
}

// execute runs one send work request against the peer. It returns the
// status for the requester, or blocked when the peer has no receive
// posted (RNR).
func (q *qp) execute(p *pendingSend) (verbs.WCStatus, bool) {
	wr := p.wr
	peer := q.peer()
	if peer == nil {
		return verbs.WCRetryExcErr, false
	}
	var data []byte
	if wr.Opcode != verbs.WRRDMARead {
		if p.inline != nil || wr.Flags&verbs.SendInline != 0 {
			data = p.inline
		} else {
			b, ok := q.local(wr.SGE, 0)
			if !ok {
				return verbs.WCLocProtErr, false
			}
			data = b
		}
	}
	consumesRecv := wr.Opcode == verbs.WRSend || wr.Opcode == verbs.WRSendWithImm || wr.Opcode == verbs.WRRDMAWriteWithImm
	if consumesRecv && len(peer.recvQ) == 0 {
		return 0, true
	}
	switch wr.Opcode {
	case verbs.WRSend, verbs.WRSendWithImm:
		r := peer.recvQ[0]
		dst, ok := peer.local(r.SGE, verbs.AccessLocalWrite)
		if !ok {
			peer.recvQ = peer.recvQ[1:]
			peer.rcq.push(cqe{wc: verbs.WorkCompletion{WRID: r.WRID, Status: verbs.WCLocProtErr, Opcode: verbs.WCRecv, QPNum: peer.num}, q: peer})
			peer.toErr()
			return verbs.WCRemOpErr, false
		}
		if len(data) > len(dst) {
			peer.recvQ = peer.recvQ[1:]
			peer.rcq.push(cqe{wc: verbs.WorkCompletion{WRID: r.WRID, Status: verbs.WCLocLenErr, Opcode: verbs.WCRecv, QPNum: peer.num}, q: peer})
			peer.toErr()
			return verbs.WCRemInvReqErr, false
		}
		copy(dst, data)
		peer.recvQ = peer.recvQ[1:]
		wc := verbs.WorkCompletion{WRID: r.WRID, Opcode: verbs.WCRecv, ByteLen: uint32(len(data)), QPNum: peer.num}
		if wr.Opcode == verbs.WRSendWithImm {
			wc.Imm, wc.HasImm = wr.Imm, true
		}
		peer.rcq.push(cqe{wc: wc, q: peer})
	case verbs.WRRDMAWrite, verbs.WRRDMAWriteWithImm:
		dst, ok := peer.remote(wr.RKey, wr.RemoteAddr, uint32(len(data)), verbs.AccessRemoteWrite)
		if !ok {
			return verbs.WCRemAccessErr, false
		}
		dmaCopy(dst, data)
		if wr.Opcode == verbs.WRRDMAWriteWithImm {
			r := peer.recvQ[0]
			peer.recvQ = peer.recvQ[1:]
			peer.rcq.push(cqe{wc: verbs.WorkCompletion{WRID: r.WRID, Opcode: verbs.WCRecvRDMAWithImm,
				ByteLen: uint32(len(data)), Imm: wr.Imm, HasImm: true, QPNum: peer.num}, q: peer})
		}
	case verbs.WRRDMARead:
		src, ok := peer.remote(wr.RKey, wr.RemoteAddr, wr.SGE.Len, verbs.AccessRemoteRead)
		if !ok {
			return verbs.WCRemAccessErr, false
		}
		dst, ok := q.local(wr.SGE, verbs.AccessLocalWrite)
		if !ok {
			return verbs.WCLocProtErr, false
		}
		copy(dst, src)
	}
	return verbs.WCSuccess, false
}

// remote returns the n bytes at addr of the region rkey names on this QP's
// device and PD, if the region and this QP allow need; the lock is held.
func (q *qp) remote(rkey uint32, addr uint64, n uint32, need verbs.Access) ([]byte, bool) {
	if q.attr.Access&need != need {
		return nil, false
	}
	m := q.pd.d.h.mrs[rkey]
	if m == nil || m.rkey != rkey || m.pd != q.pd || m.access&need != need {
		return nil, false
	}
	if n == 0 {
		return nil, addr >= m.addr && addr <= m.addr+uint64(len(m.b))
	}
	return m.slice(addr, n)
}

// complete reports a finished send work request: a completion when it was
// signaled or failed; the lock is held.
func (q *qp) complete(wr verbs.SendWR, st verbs.WCStatus) {
	if st == verbs.WCSuccess && wr.Flags&verbs.SendSignaled == 0 {
		return
	}
	op := map[verbs.WROpcode]verbs.WCOpcode{
		verbs.WRSend: verbs.WCSend, verbs.WRSendWithImm: verbs.WCSend,
		verbs.WRRDMAWrite: verbs.WCRDMAWrite, verbs.WRRDMAWriteWithImm: verbs.WCRDMAWrite,
		verbs.WRRDMARead: verbs.WCRDMARead,
	}[wr.Opcode]
	q.scq.push(cqe{wc: verbs.WorkCompletion{WRID: wr.WRID, Status: st, Opcode: op, QPNum: q.num}, q: q, send: true})
}

// reap frees the send queue's entries up to the one with wrid, whose
// completion was polled; the lock is held.
func (q *qp) reap(wrid uint64) {
	for i, e := range q.sq {
		if e.wrid == wrid {
			q.sq = q.sq[i+1:]
			return
		}
	}
}

func (q *qp) Close() error {
	defer q.pd.d.lock()()
	if q.closed {
		return verbs.Errno("ibv_destroy_qp", unix.EBADF)
	}
	q.closed = true
	delete(q.pd.d.h.qps, q.num)
	q.scq.qps--
	q.rcq.qps--
	q.pd.qps--
	q.recvQ, q.sq, q.pending = nil, nil, nil
	return nil
}
