package ucx

// Tags: every UCX tag message of this transport carries a 64-bit tag that
// names the endpoint it is for, so that one worker serves every Listener
// and Conn of a process and a Recv matches only its own peer's messages:
//
//	bit 63      0 for a message of the Conn's user, 1 for the transport's own
//	bits 62-32  the receiving endpoint's id (a Conn's or a Listener's)
//	bits 31-0   the message's fabric tag, or the kind of a control message
//
// Each side learns the other's id in the handshake (see handshake.go) and
// sends to it; receives use the full mask. UCX keeps messages of one
// endpoint and tag in order, which is MPI's non-overtaking rule and
// fabric.Conn's.
const (
	ctrlBit  = uint64(1) << 63
	fullMask = ^uint64(0)
	connMask = fullMask &^ (1<<32 - 1) // the direction bit and the endpoint id: any of a Conn's user tags
)

// Control message kinds.
const (
	kindHello  = 1 // dialer → listener: the dialer's rank, endpoint id and worker address
	kindAccept = 2 // acceptor → dialer: the acceptor's endpoint id
	kindBye    = 3 // either side, on Close
)

// userTag is the tag of a user message with tag for endpoint id.
func userTag(id uint32, tag uint32) uint64 { return uint64(id)<<32 | uint64(tag) }

// ctrlTag is the tag of a control message of kind for endpoint id.
func ctrlTag(id uint32, kind uint32) uint64 { return ctrlBit | uint64(id)<<32 | uint64(kind) }
