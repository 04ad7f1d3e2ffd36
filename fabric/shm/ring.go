//go:build linux

package shm

import "encoding/binary"

// Record kinds (see the package doc).
const (
	kindEager = 1
	kindPipe  = 2
	kindRndv  = 3
)

// Record sizes: every record starts on a recAlign boundary with a hdrSize
// header; a rendezvous record is exactly one recAlign unit.
const (
	recAlign = cacheLine
	hdrSize  = 16
	rndvSize = recAlign
)

// recSize is the ring space taken by an eager or pipe record of n payload
// bytes (which for a pipe record may exceed the ring).
func recSize(n int) int { return (hdrSize + n + recAlign - 1) &^ (recAlign - 1) }

// recLen is recSize for a record that fits in the ring.
func recLen(n int) uint32 { return uint32(recSize(n)) }

// record is a decoded record header.
type record struct {
	kind uint32
	tag  uint32
	size uint64 // payload bytes (eager, pipe) or message bytes (rndv)
	addr uint64 // rndv: the sender's virtual address of the message
	seq  uint32 // rndv: the sender's sequence number
}

// producer is the writing end of one ring. Only one goroutine uses it at a
// time (the Send path); head is the private copy of the published index.
type producer struct {
	ctl  *ringCtl
	data []byte
	mask uint32
	head uint32 // bytes published (== ctl.head)
	tail uint32 // the consumer's tail, as last read
}

func newProducer(ctl *ringCtl, data []byte) producer {
	return producer{ctl: ctl, data: data, mask: uint32(len(data) - 1), head: ctl.head.v.Load(), tail: ctl.tail.v.Load()}
}

// room reports whether n more bytes fit, re-reading the consumer's tail only
// when the cached one says they do not.
func (p *producer) room(n uint32) bool {
	size := uint32(len(p.data))
	if size-(p.head-p.tail) >= n {
		return true
	}
	p.tail = p.ctl.tail.v.Load()
	return size-(p.head-p.tail) >= n
}

// put copies b into the ring off bytes past head, wrapping at the end. The
// caller has checked room.
func (p *producer) put(off uint32, b []byte) {
	pos := (p.head + off) & p.mask
	if n := copy(p.data[pos:], b); n < len(b) {
		copy(p.data, b[n:])
	}
}

// putRecord writes r's header at head. Headers start on recAlign boundaries
// and the ring size is a multiple of recAlign, so a header never wraps.
func (p *producer) putRecord(r record) {
	h := p.data[p.head&p.mask:]
	binary.LittleEndian.PutUint32(h[0:], r.kind)
	binary.LittleEndian.PutUint32(h[4:], r.tag)
	binary.LittleEndian.PutUint64(h[8:], r.size)
	if r.kind == kindRndv {
		binary.LittleEndian.PutUint64(h[16:], r.addr)
		binary.LittleEndian.PutUint32(h[24:], r.seq)
	}
}

// publish makes n more bytes visible to the consumer. The atomic store
// orders every earlier put before the consumer's loads (see the package
// doc).
func (p *producer) publish(n uint32) {
	p.head += n
	p.ctl.head.v.Store(p.head)
}

// consumer is the reading end of one ring, used by one goroutine at a time
// (the Recv path); tail is the private copy of the consumed index.
type consumer struct {
	ctl  *ringCtl
	data []byte
	mask uint32
	tail uint32 // bytes consumed (== ctl.tail)
	head uint32 // the producer's head, as last read
}

func newConsumer(ctl *ringCtl, data []byte) consumer {
	return consumer{ctl: ctl, data: data, mask: uint32(len(data) - 1), tail: ctl.tail.v.Load(), head: ctl.head.v.Load()}
}

// has reports whether at least n bytes are published past tail, re-reading
// the producer's head only when the cached one says they are not.
func (c *consumer) has(n uint32) bool {
	if c.head-c.tail >= n {
		return true
	}
	c.head = c.ctl.head.v.Load()
	return c.head-c.tail >= n
}

// avail is the number of published bytes past tail, as of the last has.
func (c *consumer) avail() uint32 { return c.head - c.tail }

// get copies len(b) bytes from off bytes past tail into b, wrapping at the
// end. The caller has checked has.
func (c *consumer) get(off uint32, b []byte) {
	pos := (c.tail + off) & c.mask
	if n := copy(b, c.data[pos:]); n < len(b) {
		copy(b[n:], c.data)
	}
}

// record decodes the header at tail; the caller has checked has(hdrSize)
// (has(rndvSize) for a rendezvous record, which is published whole).
func (c *consumer) record() record {
	h := c.data[c.tail&c.mask:]
	r := record{
		kind: binary.LittleEndian.Uint32(h[0:]),
		tag:  binary.LittleEndian.Uint32(h[4:]),
		size: binary.LittleEndian.Uint64(h[8:]),
	}
	if r.kind == kindRndv {
		r.addr = binary.LittleEndian.Uint64(h[16:])
		r.seq = binary.LittleEndian.Uint32(h[24:])
	}
	return r
}

// release hands n bytes past tail back to the producer.
func (c *consumer) release(n uint32) {
	c.tail += n
	c.ctl.tail.v.Store(c.tail)
}
