//go:build linux

package shm

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// cacheLine is the unit of false-sharing avoidance: every control word that
// one side writes while the other polls sits alone in a line of this size.
const cacheLine = 64

// The mapping starts with one page of control words (a header) and then the
// two rings, rings[0] written by the dialer (side 0) and rings[1] by the
// listener (side 1).
const (
	headerSize = 4096
	magic      = 0x316d68732d637068 // "hpc-shm1", little-endian
	version    = 4
)

// Sides of a pair, also the index of the ring a side writes.
const (
	sideDialer   = 0
	sideListener = 1
)

// Doorbells of a side: one for a waiting Send, one for a waiting Recv.
const (
	bellSend = 0
	bellRecv = 1
)

// word is an atomic uint32 alone in its cache line.
type word struct {
	v atomic.Uint32
	_ [cacheLine - 4]byte
}

// bell is what a waiter sleeps on (see the package doc): seq changes on every
// ring, sleepers counts the waiters that may be asleep, and wake is 1 while
// the one asleep sleeps on its process's wake-up eventfd instead of in
// futex_wait on seq (it is set before sleepers is incremented and cleared
// after it is decremented).
type bell struct {
	seq      atomic.Uint32
	sleepers atomic.Uint32
	wake     atomic.Uint32
	_        [cacheLine - 12]byte
}

// rndvParams are what a receiver publishes when it claims a rendezvous
// message: where to put it and which range of chunk numbers it takes.
type rndvParams struct {
	dst  atomic.Uint64 // receiver's virtual address
	size atomic.Uint64 // bytes to move: min(message, receiver's buffer)
	base atomic.Uint32 // first chunk number
	end  atomic.Uint32 // one past the last chunk number
	_    [cacheLine - 24]byte
}

// ringCtl holds one direction's control words.
type ringCtl struct {
	head   word       // bytes published; written by the producer
	tail   word       // bytes consumed; written by the consumer
	state  word       // rendezvous state (see rndv.go)
	params rndvParams // rendezvous destination; written by the consumer
	next   word       // next chunk number to take; both sides
	done   word       // chunks finished; both sides
	abort  word       // non-zero once the producer abandoned a message half way
}

// header is the first page of the mapping. The plain fields are written by
// the dialer before it passes the descriptor and never change.
type header struct {
	magic    uint64
	version  uint32
	ringSize uint32
	cmaChunk uint32
	crowded  uint32 // 1: many more ranks than CPUs on the host (see crowdedFactor)
	_        [cacheLine - 24]byte

	closed word    // bit 1<<side set when that side closes its Conn
	cpu    [2]word // the CPU each side's last long wait ran on (see waiter)
	bells  [2][2]bell
	rings  [2]ringCtl
}

// Compile-time checks: the control words fit in the header page and keep
// their cache-line layout.
var (
	_ [headerSize - unsafe.Sizeof(header{})]byte
	_ [0]byte = [unsafe.Sizeof(ringCtl{}) % cacheLine]byte{}
	_ [0]byte = [unsafe.Sizeof(header{}) % cacheLine]byte{}
)

// mapSize is the length of a mapping with rings of ringSize bytes.
func mapSize(ringSize int) int { return headerSize + 2*ringSize }

// layout gives typed access to a mapping.
type layout struct {
	mem []byte
	hdr *header
}

// newLayout checks mem's header against its length and returns the view.
func newLayout(mem []byte) (layout, error) {
	if len(mem) < headerSize {
		return layout{}, fmt.Errorf("shared memory of %d bytes: shorter than the %d-byte header", len(mem), headerSize)
	}
	h := (*header)(unsafe.Pointer(&mem[0]))
	rs := int(h.ringSize)
	switch {
	case h.magic != magic || h.version != version:
		return layout{}, fmt.Errorf("shared memory header: magic %#x version %d, want %#x version %d", h.magic, h.version, uint64(magic), version)
	case rs < minRingSize || rs > maxRingSize || rs&(rs-1) != 0:
		return layout{}, fmt.Errorf("shared memory header: ring size %d is not a power of two from %d to %d", rs, minRingSize, maxRingSize)
	case len(mem) != mapSize(rs):
		return layout{}, fmt.Errorf("shared memory of %d bytes: rings of %d bytes need %d", len(mem), rs, mapSize(rs))
	case h.cmaChunk < minChunk || h.cmaChunk > maxRingSize:
		return layout{}, fmt.Errorf("shared memory header: CMA chunk %d out of range", h.cmaChunk)
	}
	return layout{mem: mem, hdr: h}, nil
}

// initHeader writes a fresh header into mem, which must be zeroed and
// mapSize(ringSize) long.
func initHeader(mem []byte, ringSize, cmaChunk int, crowded bool) {
	h := (*header)(unsafe.Pointer(&mem[0]))
	h.magic = magic
	h.version = version
	h.ringSize = uint32(ringSize)
	h.cmaChunk = uint32(cmaChunk)
	if crowded {
		h.crowded = 1
	}
	h.cpu[0].v.Store(noCPU)
	h.cpu[1].v.Store(noCPU)
}

// ringData returns the data area of the ring that side writes.
func (l layout) ringData(side int) []byte {
	rs := int(l.hdr.ringSize)
	off := headerSize + side*rs
	return l.mem[off : off+rs : off+rs]
}
