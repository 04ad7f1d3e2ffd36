package shm

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// Defaults for Options, chosen by measurement with this package's
// benchmarks on a 2-vCPU EPYC VM (see DefaultCMAThreshold).
const (
	// DefaultRingSize is the bytes of each direction's ring: rings of
	// 512 KiB and up stream at full speed, 256 KiB and less lose a
	// quarter to a third.
	DefaultRingSize = 1 << 20
	// DefaultRingBudget is the ring memory one rank's pairs may take
	// together if it connected to every other rank of its host (see
	// Options.RingBudget): 4 MiB keeps DefaultRingSize up to 5 ranks on
	// a host and reaches the 64 KiB floor at 64.
	DefaultRingBudget = 4 << 20
	// DefaultEagerLimit is the largest message copied whole into the ring;
	// between 4 and 64 KiB it made no measurable difference.
	DefaultEagerLimit = 16 << 10
	// DefaultCMAThreshold is 0: cross-memory attach is off by default.
	// On the machine measured, process_vm_readv between processes copied at
	// 5-13 GB/s (it pins the other process's pages one 4 KiB page at a
	// time), while the ring, with the sender copying in and the receiver
	// copying out at the same time through a cache-resident ring, moved
	// 1-4 MiB at 15-30 GB/s, also with four processes on two cores.
	DefaultCMAThreshold = 0
	// DefaultPipeChunk is how much a pipelined message publishes at a
	// time; 8 KiB to 128 KiB measured alike.
	DefaultPipeChunk = 32 << 10
	// DefaultCMAChunk is the unit of work of a cross-memory copy.
	DefaultCMAChunk = 256 << 10
	// DefaultSpin is the longest a waiter spins before it yields.
	DefaultSpin = 20 * time.Microsecond
	// DefaultYield is how long a waiter yields before it sleeps.
	DefaultYield = 200 * time.Microsecond
	// DefaultArenaSize is the address space reserved for the arena that
	// Transport.Alloc hands buffers out of; the kernel only allocates the
	// pages that are touched.
	DefaultArenaSize = 16 << 30
	// DefaultArenaThreshold is the smallest message sent from an arena
	// buffer by a single copy (see Options.ArenaThreshold).
	DefaultArenaThreshold = 64 << 10
	// DefaultHandshakeTimeout bounds one connection's set-up.
	DefaultHandshakeTimeout = 30 * time.Second
)

// Limits checked by Options.Validate.
const (
	minRingSize = 64 << 10
	maxRingSize = 1 << 30
	minChunk    = 4 << 10

	maxArenaSize = 1 << 46
)

// Options configures a Transport. Start from DefaultOptions. The pair's
// geometry (RingSize, CMAChunk) is the dialer's; the other fields are each
// side's own.
type Options struct {
	// RingSize is the size in bytes of each direction's ring, a power of two
	// from 64 KiB to 1 GiB. Each pair maps 2×RingSize plus a page.
	RingSize int `json:"ringBytes"`
	// RingBudget, if not 0, shrinks the rings of a pair dialed with a
	// fabric.Hint of more than two local ranks: they take the largest
	// power of two no more than RingBudget/(LocalRanks-1), from 64 KiB up
	// to RingSize, so that a rank connected to every other rank of its
	// host maps about RingBudget of rings. 0: always RingSize.
	RingBudget int `json:"ringBudgetBytes"`
	// EagerLimit is the largest message copied whole into the ring; at most
	// RingSize/4 (and a quarter of a smaller ring the dialer chose).
	EagerLimit int `json:"eagerLimitBytes"`
	// CMAThreshold, if not 0, is the smallest message this side sends by
	// cross-memory attach (process_vm_readv by the receiver, helped by
	// process_vm_writev from the sender): one copy instead of two. Larger
	// messages below it, and all of them when it is 0 or when the kernel
	// refuses cross-memory attach between the two processes, are
	// pipelined through the ring. 0 or above EagerLimit.
	CMAThreshold int `json:"cmaThresholdBytes"`
	// SenderHelps lets a sender that is waiting for its rendezvous message
	// copy part of it into the receiver's buffer (process_vm_writev) while
	// the receiver reads the rest.
	SenderHelps bool `json:"senderHelps"`
	// PipeChunk is how many bytes a pipelined message publishes at a time,
	// from 4 KiB to RingSize/2 (and at most half a smaller ring the dialer
	// chose).
	PipeChunk int `json:"pipeChunkBytes"`
	// CMAChunk is the unit of work of a cross-memory copy, at least 4 KiB.
	CMAChunk int `json:"cmaChunkBytes"`
	// Spin is the longest a waiter re-reads shared memory before it
	// yields; past 1 µs it spins on only if the peer last ran on another
	// CPU (see the package doc).
	Spin time.Duration `json:"spinNs"`
	// Yield is how long a waiter then yields the processor before it
	// sleeps in the kernel.
	Yield time.Duration `json:"yieldNs"`
	// ArenaSize is the bytes of the arena that Alloc hands buffers out of
	// (a multiple of 4 KiB, at most 64 TiB; 0: no arena, Alloc uses the
	// heap). Every peer maps it, so that a message sent from an arena
	// buffer moves with one copy made by ordinary loads and stores: the
	// receiver reads it straight from the sender's buffer and, when its own
	// buffer is in its arena too and SenderHelps is set, the sender writes
	// part of it. Only touched pages use memory.
	ArenaSize int `json:"arenaBytes"`
	// ArenaThreshold is the smallest message sent from an arena buffer by
	// that single copy; smaller ones go through the ring. Above
	// EagerLimit.
	ArenaThreshold int `json:"arenaThresholdBytes"`
	// HandshakeTimeout bounds the set-up of one connection, on top of the
	// context passed to Dial or Accept.
	HandshakeTimeout time.Duration `json:"handshakeTimeoutNs"`
	// Logf, if not nil, receives notes about degraded operation (such as
	// cross-memory attach being refused), each kind at most once per
	// Transport.
	Logf func(format string, args ...any) `json:"-"`
}

