package fakeverbs_test

import (
	"errors"
	"testing"

	"github.com/hpcbench/hpcbench/fabric/verbs"
	"github.com/hpcbench/hpcbench/fabric/verbs/fakeverbs"
	"golang.org/x/sys/unix"
)

// side is one end of a hand-made RC connection.
type side struct {
	dev verbs.Device
	pd  verbs.PD
	cq  verbs.CQ
	qp  verbs.QP
	mr  verbs.MR
	lid uint16
	psn uint32
}

// newSide makes a QP in INIT with a 4 KiB region on the fabric's device
// name.
func newSide(t *testing.T, f *fakeverbs.Fabric, name string, psn uint32) *side {
	t.Helper()
	devs, err := f.Opener(name)()
	if err != nil {
		t.Fatal(err)
	}
	s := &side{dev: devs[0], psn: psn}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	s.pd, err = s.dev.AllocPD()
	must(err)
	s.cq, err = s.dev.CreateCQ(16, false)
	must(err)
	s.qp, err = s.pd.CreateQP(verbs.QPInitAttr{SendCQ: s.cq, RecvCQ: s.cq, Cap: verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: 64}})
	must(err)
	s.mr, err = s.pd.AllocMR(4096, verbs.AccessLocalWrite|verbs.AccessRemoteWrite)
	must(err)
	pa, err := s.dev.QueryPort(1)
	must(err)
	s.lid = pa.LID
	must(s.qp.Modify(verbs.InitAttr(1, verbs.AccessRemoteWrite)))
	return s
}

// connect moves both QPs to RTS towards each other.
func connect(t *testing.T, a, b *side, rnrRetry uint8) {
	t.Helper()
	for _, p := range [][2]*side{{a, b}, {b, a}} {
		x, y := p[0], p[1]
		rtr := verbs.RTRAttr(verbs.Endpoint{LID: y.lid, QPN: y.qp.Num(), PSN: y.psn}, verbs.MTU4096, false, 0, 16)
		if err := x.qp.Modify(rtr); err != nil {
			t.Fatalf("RTR: %v", err)
		}
		rts := verbs.RTSAttr(x.psn, 16)
		rts.RNRRetry = rnrRetry
		if err := x.qp.Modify(rts); err != nil {
			t.Fatalf("RTS: %v", err)
		}
	}
}

// poll returns the completions s's CQ has now.
func poll(t *testing.T, s *side) []verbs.WorkCompletion {
	t.Helper()
	wc := make([]verbs.WorkCompletion, 16)
	n, err := s.cq.Poll(wc)
	if err != nil {
		t.Fatalf("Poll: %v", err)
	}
	return wc[:n]
}

func (s *side) send(t *testing.T, wrid uint64, op verbs.WROpcode, n int, flags verbs.SendFlags) error {
	t.Helper()
	return s.qp.PostSend(verbs.SendWR{WRID: wrid, Opcode: op, Flags: flags | verbs.SendSignaled,
		SGE: verbs.SGE{Addr: s.mr.Addr(), Len: uint32(n), LKey: s.mr.LKey()}})
}

func (s *side) recv(t *testing.T, wrid uint64, n int) {
	t.Helper()
	if err := s.qp.PostRecv(verbs.RecvWR{WRID: wrid, SGE: verbs.SGE{Addr: s.mr.Addr(), Len: uint32(n), LKey: s.mr.LKey()}}); err != nil {
		t.Fatalf("PostRecv: %v", err)
	}
}

func TestSendRecv(t *testing.T) {
	f := fakeverbs.New()
	f.AddDevice(fakeverbs.Config{})
	a, b := newSide(t, f, "fake0", 10), newSide(t, f, "fake0", 20)
	connect(t, a, b, 7)
	copy(a.mr.Bytes(), "hello")
	b.recv(t, 1, 100)
	if err := a.send(t, 2, verbs.WRSend, 5, 0); err != nil {
		t.Fatal(err)
	}
	if wc := poll(t, a); len(wc) != 1 || wc[0].WRID != 2 || wc[0].Status != verbs.WCSuccess || wc[0].Opcode != verbs.WCSend {
		t.Fatalf("sender's completions %+v", wc)
	}
	wc := poll(t, b)
	if len(wc) != 1 || wc[0].WRID != 1 || wc[0].ByteLen != 5 || wc[0].Opcode != verbs.WCRecv || string(b.mr.Bytes()[:5]) != "hello" {
		t.Fatalf("receiver's completions %+v, buffer %q", wc, b.mr.Bytes()[:5])
	}
}

