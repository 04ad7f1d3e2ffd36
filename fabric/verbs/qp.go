package verbs

import "fmt"

// The usual attribute values, perftest's (ib_send_lat, ib_write_bw):
const (
	// DefaultTimeout is the local ACK timeout exponent: 4.096 µs × 2^14,
	// about 67 ms before a retransmission.
	DefaultTimeout = 14
	// DefaultRetryCnt is how often a packet is retransmitted before the
	// send fails with "transport retry counter exceeded"; 7 is the most.
	DefaultRetryCnt = 7
	// DefaultRNRRetry is how often a send that found no receive posted is
	// retried; 7 means for ever. The credit protocol (ring.go) means this
	// transport never sends into an empty receive queue.
	DefaultRNRRetry = 7
	// DefaultMinRNRTimer is the RNR NAK timer code 12: 0.64 ms between
	// retries.
	DefaultMinRNRTimer = 12
	// DefaultHopLimit is the GRH hop limit for RoCE and routed InfiniBand.
	DefaultHopLimit = 0xff
	// DefaultRdAtomic is the RDMA reads a QP has in flight, as initiator
	// and as target, when the device allows as many (perftest's
	// out_reads takes the device's max_qp_rd_atom, usually 16).
	DefaultRdAtomic = 16
	// psnMask: PSNs and QP numbers are 24-bit.
	psnMask = 1<<24 - 1
)

// QPAttr is what ibv_modify_qp gets: the target State and the fields that
// transition needs. Fields of other transitions are ignored.
type QPAttr struct {
	State QPState

	// RESET -> INIT.
	Port      int    // port_num, from 1
	PKeyIndex int    // pkey_index, usually 0
	Access    Access // qp_access_flags: what the peer may do to our memory

	// INIT -> RTR.
	PathMTU MTU    // path_mtu: the smaller of both ports' active MTUs
	DestQPN uint32 // dest_qp_num: the peer's QP number
	RQPSN   uint32 // rq_psn: the peer's starting send PSN
	// DestLID is the peer port's LID (InfiniBand without a GRH).
	DestLID uint16
	// IsGlobal adds a GRH (RoCE always; InfiniBand across subnets): DGID
	// is the peer's GID and SGIDIndex this port's GID table entry.
	IsGlobal  bool
	DGID      GID
	SGIDIndex int
	HopLimit  uint8
	// MaxDestRdAtomic is the RDMA reads the peer may have in flight
	// against us (max_dest_rd_atomic).
	MaxDestRdAtomic int
	// MinRNRTimer is the RNR NAK timer code we tell a peer that finds no
	// receive posted.
	MinRNRTimer uint8

	// RTR -> RTS.
	SQPSN       uint32 // sq_psn: our starting send PSN
	Timeout     uint8  // ACK timeout exponent (4.096 µs × 2^Timeout)
	RetryCnt    uint8  // retransmissions before failing, up to 7
	RNRRetry    uint8  // RNR retries, 7 for ever
	MaxRdAtomic int    // max_rd_atomic: our RDMA reads in flight
}

// CheckTransition reports whether a QP in state from may be moved to state
// to: RESET -> INIT -> RTR -> RTS, and from any state to ERR or RESET. The
// error names both states and the transition that would be legal.
func CheckTransition(from, to QPState) error {
	switch {
	case to == QPSErr || to == QPSReset:
		return nil
	case from == QPSReset && to == QPSInit,
		from == QPSInit && to == QPSRTR,
		from == QPSRTR && to == QPSRTS:
		return nil
	}
	next := map[QPState]string{
		QPSReset: "INIT", QPSInit: "RTR", QPSRTR: "RTS",
	}[from]
	if next == "" {
		return fmt.Errorf("QP state %s -> %s: not a legal transition (from %s only ERR or RESET)", from, to, from)
	}
	return fmt.Errorf("QP state %s -> %s: not a legal transition (from %s: %s, ERR or RESET)", from, to, from, next)
}

