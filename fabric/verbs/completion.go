package verbs

import "fmt"

// A work request's wr_id says what it was: the kind in the top byte, and
// the slot (sends and receives) or the sequence number (RMA) below.
const (
	wrKindShift = 56
	wrRecv      = 1
	wrSend      = 2
	wrRMA       = 3
	wrIndexMask = 1<<wrKindShift - 1
)

// wrID returns the wr_id of a work request of kind with index i.
func wrID(kind uint8, i uint64) uint64 { return uint64(kind)<<wrKindShift | i&wrIndexMask }

// splitWRID returns a wr_id's kind and index.
func splitWRID(id uint64) (uint8, uint64) { return uint8(id >> wrKindShift), id & wrIndexMask }

// describeWR names the work request id was, for a failed completion:
// "send to rank 1", "receive from rank 1", or rma (the RMA call's own
// words, "RDMA write to rank 1").
func describeWR(id uint64, peer int, rma string) string {
	kind, _ := splitWRID(id)
	switch kind {
	case wrRecv:
		return fmt.Sprintf("receive from rank %d", peer)
	case wrSend:
		return fmt.Sprintf("send to rank %d", peer)
	case wrRMA:
		if rma != "" {
			return rma
		}
		return fmt.Sprintf("RMA to rank %d", peer)
	}
	return fmt.Sprintf("unknown work request to rank %d", peer)
}
