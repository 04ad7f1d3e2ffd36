package fakeverbs_test

import (
	"testing"

	"github.com/hpcbench/hpcbench/fabric/verbs"
	"github.com/hpcbench/hpcbench/fabric/verbs/fakeverbs"
)

// TestImmediateAndRead covers SEND_WITH_IMM, RDMA_WRITE_WITH_IMM (which
// consumes a receive) and RDMA_READ (which needs local write access on
// the destination and remote read access on the source).
func TestImmediateAndRead(t *testing.T) {
	f := fakeverbs.New()
	f.AddDevice(fakeverbs.Config{})
	a, b := newSide(t, f, "fake0", 1), newSide(t, f, "fake0", 2)
	connect(t, a, b, 7)

	b.recv(t, 1, 64)
	if err := a.qp.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRSendWithImm, Flags: verbs.SendSignaled,
		SGE: verbs.SGE{Addr: a.mr.Addr(), Len: 3, LKey: a.mr.LKey()}, Imm: 0xdeadbeef}); err != nil {
		t.Fatal(err)
	}
	if wc := poll(t, b); len(wc) != 1 || !wc[0].HasImm || wc[0].Imm != 0xdeadbeef || wc[0].Opcode != verbs.WCRecv || wc[0].ByteLen != 3 {
		t.Fatalf("send with immediate: %+v", wc)
	}
	poll(t, a)

	// A write with immediate and no receive posted waits (RNR, retry 7).
	copy(a.mr.Bytes(), "abcdef")
	if err := a.qp.PostSend(verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWriteWithImm, Flags: verbs.SendSignaled,
		SGE: verbs.SGE{Addr: a.mr.Addr(), Len: 6, LKey: a.mr.LKey()}, Imm: 7, RemoteAddr: b.mr.Addr() + 10, RKey: b.mr.RKey()}); err != nil {
		t.Fatal(err)
	}
	if wc := poll(t, a); len(wc) != 0 {
		t.Fatalf("write with immediate completed with no receive posted: %+v", wc)
	}
	b.recv(t, 4, 0)
	if wc := poll(t, b); len(wc) != 1 || wc[0].Opcode != verbs.WCRecvRDMAWithImm || wc[0].Imm != 7 || wc[0].ByteLen != 6 || wc[0].WRID != 4 {
		t.Fatalf("receive of a write with immediate: %+v", wc)
	}
	if string(b.mr.Bytes()[10:16]) != "abcdef" {
		t.Fatalf("written bytes %q", b.mr.Bytes()[10:16])
	}
	if wc := poll(t, a); len(wc) != 1 || wc[0].Opcode != verbs.WCRDMAWrite || wc[0].Status != verbs.WCSuccess {
		t.Fatalf("writer's completion: %+v", wc)
	}

	// The region has no remote read access: a read fails.
	if err := a.qp.PostSend(verbs.SendWR{WRID: 5, Opcode: verbs.WRRDMARead, Flags: verbs.SendSignaled,
		SGE: verbs.SGE{Addr: a.mr.Addr(), Len: 4, LKey: a.mr.LKey()}, RemoteAddr: b.mr.Addr(), RKey: b.mr.RKey()}); err != nil {
		t.Fatal(err)
	}
	if wc := poll(t, a); len(wc) != 1 || wc[0].Status != verbs.WCRemAccessErr {
		t.Fatalf("read of a region without remote read: %+v", wc)
	}
}
