package verbs

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/fabric"
)

// An RMA key names an exposed region, 24 bytes little-endian:
//
//	offset 0   "HPVK"  magic
//	offset 4   uint32  rkey
//	offset 8   uint64  address
//	offset 16  uint64  length
const (
	keyMagic = "HPVK"
	// KeyLen is the size of a key Expose returns.
	KeyLen = 24
	// MaxRMASize is the largest single Write or Read: a work request's
	// length is 32 bits and devices take up to 2 GiB.
	MaxRMASize = 1 << 31
)

// ErrKey means an RMA key is not one Expose made.
var ErrKey = errors.New("malformed RMA key")

// rmaKey is a decoded key.
type rmaKey struct {
	rkey uint32
	addr uint64
	len  uint64
}

// appendKey appends k's encoding to b.
func appendKey(b []byte, k rmaKey) []byte {
	b = append(b, keyMagic...)
	b = binary.LittleEndian.AppendUint32(b, k.rkey)
	b = binary.LittleEndian.AppendUint64(b, k.addr)
	return binary.LittleEndian.AppendUint64(b, k.len)
}

// parseKey decodes a key.
func parseKey(b []byte) (rmaKey, error) {
	if len(b) != KeyLen || string(b[:4]) != keyMagic {
		return rmaKey{}, fmt.Errorf("%w: %d bytes starting %q; want %d starting %q", ErrKey, len(b), b[:min(4, len(b))], KeyLen, keyMagic)
	}
	k := rmaKey{
		rkey: binary.LittleEndian.Uint32(b[4:]),
		addr: binary.LittleEndian.Uint64(b[8:]),
		len:  binary.LittleEndian.Uint64(b[16:]),
	}
	if k.addr+k.len < k.addr {
		return rmaKey{}, fmt.Errorf("%w: region [%#x, +%d) wraps around the address space", ErrKey, k.addr, k.len)
	}
	return k, nil
}

// rmaState is the one RMA work request in flight.
type rmaState struct {
	seq     uint64
	pending bool
	op      string // "RDMA write to rank 1", for a failed completion
}

// Expose registers b for the peer's RDMA writes and reads and returns its
// key: the region's address, rkey and length. b must not be empty; it
// must stay valid until release (the cgo binding pins it meanwhile).
// Close releases what is still exposed.
func (c *conn) Expose(b []byte) ([]byte, func() error, error) {
	if len(b) == 0 {
		return nil, nil, fmt.Errorf("verbs: expose to rank %d: an empty buffer has nothing to expose", c.peer)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.closedErr(fmt.Sprintf("expose to rank %d", c.peer), false); err != nil {
		return nil, nil, err
	}
	mr, err := c.ep.pd.RegMR(b, AccessLocalWrite|AccessRemoteWrite|AccessRemoteRead)
	if err != nil {
		return nil, nil, fmt.Errorf("verbs: expose %d bytes to rank %d: %w", len(b), c.peer, err)
	}
	c.exposed[mr] = struct{}{}
	release := func() error {
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, ok := c.exposed[mr]; !ok {
			return nil // released already, or by Close
		}
		delete(c.exposed, mr)
		if err := mr.Close(); err != nil {
			return fmt.Errorf("verbs: release region exposed to rank %d: %w", c.peer, err)
		}
		return nil
	}
	return appendKey(nil, rmaKey{rkey: mr.RKey(), addr: mr.Addr(), len: uint64(len(b))}), release, nil
}

// Write copies b into the peer's region key names, at off (RDMA write).
func (c *conn) Write(ctx context.Context, key []byte, off int, b []byte) error {
	return c.rdma(ctx, WRRDMAWrite, key, off, b)
}

// Read copies len(b) bytes of the peer's region key names, at off, into b
// (RDMA read).
func (c *conn) Read(ctx context.Context, key []byte, off int, b []byte) error {
	return c.rdma(ctx, WRRDMARead, key, off, b)
}

// rdma checks off and b against the key's region, registers b for the
// call and posts one RDMA work request. Once posted, it waits for the
// completion whatever ctx does: the adapter may be using b, and a healthy
// RC link completes in microseconds (a dead one fails after the retry
// timeout). A failed completion is a *WCError, and leaves the connection
// unusable, as RC does.
func (c *conn) rdma(ctx context.Context, opc WROpcode, key []byte, off int, b []byte) error {
	c.amu.Lock()
	defer c.amu.Unlock()
	dir := "to"
	if opc == WRRDMARead {
		dir = "from"
	}
	op := fmt.Sprintf("%s %s rank %d", opc, dir, c.peer)
	k, err := parseKey(key)
	if err != nil {
		return fmt.Errorf("verbs: %s: %w", op, err)
	}
	if off < 0 || uint64(off) > k.len || uint64(len(b)) > k.len-uint64(off) {
		return fmt.Errorf("verbs: %s: %d bytes at offset %d: outside the peer's %d-byte region", op, len(b), off, k.len)
	}
	if len(b) > MaxRMASize {
		return fmt.Errorf("verbs: %s: %d bytes: more than MaxRMASize (%d) in one call", op, len(b), MaxRMASize)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("verbs: %s: %w", op, err)
	}
	c.mu.Lock()
	if err := c.closedErr(op, c.peerGone.Load()); err != nil {
		c.mu.Unlock()
		return err
	}
	if len(b) == 0 {
		c.mu.Unlock()
		return nil
	}
	mr, err := c.ep.pd.RegMR(b, AccessLocalWrite)
	if err != nil {
		c.mu.Unlock()
		return fmt.Errorf("verbs: %s: registering the local buffer: %w", op, err)
	}
	c.rma.seq++
	c.rma.pending, c.rma.op = true, op
	wr := SendWR{
		WRID: wrID(wrRMA, c.rma.seq), Opcode: opc, Flags: SendSignaled,
		SGE:        SGE{Addr: mr.Addr(), Len: uint32(len(b)), LKey: mr.LKey()},
		RemoteAddr: k.addr + uint64(off), RKey: k.rkey,
	}
	if err := c.ep.qp.qp.PostSend(wr); err != nil {
		c.rma.pending = false
		_ = mr.Close()
		c.mu.Unlock()
		return fmt.Errorf("verbs: %s: %w", op, err)
	}
	c.mu.Unlock()

	err = c.wait(context.Background(), func() (bool, error) {
		c.progress()
		if !c.rma.pending {
			return true, nil
		}
		if c.closed.Load() || c.broken != nil {
			return false, c.closedErr(op, false)
		}
		return false, nil
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rma.op = ""
	if cerr := mr.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("verbs: %s: deregistering the local buffer: %w", op, cerr)
	}
	if err != nil {
		return err
	}
	var wce *WCError
	if errors.As(c.broken, &wce) && wce.WRID == wr.WRID {
		return fmt.Errorf("verbs: %w", c.broken)
	}
	if c.broken != nil {
		return fmt.Errorf("verbs: %s: %w: %w", op, fabric.ErrClosed, c.broken)
	}
	return nil
}
