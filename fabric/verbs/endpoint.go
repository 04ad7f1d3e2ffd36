package verbs

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// endpoint is one side's queue pair and everything it needs: a protection
// domain, one completion queue for sends and receives, the receive ring
// (all its slots posted) and the send ring.
type endpoint struct {
	dev  *devRef
	pd   PD
	cq   CQ
	qp   stateQP
	recv ring
	send ring
	psn  uint32
}

// newEndpoint makes an endpoint on dev in INIT with every receive posted.
// It takes a reference on dev, which close drops.
func newEndpoint(dev *devRef, o Options) (ep *endpoint, err error) {
	dev.acquire()
	ep = &endpoint{dev: dev, psn: rand.Uint32() & psnMask}
	defer func() {
		if err != nil {
			err = errors.Join(err, ep.close())
			ep = nil
		}
	}()
	if ep.pd, err = dev.dev.AllocPD(); err != nil {
		return ep, err
	}
	// One RMA work request may be in flight besides the send slots.
	sendWR, recvWR := o.Slots+1, o.Slots
	if ep.cq, err = dev.dev.CreateCQ(sendWR+recvWR, o.EventMode); err != nil {
		return ep, err
	}
	qp, err := ep.pd.CreateQP(QPInitAttr{SendCQ: ep.cq, RecvCQ: ep.cq, Cap: QPCap{
		MaxSendWR: sendWR, MaxRecvWR: recvWR, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: max(o.Inline, 0),
	}})
	if err != nil {
		return ep, err
	}
	ep.qp = stateQP{qp: qp}
	size := o.Slots * o.SlotSize
	mr, err := ep.pd.AllocMR(size, AccessLocalWrite)
	if err != nil {
		return ep, fmt.Errorf("receive ring of %d bytes: %w", size, err)
	}
	ep.recv = ring{mr: mr, size: o.SlotSize, n: o.Slots}
	if mr, err = ep.pd.AllocMR(size, AccessLocalWrite); err != nil {
		return ep, fmt.Errorf("send ring of %d bytes: %w", size, err)
	}
	ep.send = ring{mr: mr, size: o.SlotSize, n: o.Slots}
	if err := ep.qp.move(InitAttr(dev.port, AccessLocalWrite|AccessRemoteWrite|AccessRemoteRead)); err != nil {
		return ep, err
	}
	for i := range o.Slots {
		if err := qp.PostRecv(RecvWR{WRID: wrID(wrRecv, uint64(i)), SGE: ep.recv.sge(i, o.SlotSize)}); err != nil {
			return ep, fmt.Errorf("posting receive slot %d: %w", i, err)
		}
	}
	return ep, nil
}

// local is this endpoint's record for the peer.
func (ep *endpoint) local(rank int) Endpoint {
	e := Endpoint{
		Rank: rank, LID: ep.dev.pattr.LID, QPN: ep.qp.qp.Num(), PSN: ep.psn,
		MTU: ep.dev.pattr.ActiveMTU, Global: ep.dev.global,
		Slots: uint32(ep.recv.n), SlotSize: uint32(ep.recv.size),
		RKey: ep.recv.mr.RKey(), Addr: ep.recv.mr.Addr(), Len: uint64(len(ep.recv.mr.Bytes())),
	}
	if ep.dev.global {
		e.GID = ep.dev.gid.GID
	}
	return e
}

// connect moves the QP to RTR towards remote and on to RTS.
func (ep *endpoint) connect(remote Endpoint) error {
	if remote.Global != ep.dev.global {
		how := map[bool]string{true: "GID", false: "LID"}
		return fmt.Errorf("rank %d routes by %s and this side by %s: set the same GIDIndex on both (AutoGID on RoCE)", remote.Rank, how[remote.Global], how[ep.dev.global])
	}
	mtu := min(remote.MTU, ep.dev.pattr.ActiveMTU)
	rd := min(DefaultRdAtomic, ep.dev.attr.MaxQPRdAtom, ep.dev.attr.MaxQPInitRdAtom)
	if err := ep.qp.move(RTRAttr(remote, mtu, ep.dev.global, ep.dev.gid.Index, rd)); err != nil {
		return err
	}
	return ep.qp.move(RTSAttr(ep.psn, rd))
}

// close destroys what newEndpoint made, in reverse order, and drops the
// device reference.
func (ep *endpoint) close() error {
	var errs []error
	if ep.qp.qp != nil {
		errs = append(errs, ep.qp.qp.Close())
	}
	for _, r := range []ring{ep.send, ep.recv} {
		if r.mr != nil {
			errs = append(errs, r.mr.Close())
		}
	}
	if ep.cq != nil {
		errs = append(errs, ep.cq.Close())
	}
	if ep.pd != nil {
		errs = append(errs, ep.pd.Close())
	}
	errs = append(errs, ep.dev.release())
	return errors.Join(errs...)
}