// CheckAttr reports the first field of attr that the transition from
// state from to attr.State needs and lacks or has out of range, after
// checking the transition itself.
func CheckAttr(from QPState, attr QPAttr) error {
	if err := CheckTransition(from, attr.State); err != nil {
		return err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("QP state %s -> %s: %s", from, attr.State, fmt.Sprintf(format, a...))
	}
	switch attr.State {
	case QPSInit:
		if attr.Port < 1 || attr.Port > 255 {
			return bad("port %d: must be in [1, 255]", attr.Port)
		}
		if attr.PKeyIndex < 0 || attr.PKeyIndex > 0xffff {
			return bad("pkey index %d: must be in [0, 65535]", attr.PKeyIndex)
		}
	case QPSRTR:
		switch {
		case !attr.PathMTU.Valid():
			return bad("path MTU %d: must be one of the ibv_mtu values 1 (256) to 5 (4096)", attr.PathMTU)
		case attr.DestQPN == 0 || attr.DestQPN > psnMask:
			return bad("destination QP number %#x: must be in [1, 0xffffff]", attr.DestQPN)
		case attr.RQPSN > psnMask:
			return bad("receive PSN %#x: must be 24 bits", attr.RQPSN)
		case !attr.IsGlobal && attr.DestLID == 0:
			return bad("no destination: want a LID, or a GID with is_global (RoCE)")
		case attr.IsGlobal && attr.SGIDIndex < 0:
			return bad("source GID index %d: must not be negative", attr.SGIDIndex)
		case attr.MaxDestRdAtomic < 0 || attr.MaxDestRdAtomic > 255:
			return bad("max_dest_rd_atomic %d: must be in [0, 255]", attr.MaxDestRdAtomic)
		case attr.MinRNRTimer > 31:
			return bad("min RNR timer %d: must be in [0, 31]", attr.MinRNRTimer)
		}
	case QPSRTS:
		switch {
		case attr.SQPSN > psnMask:
			return bad("send PSN %#x: must be 24 bits", attr.SQPSN)
		case attr.Timeout > 31:
			return bad("timeout %d: must be in [0, 31]", attr.Timeout)
		case attr.RetryCnt > 7:
			return bad("retry count %d: must be in [0, 7]", attr.RetryCnt)
		case attr.RNRRetry > 7:
			return bad("RNR retry %d: must be in [0, 7]", attr.RNRRetry)
		case attr.MaxRdAtomic < 0 || attr.MaxRdAtomic > 255:
			return bad("max_rd_atomic %d: must be in [0, 255]", attr.MaxRdAtomic)
		}
	}
	return nil
}

// InitAttr is RESET -> INIT on port with pkey index 0 and access, the
// peer's rights on our memory.
func InitAttr(port int, access Access) QPAttr {
	return QPAttr{State: QPSInit, Port: port, PKeyIndex: 0, Access: access}
}

// RTRAttr is INIT -> RTR towards the peer described by remote, over a
// path of mtu (the smaller of both ports' active MTUs). With global (RoCE,
// or sgid set), the GRH carries remote.GID and this port's GID table entry
// sgidIndex; else the LID routes. rdAtomic is how many RDMA reads the peer
// may have in flight against us.
func RTRAttr(remote Endpoint, mtu MTU, global bool, sgidIndex, rdAtomic int) QPAttr {
	a := QPAttr{
		State:           QPSRTR,
		PathMTU:         mtu,
		DestQPN:         remote.QPN,
		RQPSN:           remote.PSN,
		DestLID:         remote.LID,
		MaxDestRdAtomic: rdAtomic,
		MinRNRTimer:     DefaultMinRNRTimer,
	}
	if global {
		a.IsGlobal, a.DGID, a.SGIDIndex, a.HopLimit = true, remote.GID, sgidIndex, DefaultHopLimit
	}
	return a
}

// RTSAttr is RTR -> RTS with our starting send PSN psn and perftest's
// timeout and retry counts.
func RTSAttr(psn uint32, rdAtomic int) QPAttr {
	return QPAttr{
		State:       QPSRTS,
		SQPSN:       psn,
		Timeout:     DefaultTimeout,
		RetryCnt:    DefaultRetryCnt,
		RNRRetry:    DefaultRNRRetry,
		MaxRdAtomic: rdAtomic,
	}
}

// stateQP is a QP with the state this side moved it to, which refuses an
// illegal transition before the device sees it.
type stateQP struct {
	qp    QP
	state QPState
}

// move checks attr against the current state and modifies the QP.
func (q *stateQP) move(attr QPAttr) error {
	if err := CheckAttr(q.state, attr); err != nil {
		return fmt.Errorf("modify QP %#x: %w", q.qp.Num(), err)
	}
	if err := q.qp.Modify(attr); err != nil {
		return fmt.Errorf("modify QP %#x %s -> %s: %w", q.qp.Num(), q.state, attr.State, err)
	}
	q.state = attr.State
	return nil
}
