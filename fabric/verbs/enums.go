package verbs

import "fmt"

// The constants below have the numeric values of libibverbs' enums, so the
// cgo binding converts them with a cast (ibv_test.go checks every one
// against verbs.h).

// Access is a memory region's or queue pair's access flags (enum
// ibv_access_flags).
type Access uint32

// Access flags.
const (
	AccessLocalWrite   Access = 1
	AccessRemoteWrite  Access = 2
	AccessRemoteRead   Access = 4
	AccessRemoteAtomic Access = 8
)

// SendFlags are a send work request's flags (enum ibv_send_flags).
type SendFlags uint32

// Send flags.
const (
	// SendFence waits for earlier RDMA reads before this request.
	SendFence SendFlags = 1
	// SendSignaled asks for a work completion when the request is done.
	SendSignaled SendFlags = 2
	// SendSolicited sets the solicited-event bit at the receiver.
	SendSolicited SendFlags = 4
	// SendInline copies the payload into the request at post time, so the
	// buffer is free when PostSend returns and needs no lkey.
	SendInline SendFlags = 8
)

// WROpcode is a send work request's operation (enum ibv_wr_opcode).
type WROpcode uint32

// Work request opcodes.
const (
	WRRDMAWrite        WROpcode = 0
	WRRDMAWriteWithImm WROpcode = 1
	WRSend             WROpcode = 2
	WRSendWithImm      WROpcode = 3
	WRRDMARead         WROpcode = 4
)

// String names the operation for errors ("RDMA write").
func (o WROpcode) String() string {
	switch o {
	case WRRDMAWrite:
		return "RDMA write"
	case WRRDMAWriteWithImm:
		return "RDMA write with immediate"
	case WRSend:
		return "send"
	case WRSendWithImm:
		return "send with immediate"
	case WRRDMARead:
		return "RDMA read"
	}
	return fmt.Sprintf("work request opcode %d", uint32(o))
}

// WCOpcode is a work completion's operation (enum ibv_wc_opcode).
type WCOpcode uint32

// Work completion opcodes.
const (
	WCSend            WCOpcode = 0
	WCRDMAWrite       WCOpcode = 1
	WCRDMARead        WCOpcode = 2
	WCRecv            WCOpcode = 128
	WCRecvRDMAWithImm WCOpcode = 129
	wcRecvFlag        WCOpcode = 128 // IBV_WC_RECV: receive opcodes have it
)

// String names the completed operation ("RDMA write", "receive").
func (o WCOpcode) String() string {
	switch o {
	case WCSend:
		return "send"
	case WCRDMAWrite:
		return "RDMA write"
	case WCRDMARead:
		return "RDMA read"
	case WCRecv:
		return "receive"
	case WCRecvRDMAWithImm:
		return "receive of an RDMA write with immediate"
	}
	return fmt.Sprintf("completion opcode %d", uint32(o))
}

// IsRecv reports whether o completes a receive work request.
func (o WCOpcode) IsRecv() bool { return o&wcRecvFlag != 0 }

// WCStatus is a work completion's status (enum ibv_wc_status).
type WCStatus uint32

// Work completion statuses, the ones this package names; the others keep
// their number.
const (
	WCSuccess          WCStatus = 0
	WCLocLenErr        WCStatus = 1
	WCLocQPOpErr       WCStatus = 2
	WCLocProtErr       WCStatus = 4
	WCWRFlushErr       WCStatus = 5
	WCBadRespErr       WCStatus = 7
	WCLocAccessErr     WCStatus = 8
	WCRemInvReqErr     WCStatus = 9
	WCRemAccessErr     WCStatus = 10
	WCRemOpErr         WCStatus = 11
	WCRetryExcErr      WCStatus = 12
	WCRNRRetryExcErr   WCStatus = 13
	WCFatalErr         WCStatus = 19
	WCRespTimeoutErr   WCStatus = 20
	WCGeneralErr       WCStatus = 21
	wcStatusStrEntries          = 24
)

// wcStatusStr is ibv_wc_status_str's table (rdma-core libibverbs
// enum_strs.c), word for word.
var wcStatusStr = [wcStatusStrEntries]string{
	"success",
	"local length error",
	"local QP operation error",
	"local EE context operation error",
	"local protection error",
	"Work Request Flushed Error",
	"memory management operation error",
	"bad response error",
	"local access error",
	"remote invalid request error",
	"remote access error",
	"remote operation error",
	"transport retry counter exceeded",
	"RNR retry counter exceeded",
	"local RDD violation error",
	"remote invalid RD request",
	"aborted error",
	"invalid EE context number",
	"invalid EE context state",
	"fatal error",
	"response timeout error",
	"general error",
	"TM error",
	"TM software rendezvous",
}

