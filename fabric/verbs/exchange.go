package verbs

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Endpoint is what one side of a connection tells the other over the TCP
// side channel before the queue pairs connect (perftest's exchange: LID,
// QPN, PSN, GID, and for RDMA the region's rkey, address and length), plus
// the sender's rank and its receive ring's geometry, which the peer's
// credits count in.
type Endpoint struct {
	Rank int
	LID  uint16 // the port's LID (0 on RoCE)
	QPN  uint32 // 24-bit QP number
	PSN  uint32 // 24-bit starting send PSN
	GID  GID    // the port's GID chosen for the connection (zero on IB without GRH)
	MTU  MTU    // the port's active MTU
	// Global is set when the sender routes by GID (RoCE): the peer must
	// then use a GRH too.
	Global bool
	// Slots and SlotSize are the sender's receive ring: how many receives
	// it keeps posted and how large each is.
	Slots    uint32
	SlotSize uint32
	// RKey, Addr and Len describe the sender's receive ring's memory
	// region. The slot protocol does not write into it remotely; it is
	// there for diagnostics and for a later zero-copy rendezvous.
	RKey uint32
	Addr uint64
	Len  uint64
}

// The endpoint record, 72 bytes little-endian:
//
//	offset  0  "HPVE"        magic
//	offset  4  uint16        EndpointVersion
//	offset  6  uint8         MTU (ibv_mtu: 1..5)
//	offset  7  uint8         flags: bit 0 Global; the others zero
//	offset  8  uint32        rank
//	offset 12  uint16        LID
//	offset 14  uint16        zero
//	offset 16  uint32        QPN (24 bits)
//	offset 20  uint32        PSN (24 bits)
//	offset 24  [16]byte      GID
//	offset 40  uint32        slots
//	offset 44  uint32        slot size
//	offset 48  uint32        rkey
//	offset 52  uint32        zero
//	offset 56  uint64        addr
//	offset 64  uint64        len
const (
	endpointMagic = "HPVE"
	// EndpointLen is the size of an encoded Endpoint.
	EndpointLen = 72
	// EndpointVersion is the record's version; peers of another version
	// are refused, naming both.
	EndpointVersion = 1

	flagGlobal = 1
)

// Limits a parsed record must keep: a ring's geometry is what both sides
// allocate, so a corrupt record must not ask for gigabytes.
const (
	MinSlots    = 4
	MaxSlots    = 1 << 14
	MinSlotSize = 64
	MaxSlotSize = 1 << 24
)

// ErrEndpoint means a side channel record is not a valid endpoint record.
var ErrEndpoint = errors.New("malformed endpoint record")

// ErrEndpointVersion means the peer speaks another EndpointVersion.
var ErrEndpointVersion = errors.New("endpoint record version mismatch")

// AppendEndpoint appends e's record to b.
func AppendEndpoint(b []byte, e Endpoint) []byte {
	b = append(b, endpointMagic...)
	b = binary.LittleEndian.AppendUint16(b, EndpointVersion)
	var flags byte
	if e.Global {
		flags |= flagGlobal
	}
	b = append(b, byte(e.MTU), flags)
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Rank))
	b = binary.LittleEndian.AppendUint16(b, e.LID)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint32(b, e.QPN)
	b = binary.LittleEndian.AppendUint32(b, e.PSN)
	b = append(b, e.GID[:]...)
	b = binary.LittleEndian.AppendUint32(b, e.Slots)
	b = binary.LittleEndian.AppendUint32(b, e.SlotSize)
	b = binary.LittleEndian.AppendUint32(b, e.RKey)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint64(b, e.Addr)
	return binary.LittleEndian.AppendUint64(b, e.Len)
}