// DefaultOptions returns the default configuration.
func DefaultOptions() Options {
	return Options{
		RingSize:         DefaultRingSize,
		RingBudget:       DefaultRingBudget,
		EagerLimit:       DefaultEagerLimit,
		CMAThreshold:     DefaultCMAThreshold,
		SenderHelps:      true,
		PipeChunk:        DefaultPipeChunk,
		CMAChunk:         DefaultCMAChunk,
		Spin:             DefaultSpin,
		Yield:            DefaultYield,
		ArenaSize:        DefaultArenaSize,
		ArenaThreshold:   DefaultArenaThreshold,
		HandshakeTimeout: DefaultHandshakeTimeout,
	}
}

// Validate reports the first option that is out of range.
func (o Options) Validate() error {
	switch {
	case o.RingSize < minRingSize || o.RingSize > maxRingSize || o.RingSize&(o.RingSize-1) != 0:
		return fmt.Errorf("shm: options: ring size %d: must be a power of two from %d to %d", o.RingSize, minRingSize, maxRingSize)
	case o.RingBudget < 0:
		return fmt.Errorf("shm: options: ring budget %d: must not be negative", o.RingBudget)
	case o.EagerLimit < 0 || o.EagerLimit > o.RingSize/4:
		return fmt.Errorf("shm: options: eager limit %d: must be from 0 to a quarter of the ring (%d)", o.EagerLimit, o.RingSize/4)
	case o.CMAThreshold != 0 && o.CMAThreshold <= o.EagerLimit:
		return fmt.Errorf("shm: options: CMA threshold %d: must be 0 (off) or above the eager limit %d", o.CMAThreshold, o.EagerLimit)
	case o.PipeChunk < minChunk || o.PipeChunk > o.RingSize/2:
		return fmt.Errorf("shm: options: pipe chunk %d: must be from %d to half the ring (%d)", o.PipeChunk, minChunk, o.RingSize/2)
	case o.CMAChunk < minChunk || o.CMAChunk > maxRingSize:
		return fmt.Errorf("shm: options: CMA chunk %d: must be from %d to %d", o.CMAChunk, minChunk, maxRingSize)
	case o.Spin < 0 || o.Yield < 0:
		return fmt.Errorf("shm: options: spin %v and yield %v: must not be negative", o.Spin, o.Yield)
	case o.ArenaSize < 0 || o.ArenaSize > maxArenaSize || o.ArenaSize%arenaAlign != 0:
		return fmt.Errorf("shm: options: arena size %d: must be a multiple of %d from 0 to %d", o.ArenaSize, arenaAlign, maxArenaSize)
	case o.ArenaThreshold <= o.EagerLimit:
		return fmt.Errorf("shm: options: arena threshold %d: must be above the eager limit %d", o.ArenaThreshold, o.EagerLimit)
	case o.HandshakeTimeout <= 0:
		return fmt.Errorf("shm: options: handshake timeout %v: must be positive", o.HandshakeTimeout)
	}
	return nil
}

// ringFor returns the ring size a pair dialed with h gets: RingSize, or
// less when RingBudget shares memory among many local ranks.
func (o Options) ringFor(h fabric.Hint) int {
	if o.RingBudget == 0 || h.LocalRanks <= 2 {
		return o.RingSize
	}
	per := o.RingBudget / (h.LocalRanks - 1)
	if per < minRingSize {
		return minRingSize
	}
	return min(1<<(bits.Len(uint(per))-1), o.RingSize)
}

// forRing returns the options this side uses on a pair whose rings are
// ringSize bytes (the dialer's choice): the eager limit and the pipe chunk
// shrink to fit a smaller ring than RingSize.
func (o Options) forRing(ringSize int) Options {
	o.EagerLimit = min(o.EagerLimit, ringSize/4)
	o.PipeChunk = min(o.PipeChunk, ringSize/2)
	return o
}
