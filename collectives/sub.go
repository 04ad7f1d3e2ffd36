package collectives

import (
	"context"
	"fmt"
	"sync"
)

// Sub returns the communicator of this Comm's first n ranks, for running a
// benchmark on fewer ranks than the job has (IMB's -npmin). It is
// collective: every rank calls it with the same n, in the same order with
// respect to the other collective calls. Rank i keeps rank i; ranks n and
// above get a nil Comm and a nil error.
//
// The new Comm shares this one's connections and options but has its own
// tags (see Tags in the package documentation), so the two can be used in
// any interleaving, one goroutine at a time per rank (they share scratch
// buffers too). Close releases it without closing the connections or
// freeing the scratch buffers; a failed collective on either closes
// all of them, those to the ranks left out included, since the job is
// broken and ranks waiting in the parent must learn it. Sub agrees on a free
// communicator id with an Allreduce over this Comm; at most 256
// communicators may share connections at once.
func (c *Comm) Sub(ctx context.Context, n int) (*Comm, error) {
	if n < 1 || n > c.size {
		return nil, fmt.Errorf("collectives: sub-communicator of %d ranks out of range [1, %d]", n, c.size)
	}
	used := c.ids.snapshot()
	var all [maxComms]byte
	if err := c.Allreduce(ctx, used[:], all[:], Byte, Max); err != nil {
		return nil, fmt.Errorf("collectives: sub-communicator of %d ranks: agreeing on an id: %w", n, err)
	}
	id := -1
	for i, u := range all {
		if u == 0 {
			id = i
			break
		}
	}
	if id < 0 {
		return nil, fmt.Errorf("collectives: sub-communicator of %d ranks: all %d communicator ids are in use; Close unused ones", n, maxComms)
	}
	if c.rank >= n {
		return nil, nil
	}
	c.ids.claim(uint32(id))
	s := &Comm{
		rank: c.rank, size: n, conns: c.conns[:n], family: c.family, eager: c.eager[:n], shared: c.shared[:n],
		crowdedTo: c.crowdedTo[:n], crowded: allCrowded(c.rank, c.crowdedTo[:n]),
		id: uint32(id), ids: c.ids, sub: true, alloc: c.alloc, scratch: c.scratch,
	}
	if err := s.SetOptions(c.Options()); err != nil {
		return nil, err
	}
	return s, nil
}

// idSet is the set of communicator ids in use on one rank's connections.
type idSet struct {
	mu   sync.Mutex
	used [maxComms]byte // 1 if in use
}

// newIDSet returns a set holding id 0, the communicator New makes.
func newIDSet() *idSet {
	s := &idSet{}
	s.used[0] = 1
	return s
}

func (s *idSet) snapshot() [maxComms]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}

func (s *idSet) claim(id uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used[id] = 1
}

func (s *idSet) release(id uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used[id] = 0
}
