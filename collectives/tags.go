package collectives

// Tags. Every message a Comm sends carries a fabric tag:
//
//	bit 31      0: user point-to-point; 1: a collective call
//	bits 30–23  the communicator's id (0 for the one New made, see Sub)
//	bits 22–4   collective calls: the call's sequence number (wrapping)
//	bits 3–0    collective calls: the phase within the call
//
// Each collective call takes the Comm's next sequence number, and since
// every rank makes the same collective calls in the same order, all ranks
// agree on it without talking. Messages of consecutive collectives, of a
// collective and user traffic, or of two communicators sharing connections,
// therefore never match each other's Recvs, even when a fast rank runs
// ahead into later calls. Within a call, an algorithm made of several steps
// (a fold, a reduce-scatter, an allgather) gives each its own phase; within
// a phase, messages between two ranks are sent and received in the same
// order, which the Conn's per-tag ordering keeps.
//
// When the sequence number wraps, call k and call k+2^19 share tags. That
// is harmless even if a sender has run that far ahead: it sent call k's
// messages first, and Recv takes the oldest message with a tag.
const (
	tagColl      uint32 = 1 << 31
	tagIDShift          = 23
	tagIDBits           = 8
	tagPhaseBits        = 4
	tagSeqMask   uint32 = 1<<(tagIDShift-tagPhaseBits) - 1
	maxComms            = 1 << tagIDBits // communicator ids per set of connections
)

// Phases of multi-step algorithms.
const (
	phaseMain    uint32 = iota // the only phase of single-step algorithms
	phaseFold                  // non-power-of-two ranks hand their data in
	phaseScatter               // reduce-scatter, or bcast's scatter
	phaseGather                // allgather, or reduce's gather
	phaseUnfold                // results handed back to the folded ranks
)

// userTag returns the tag of this Comm's point-to-point messages.
func (c *Comm) userTag() uint32 { return c.id << tagIDShift }

// nextTag returns the base tag of the next collective call.
func (c *Comm) nextTag() uint32 {
	c.seq = (c.seq + 1) & tagSeqMask
	return tagColl | c.id<<tagIDShift | c.seq<<tagPhaseBits
}