func TestRNR(t *testing.T) {
	f := fakeverbs.New()
	f.AddDevice(fakeverbs.Config{})
	// rnr_retry 7: the send waits for a receive, then goes.
	a, b := newSide(t, f, "fake0", 1), newSide(t, f, "fake0", 2)
	connect(t, a, b, 7)
	if err := a.send(t, 1, verbs.WRSend, 8, 0); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if wc := poll(t, a); len(wc) != 0 {
			t.Fatalf("a send with no receive posted completed: %+v", wc)
		}
	}
	b.recv(t, 9, 8)
	if wc := poll(t, a); len(wc) != 1 || wc[0].Status != verbs.WCSuccess {
		t.Fatalf("after the receive was posted: %+v", wc)
	}
	// rnr_retry 2: three polls, then "RNR retry counter exceeded" and ERR.
	c, d := newSide(t, f, "fake0", 3), newSide(t, f, "fake0", 4)
	connect(t, c, d, 2)
	if err := c.send(t, 5, verbs.WRSend, 8, 0); err != nil {
		t.Fatal(err)
	}
	var wc []verbs.WorkCompletion
	for range 5 {
		if wc = poll(t, c); len(wc) > 0 {
			break
		}
	}
	if len(wc) != 1 || wc[0].Status != verbs.WCRNRRetryExcErr || wc[0].WRID != 5 {
		t.Fatalf("RNR with rnr_retry 2: %+v", wc)
	}
	if err := c.send(t, 6, verbs.WRSend, 8, 0); err != nil {
		t.Fatal(err)
	}
	if wc := poll(t, c); len(wc) != 1 || wc[0].Status != verbs.WCWRFlushErr {
		t.Fatalf("a send on the QP in ERR: %+v; want a flush", wc)
	}
}

func TestRemoteAccess(t *testing.T) {
	f := fakeverbs.New()
	f.AddDevice(fakeverbs.Config{})
	f.AddDevice(fakeverbs.Config{})
	a, b := newSide(t, f, "fake0", 1), newSide(t, f, "fake1", 2)
	connect(t, a, b, 7)
	write := func(rkey uint32, addr uint64, n int) verbs.WCStatus {
		t.Helper()
		err := a.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
			SGE: verbs.SGE{Addr: a.mr.Addr(), Len: uint32(n), LKey: a.mr.LKey()}, RemoteAddr: addr, RKey: rkey})
		if err != nil {
			t.Fatal(err)
		}
		wc := poll(t, a)
		if len(wc) != 1 {
			t.Fatalf("%d completions", len(wc))
		}
		return wc[0].Status
	}
	if st := write(b.mr.RKey(), b.mr.Addr()+4000, 96); st != verbs.WCSuccess {
		t.Fatalf("a write to the region's last 96 bytes: %s", st)
	}
	if st := write(b.mr.RKey(), b.mr.Addr()+4000, 97); st != verbs.WCRemAccessErr {
		t.Fatalf("a write one byte past the region: %s; want remote access error", st)
	}
	// The QP is in ERR now: even a good write is flushed.
	if st := write(b.mr.RKey(), b.mr.Addr(), 1); st != verbs.WCWRFlushErr {
		t.Fatalf("a write after the error: %s; want a flush", st)
	}
	c, d := newSide(t, f, "fake0", 5), newSide(t, f, "fake1", 6)
	connect(t, c, d, 7)
	a = c
	if st := write(d.mr.LKey(), d.mr.Addr(), 1); st != verbs.WCRemAccessErr {
		t.Fatalf("a write naming the lkey as rkey: %s; want remote access error", st)
	}
}

