package verbs

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

func TestErrorWording(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{Errno("ibv_create_qp", unix.ENOMEM), "ibv_create_qp: Cannot allocate memory (errno 12)"},
		{Errno("ibv_get_device_list", unix.ENOSYS), "ibv_get_device_list: Function not implemented (errno 38)"},
		{&WCError{Op: "RDMA write to rank 1", WRID: 0x300000000000001, Status: WCRemAccessErr},
			"RDMA write to rank 1: work completion failed: remote access error (status 10), wr_id 0x300000000000001"},
		{&WCError{Op: "send to rank 0", WRID: 7, Status: WCRNRRetryExcErr},
			"send to rank 0: work completion failed: RNR retry counter exceeded (status 13), wr_id 0x7"},
		{&WCError{Op: "receive from rank 2", Status: WCWRFlushErr},
			"receive from rank 2: work completion failed: Work Request Flushed Error (status 5), wr_id 0x0"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("error text %q; want %q", got, tc.want)
		}
	}
	if !errors.Is(Errno("ibv_reg_mr", unix.EFAULT), unix.EFAULT) {
		t.Error("errors.Is(CallError, its errno) = false")
	}
	if got := WCStatus(99).String(); got != "unknown" {
		t.Errorf("WCStatus(99) = %q; want unknown, as ibv_wc_status_str", got)
	}
}

func TestEnumStrings(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{MTU4096.String(), "4096"},
		{MTU256.String(), "256"},
		{MTU(0).String(), "invalid MTU 0"},
		{PortActive.String(), "PORT_ACTIVE"},
		{LinkEthernet.String(), "Ethernet"},
		{GIDTypeRoCEv2.String(), "RoCE v2"},
		{WRRDMARead.String(), "RDMA read"},
		{WCRecv.String(), "receive"},
		{QPSRTR.String(), "RTR"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q; want %q", tc.got, tc.want)
		}
	}
	if !WCRecvRDMAWithImm.IsRecv() || WCRDMAWrite.IsRecv() {
		t.Error("IsRecv wrong")
	}
}