// Validate reports the first field of e out of range: what ParseEndpoint
// refuses.
func (e Endpoint) Validate() error {
	switch {
	case e.Rank < 0 || uint64(e.Rank) > 1<<31-1:
		return fmt.Errorf("%w: rank %d: must be in [0, %d]", ErrEndpoint, e.Rank, 1<<31-1)
	case !e.MTU.Valid():
		return fmt.Errorf("%w: MTU %d: must be an ibv_mtu value, 1 (256) to 5 (4096)", ErrEndpoint, e.MTU)
	case e.QPN == 0 || e.QPN > psnMask:
		return fmt.Errorf("%w: QP number %#x: must be in [1, 0xffffff]", ErrEndpoint, e.QPN)
	case e.PSN > psnMask:
		return fmt.Errorf("%w: PSN %#x: must be 24 bits", ErrEndpoint, e.PSN)
	case !e.Global && e.LID == 0:
		return fmt.Errorf("%w: LID 0 without a GID: the peer has no address", ErrEndpoint)
	case e.Global && e.GID == (GID{}):
		return fmt.Errorf("%w: global routing with a zero GID", ErrEndpoint)
	case e.Slots < MinSlots || e.Slots > MaxSlots:
		return fmt.Errorf("%w: %d receive slots: must be in [%d, %d]", ErrEndpoint, e.Slots, MinSlots, MaxSlots)
	case e.SlotSize < MinSlotSize || e.SlotSize > MaxSlotSize:
		return fmt.Errorf("%w: slot size %d: must be in [%d, %d]", ErrEndpoint, e.SlotSize, MinSlotSize, MaxSlotSize)
	case e.Len != 0 && e.Addr+e.Len < e.Addr:
		return fmt.Errorf("%w: region [%#x, +%d) wraps around the address space", ErrEndpoint, e.Addr, e.Len)
	}
	return nil
}

// ParseEndpoint decodes a record. It refuses anything but exactly
// EndpointLen bytes with the magic, the version, zero reserved bits and
// fields in range (ErrEndpoint), and another version (ErrEndpointVersion,
// naming both).
func ParseEndpoint(b []byte) (Endpoint, error) {
	if len(b) != EndpointLen {
		return Endpoint{}, fmt.Errorf("%w: %d bytes, want %d", ErrEndpoint, len(b), EndpointLen)
	}
	if string(b[:4]) != endpointMagic {
		return Endpoint{}, fmt.Errorf("%w: magic %q, want %q (is the peer an hpcbench verbs endpoint?)", ErrEndpoint, b[:4], endpointMagic)
	}
	if v := binary.LittleEndian.Uint16(b[4:6]); v != EndpointVersion {
		return Endpoint{}, fmt.Errorf("%w: peer's version %d, this process's %d: run the same hpcbench build on every rank", ErrEndpointVersion, v, EndpointVersion)
	}
	flags := b[7]
	if flags&^flagGlobal != 0 {
		return Endpoint{}, fmt.Errorf("%w: unknown flags %#x", ErrEndpoint, flags)
	}
	if binary.LittleEndian.Uint16(b[14:16]) != 0 || binary.LittleEndian.Uint32(b[52:56]) != 0 {
		return Endpoint{}, fmt.Errorf("%w: reserved bytes are not zero", ErrEndpoint)
	}
	rank := binary.LittleEndian.Uint32(b[8:12])
	if rank > 1<<31-1 {
		return Endpoint{}, fmt.Errorf("%w: rank %d: must be in [0, %d]", ErrEndpoint, rank, 1<<31-1)
	}
	e := Endpoint{
		Rank:     int(rank),
		MTU:      MTU(b[6]),
		Global:   flags&flagGlobal != 0,
		LID:      binary.LittleEndian.Uint16(b[12:14]),
		QPN:      binary.LittleEndian.Uint32(b[16:20]),
		PSN:      binary.LittleEndian.Uint32(b[20:24]),
		Slots:    binary.LittleEndian.Uint32(b[40:44]),
		SlotSize: binary.LittleEndian.Uint32(b[44:48]),
		RKey:     binary.LittleEndian.Uint32(b[48:52]),
		Addr:     binary.LittleEndian.Uint64(b[56:64]),
		Len:      binary.LittleEndian.Uint64(b[64:72]),
	}
	copy(e.GID[:], b[24:40])
	if err := e.Validate(); err != nil {
		return Endpoint{}, err
	}
	return e, nil
}