// String is ibv_wc_status_str's text for s ("remote access error"), or
// "unknown" as ibv_wc_status_str says for a number it does not know.
func (s WCStatus) String() string {
	if int(s) < len(wcStatusStr) {
		return wcStatusStr[s]
	}
	return "unknown"
}

// QPState is a queue pair's state (enum ibv_qp_state).
type QPState uint32

// Queue pair states. SQD and SQE exist in the enum but this transport
// never asks for them.
const (
	QPSReset QPState = 0
	QPSInit  QPState = 1
	QPSRTR   QPState = 2
	QPSRTS   QPState = 3
	QPSSQD   QPState = 4
	QPSSQE   QPState = 5
	QPSErr   QPState = 6
)

// String names the state as the verbs documentation does ("RTR").
func (s QPState) String() string {
	switch s {
	case QPSReset:
		return "RESET"
	case QPSInit:
		return "INIT"
	case QPSRTR:
		return "RTR"
	case QPSRTS:
		return "RTS"
	case QPSSQD:
		return "SQD"
	case QPSSQE:
		return "SQE"
	case QPSErr:
		return "ERR"
	}
	return fmt.Sprintf("QP state %d", uint32(s))
}

// MTU is a path MTU as the verbs enumerate it (enum ibv_mtu: 1 is 256
// bytes, 5 is 4096).
type MTU uint8

// MTUs.
const (
	MTU256  MTU = 1
	MTU512  MTU = 2
	MTU1024 MTU = 3
	MTU2048 MTU = 4
	MTU4096 MTU = 5
)

// Bytes is the MTU in bytes, 0 for a value outside the enum.
func (m MTU) Bytes() int {
	if m < MTU256 || m > MTU4096 {
		return 0
	}
	return 128 << m
}

// Valid reports whether m is one of the enum's values.
func (m MTU) Valid() bool { return m.Bytes() != 0 }

// String is the MTU in bytes ("4096"), as ibv_devinfo prints it.
func (m MTU) String() string {
	if !m.Valid() {
		return fmt.Sprintf("invalid MTU %d", uint8(m))
	}
	return fmt.Sprint(m.Bytes())
}

// PortState is a port's state (enum ibv_port_state).
type PortState uint32

// Port states.
const (
	PortNop         PortState = 0
	PortDown        PortState = 1
	PortInit        PortState = 2
	PortArmed       PortState = 3
	PortActive      PortState = 4
	PortActiveDefer PortState = 5
)

// String is ibv_port_state_str's text ("PORT_ACTIVE").
func (s PortState) String() string {
	switch s {
	case PortNop:
		return "PORT_NOP"
	case PortDown:
		return "PORT_DOWN"
	case PortInit:
		return "PORT_INIT"
	case PortArmed:
		return "PORT_ARMED"
	case PortActive:
		return "PORT_ACTIVE"
	case PortActiveDefer:
		return "PORT_ACTIVE_DEFER"
	}
	return "invalid state"
}

// LinkLayer is a port's link layer (IBV_LINK_LAYER_*).
type LinkLayer uint8

// Link layers.
const (
	LinkUnspecified LinkLayer = 0
	LinkInfiniBand  LinkLayer = 1
	LinkEthernet    LinkLayer = 2
)

// String is the name ibv_devinfo prints ("InfiniBand", "Ethernet").
func (l LinkLayer) String() string {
	switch l {
	case LinkInfiniBand, LinkUnspecified:
		return "InfiniBand"
	case LinkEthernet:
		return "Ethernet"
	}
	return fmt.Sprintf("link layer %d", uint8(l))
}

// GIDType is a GID table entry's type (enum ibv_gid_type).
type GIDType uint32

// GID types.
const (
	GIDTypeIB     GIDType = 0
	GIDTypeRoCEv1 GIDType = 1
	GIDTypeRoCEv2 GIDType = 2
)

// String names the type as ibv_devinfo -v does ("RoCE v2").
func (t GIDType) String() string {
	switch t {
	case GIDTypeIB:
		return "IB"
	case GIDTypeRoCEv1:
		return "RoCE v1"
	case GIDTypeRoCEv2:
		return "RoCE v2"
	}
	return fmt.Sprintf("GID type %d", uint32(t))
}
