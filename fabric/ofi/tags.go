package ofi

// Tags. Every message on the endpoint carries a 64-bit tag:
//
//	bit 63      0: a Conn's message; 1: a control message
//	bit 61      the body of a long message
//	bits 60–32  the id of the Conn (or, for a hello, the Listener) it is for
//	bits 31–0   a Conn's message: its fabric tag; control: its kind
//
// The provider matches a Recv to the oldest message with its exact tag, so a
// Conn's receives see only their own messages, in order per tag. Every
// message carries CQ data. A message the provider injects whole is one
// message, its CQ data its length; a longer one is a header and a body: the header
// has the message's tag, no bytes and the body's length (with longBit) as
// CQ data, and the body follows with bodyBit set. A Recv takes the next
// message of its tag; when that is a header, it then takes the body into
// a buffer of the body's length. So no receive is ever posted shorter than
// a long message (libfabric 1.17's shm spins for ever on such a
// truncation), and no receive needs an ignore mask (shm 1.17 does not
// match unexpected messages against one).
const (
	ctlBit      = uint64(1) << 63
	longBit     = uint64(1) << 63 // in a header's CQ data
	bodyBit     = uint64(1) << 61
	idShift     = 32
	idMask      = uint64(1)<<29 - 1
	lowMask     = uint64(1)<<32 - 1
	ctlIgnore   = ctlBit - 1 // a control receive takes any control message
	drainIgnore = lowMask    // a drain takes any message of its Conn
)

// dataTag is the tag of a message with tag for the Conn id.
func dataTag(id uint32, tag uint32) uint64 { return uint64(id)<<idShift | uint64(tag) }

// ctlTag is the tag of a control message of kind for the Conn or
// Listener id.
func ctlTag(id uint32, kind uint32) uint64 { return ctlBit | uint64(id)<<idShift | uint64(kind) }

// splitTag returns a tag's id and low half.
func splitTag(t uint64) (id uint32, low uint32) {
	return uint32(t >> idShift & idMask), uint32(t & lowMask)
}