func TestStrictness(t *testing.T) {
	f := fakeverbs.New()
	h := f.AddDevice(fakeverbs.Config{})
	a, b := newSide(t, f, "fake0", 1), newSide(t, f, "fake0", 2)
	// Posting a send in INIT fails at once.
	if err := a.send(t, 1, verbs.WRSend, 1, 0); !errors.Is(err, unix.EINVAL) {
		t.Fatalf("PostSend in INIT = %v; want EINVAL", err)
	}
	// An illegal transition is refused.
	if err := a.qp.Modify(verbs.RTSAttr(1, 16)); !errors.Is(err, unix.EINVAL) {
		t.Fatalf("INIT -> RTS = %v; want EINVAL", err)
	}
	// A path MTU beyond the port's is refused.
	h2 := f.AddDevice(fakeverbs.Config{ActiveMTU: verbs.MTU1024})
	c := newSide(t, f, h2.Name(), 3)
	if err := c.qp.Modify(verbs.RTRAttr(verbs.Endpoint{LID: a.lid, QPN: a.qp.Num()}, verbs.MTU4096, false, 0, 16)); !errors.Is(err, unix.EINVAL) {
		t.Fatalf("RTR with MTU 4096 on a 1024 port = %v; want EINVAL", err)
	}
	// Mismatched PSNs: packets would be dropped; the send fails.
	connect(t, a, b, 7)
	d, e := newSide(t, f, "fake0", 7), newSide(t, f, "fake0", 8)
	rtr := verbs.RTRAttr(verbs.Endpoint{LID: e.lid, QPN: e.qp.Num(), PSN: 1234}, verbs.MTU4096, false, 0, 16)
	if err := d.qp.Modify(rtr); err != nil {
		t.Fatal(err)
	}
	if err := d.qp.Modify(verbs.RTSAttr(d.psn, 16)); err != nil {
		t.Fatal(err)
	}
	rtr = verbs.RTRAttr(verbs.Endpoint{LID: d.lid, QPN: d.qp.Num(), PSN: d.psn}, verbs.MTU4096, false, 0, 16)
	if err := e.qp.Modify(rtr); err != nil {
		t.Fatal(err)
	}
	if err := e.qp.Modify(verbs.RTSAttr(e.psn, 16)); err != nil {
		t.Fatal(err)
	}
	e.recv(t, 1, 8)
	if err := d.send(t, 1, verbs.WRSend, 1, 0); err != nil {
		t.Fatal(err)
	}
	if wc := poll(t, d); len(wc) != 1 || wc[0].Status != verbs.WCRetryExcErr {
		t.Fatalf("a send with the wrong PSN: %+v; want transport retry counter exceeded", wc)
	}
	// A message longer than the receive fails both ends.
	b.recv(t, 1, 4)
	if err := a.send(t, 2, verbs.WRSend, 5, 0); err != nil {
		t.Fatal(err)
	}
	if wc := poll(t, a); len(wc) != 1 || wc[0].Status != verbs.WCRemInvReqErr {
		t.Fatalf("sender of a too long message: %+v", wc)
	}
	if wc := poll(t, b); len(wc) != 1 || wc[0].Status != verbs.WCLocLenErr {
		t.Fatalf("receiver of a too long message: %+v", wc)
	}
	// Inline beyond the QP's cap is refused.
	x, y := newSide(t, f, "fake0", 11), newSide(t, f, "fake0", 12)
	connect(t, x, y, 7)
	if err := x.send(t, 1, verbs.WRSend, 65, verbs.SendInline); !errors.Is(err, unix.EINVAL) {
		t.Fatalf("65 inline bytes on a QP with max_inline_data 64 = %v; want EINVAL", err)
	}
	// Send queue depth is enforced until completions are polled.
	for i := range 4 {
		y.recv(t, uint64(i), 8)
	}
	for i := range 4 {
		if err := x.send(t, uint64(i), verbs.WRSend, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.send(t, 9, verbs.WRSend, 1, 0); !errors.Is(err, unix.ENOMEM) {
		t.Fatalf("a fifth send on a 4-deep queue = %v; want ENOMEM", err)
	}
	poll(t, x)
	// Closing a PD with objects is EBUSY.
	if err := x.pd.Close(); !errors.Is(err, unix.EBUSY) {
		t.Fatalf("closing a busy PD = %v; want EBUSY", err)
	}
	// Injected failures carry the call's name.
	h.FailNext("ibv_create_qp", unix.ENOMEM)
	_, err := x.pd.CreateQP(verbs.QPInitAttr{SendCQ: x.cq, RecvCQ: x.cq, Cap: verbs.QPCap{MaxSendWR: 1, MaxRecvWR: 1}})
	if err == nil || err.Error() != "ibv_create_qp: Cannot allocate memory (errno 12)" {
		t.Fatalf("injected failure: %v", err)
	}
}

func TestCQOverrun(t *testing.T) {
	f := fakeverbs.New()
	f.AddDevice(fakeverbs.Config{})
	devs, _ := f.Opener()()
	pd, _ := devs[0].AllocPD()
	cq, _ := devs[0].CreateCQ(2, false)
	qp, err := pd.CreateQP(verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq, Cap: verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if err := qp.Modify(verbs.InitAttr(1, 0)); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := qp.PostRecv(verbs.RecvWR{WRID: uint64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	// ERR flushes three receives into a 2-entry CQ.
	if err := qp.Modify(verbs.QPAttr{State: verbs.QPSErr}); err != nil {
		t.Fatal(err)
	}
	if _, err := cq.Poll(make([]verbs.WorkCompletion, 4)); !errors.Is(err, unix.EOVERFLOW) {
		t.Fatalf("Poll of an overrun CQ = %v; want EOVERFLOW", err)
	}
}
