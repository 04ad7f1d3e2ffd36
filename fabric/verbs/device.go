package verbs

import "time"

// Device is an opened RDMA device (an ibv_context): exactly the part of
// libibverbs this transport uses. The cgo binding (ibv.go, -tags verbs)
// implements it over rdma-core; package fakeverbs implements it in memory
// for tests. A Device and everything it returns are safe for use by one
// goroutine at a time unless a method says otherwise; the transport
// serializes its calls on each connection.
//
// Errors from an implementation name the verbs call and the errno (see
// CallError), so the transport can wrap them without rewording.
type Device interface {
	// Name is the device's name ("mlx5_0", "rxe0").
	Name() string
	// Query returns the device's attributes (ibv_query_device).
	Query() (DeviceAttr, error)
	// QueryPort returns port's attributes (ibv_query_port); ports count
	// from 1.
	QueryPort(port int) (PortAttr, error)
	// QueryGID returns entry index of port's GID table (ibv_query_gid_ex).
	QueryGID(port, index int) (GIDEntry, error)
	// AllocPD allocates a protection domain (ibv_alloc_pd).
	AllocPD() (PD, error)
	// CreateCQ creates a completion queue of at least entries entries
	// (ibv_create_cq). With events, the CQ has a completion channel and
	// Arm and Wait work; without, only Poll does.
	CreateCQ(entries int, events bool) (CQ, error)
	// Close closes the device (ibv_close_device). Everything made from it
	// must be closed first.
	Close() error
}

// PD is a protection domain: the memory regions and queue pairs it holds
// can only be used with each other.
type PD interface {
	// AllocMR returns n bytes of memory that does not move, registered
	// with access (the cgo binding maps it outside the Go heap; ibv_reg_mr
	// on the mapping).
	AllocMR(n int, access Access) (MR, error)
	// RegMR registers b, memory the caller owns, with access (ibv_reg_mr).
	// The caller must keep b alive until the MR is closed; the cgo binding
	// pins it with a runtime.Pinner meanwhile, so the Go heap may hold it.
	RegMR(b []byte, access Access) (MR, error)
	// CreateQP creates a reliable-connected queue pair in RESET
	// (ibv_create_qp with IBV_QPT_RC).
	CreateQP(attr QPInitAttr) (QP, error)
	// Close deallocates the protection domain (ibv_dealloc_pd).
	Close() error
}

// MR is a registered memory region.
type MR interface {
	// Bytes is the region's memory.
	Bytes() []byte
	// Addr is the address of Bytes()[0] as the device sees it (the
	// process's virtual address on real hardware).
	Addr() uint64
	// LKey is the key local work requests name the region by.
	LKey() uint32
	// RKey is the key a peer's RDMA write or read names the region by.
	RKey() uint32
	// Close deregisters the region (ibv_dereg_mr) and frees memory that
	// AllocMR allocated.
	Close() error
}

// CQ is a completion queue.
type CQ interface {
	// Poll moves up to len(wc) completions into wc and returns how many
	// (ibv_poll_cq), 0 when there are none; it never blocks.
	Poll(wc []WorkCompletion) (int, error)
	// Arm asks for an event at the next completion (ibv_req_notify_cq).
	// Only for a CQ created with events.
	Arm() error
	// Wait waits up to d for the event Arm asked for and acknowledges it
	// (ibv_get_cq_event, ibv_ack_cq_events); it reports whether one came.
	// A completion that arrived between Arm and Wait counts. Only for a CQ
	// created with events.
	Wait(d time.Duration) (bool, error)
	// Close destroys the CQ (ibv_destroy_cq).
	Close() error
}

// QP is a reliable-connected queue pair.
type QP interface {
	// Num is the queue pair number (qp_num), which the peer's RTR names.
	Num() uint32
	// Cap is what the device granted at creation (it may round
	// QPInitAttr's numbers up).
	Cap() QPCap
	// Modify moves the QP to attr.State with attr's fields for that
	// transition (ibv_modify_qp); see qp.go for which fields each needs.
	Modify(attr QPAttr) error
	// PostSend posts one send work request (ibv_post_send).
	PostSend(wr SendWR) error
	// PostRecv posts one receive work request (ibv_post_recv).
	PostRecv(wr RecvWR) error
	// Close destroys the QP (ibv_destroy_qp).
	Close() error
}

// Opener opens the devices a transport may choose from (the cgo binding:
// every device of ibv_get_device_list). The caller closes the devices it
// does not keep.
type Opener func() ([]Device, error)

// DeviceAttr is the part of ibv_device_attr that ibv_devinfo shows.
type DeviceAttr struct {
	FWVersion    string
	NodeGUID     uint64
	SysImageGUID uint64
	VendorID     uint32
	VendorPartID uint32
	HWVersion    uint32
	PhysPorts    int
	MaxMRSize    uint64
	MaxQP        int
	MaxQPWR      int
	MaxSGE       int
	MaxCQ        int
	MaxCQE       int
	MaxMR        int
	MaxPD        int
	// MaxQPRdAtom is the most RDMA reads (and atomics) a QP may have in
	// flight as their target (max_qp_rd_atom).
	MaxQPRdAtom int
	// MaxQPInitRdAtom is the most a QP may have in flight as initiator.
	MaxQPInitRdAtom int
}

// PortAttr is the part of ibv_port_attr the transport and ibv_devinfo use.
type PortAttr struct {
	State     PortState
	MaxMTU    MTU
	ActiveMTU MTU
	LID       uint16
	SMLID     uint16
	LMC       uint8
	LinkLayer LinkLayer
	// GIDTableLen is how many GID entries the port has.
	GIDTableLen int
	// PKeyTableLen is how many P_Key entries the port has.
	PKeyTableLen int
}

// GID is a 128-bit global identifier (an IPv6 address on RoCE).
type GID [16]byte

// GIDEntry is one entry of a port's GID table.
type GIDEntry struct {
	Index int
	GID   GID
	Type  GIDType
}

// QPCap is a queue pair's capacities (struct ibv_qp_cap).
type QPCap struct {
	MaxSendWR     int
	MaxRecvWR     int
	MaxSendSGE    int
	MaxRecvSGE    int
	MaxInlineData int
}

// QPInitAttr is what ibv_create_qp needs for an RC queue pair. SendCQ and
// RecvCQ must come from the same Device as the PD.
type QPInitAttr struct {
	SendCQ, RecvCQ CQ
	Cap            QPCap
}

// SGE is one scatter/gather element: Len bytes at Addr of the region
// named by LKey.
type SGE struct {
	Addr uint64
	Len  uint32
	LKey uint32
}

// SendWR is one send work request with a single SGE (ibv_send_wr).
type SendWR struct {
	WRID   uint64
	Opcode WROpcode
	Flags  SendFlags
	SGE    SGE
	// Imm is the immediate data of SEND_WITH_IMM and RDMA_WRITE_WITH_IMM.
	Imm uint32
	// RemoteAddr and RKey name the peer's memory for RDMA write and read.
	RemoteAddr uint64
	RKey       uint32
}

// RecvWR is one receive work request with a single SGE (ibv_recv_wr).
type RecvWR struct {
	WRID uint64
	SGE  SGE
}

// WorkCompletion is one entry of a completion queue (ibv_wc).
type WorkCompletion struct {
	WRID   uint64
	Status WCStatus
	Opcode WCOpcode
	// ByteLen is the bytes received (receive completions only).
	ByteLen uint32
	// Imm is the immediate data, when HasImm.
	Imm    uint32
	HasImm bool
	// QPNum is the local QP the work request was posted on.
	QPNum uint32
}
