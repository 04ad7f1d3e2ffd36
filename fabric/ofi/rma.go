package ofi

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"runtime"
	"sync"
	"unsafe"
)

// An RMA key, as Expose returns it and the peer's Write and Read take it:
//
//	[0:8]   the memory region's key (fi_mr_key)
//	[8:16]  the region's address in the exposing process
//	[16:24] the region's length
//	[24:32] FNV-1a of the first 24 bytes
//
// Write and Read check the bounds and the checksum before posting, so a
// damaged or forged key moves nothing.
const rmaKeyLen = 32

type rmaKey struct {
	mr, base, length uint64
}

func (k rmaKey) encode() []byte {
	b := make([]byte, rmaKeyLen)
	binary.LittleEndian.PutUint64(b, k.mr)
	binary.LittleEndian.PutUint64(b[8:], k.base)
	binary.LittleEndian.PutUint64(b[16:], k.length)
	binary.LittleEndian.PutUint64(b[24:], keySum(b[:24]))
	return b
}

func keySum(b []byte) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64()
}

// parseKey reads a key a peer sent.
func parseKey(b []byte) (rmaKey, error) {
	if len(b) != rmaKeyLen {
		return rmaKey{}, fmt.Errorf("ofi: RMA key of %d bytes: want %d", len(b), rmaKeyLen)
	}
	if keySum(b[:24]) != binary.LittleEndian.Uint64(b[24:]) {
		return rmaKey{}, fmt.Errorf("ofi: RMA key %x: its checksum does not match", b)
	}
	return rmaKey{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])}, nil
}

// Expose registers b with the domain for the peer's fi_write and fi_read.
func (c *Conn) Expose(b []byte) ([]byte, func() error, error) {
	if err := c.stopErr(false); err != nil {
		return nil, nil, err
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	req := e.nextMR
	e.nextMR++
	return register(e.l, e.fnMRReg, e.domainID, b, req, &e.mu, func() bool { return e.closed })
}

// register registers b with domain (fi_mr_reg with the requested key req)
// for remote reads and writes and returns its RMA key and its release,
// which takes mu and does nothing once closed reports true (the domain is
// gone, and the region with it).
func register(l *lib, fnMRReg, domain uintptr, b []byte, req uint64, mu *sync.Mutex, closed func() bool) ([]byte, func() error, error) {
	var mr uintptr
	rc := call32(fnMRReg, domain, bufPtr(b), uintptr(len(b)), capRemoteRead|capRemoteWrite, 0, uintptr(req), 0,
		uintptr(unsafe.Pointer(&mr)), 0)
	if rc != 0 {
		return nil, nil, fmt.Errorf("ofi: expose %d bytes: %w", len(b), l.fail("fi_mr_reg", rc))
	}
	key := rmaKey{mr: uint64(word(mr, mrKey)), base: uint64(bufPtr(b)), length: uint64(len(b))}.encode()
	released := false
	release := func() error {
		mu.Lock()
		defer mu.Unlock()
		if released || closed() {
			return nil
		}
		released = true
		if rc := closeFid(mr); rc != 0 {
			return l.fail("fi_close(mr)", rc)
		}
		runtime.KeepAlive(b) // the region stays referenced until it is released
		return nil
	}
	return key, release, nil
}

// target checks an RMA transfer of n bytes at off against the peer's key
// and returns the remote address and key to post it with (the region's
// address added when the domain's memory regions use virtual addresses).
func target(what string, key []byte, off, n int, mrMode uint32) (addr, mrKey uint64, err error) {
	k, err := parseKey(key)
	if err != nil {
		return 0, 0, err
	}
	if off < 0 || uint64(off) > k.length || uint64(n) > k.length-uint64(off) {
		return 0, 0, fmt.Errorf("ofi: %s of %d bytes at %d: outside the peer's %d-byte region", what, n, off, k.length)
	}
	addr = uint64(off)
	if mrMode&mrVirtAddr != 0 {
		addr += k.base
	}
	return addr, k.mr, nil
}

// Write copies b into the peer's region at off and returns when the
// provider's completion says b may be reused.
func (c *Conn) Write(ctx context.Context, key []byte, off int, b []byte) error {
	return c.rma(ctx, "fi_write", key, off, b, true)
}

// Read copies len(b) bytes of the peer's region at off into b.
func (c *Conn) Read(ctx context.Context, key []byte, off int, b []byte) error {
	return c.rma(ctx, "fi_read", key, off, b, false)
}

// rma posts one fi_write or fi_read and waits for its completion. A write
// is delivered (FI_DELIVERY_COMPLETE over network providers) when the
// caller's peer may look at its memory with no message after the write; a
// rendezvous' FIN, sent after the write on the same ordered connection,
// needs no more.
func (c *Conn) rma(ctx context.Context, what string, key []byte, off int, b []byte, delivered bool) error {
	e := c.e
	addr, mrKey, err := target(what, key, off, len(b), e.mrMode)
	if err != nil {
		return err
	}
	if err := c.stopErr(true); err != nil {
		return err
	}
	if len(b) == 0 {
		return nil
	}
	fn := e.fnWrite
	if what == "fi_read" {
		fn = e.fnRead
	}
	slot := int32(-1)
	err = e.post(ctx, what, func() int {
		if slot = e.allocLocked(b); slot < 0 {
			return -errAgain
		}
		var rc int
		if what == "fi_write" && delivered && !hostLocal(e.provider) {
			rc = writeDelivered(e.fnWriteMsg, e.ep, b, c.addr, addr, mrKey, e.ctxPtr(slot))
		} else {
			rc = call(fn, e.ep, bufPtr(b), uintptr(len(b)), 0, uintptr(c.addr), uintptr(addr), uintptr(mrKey), e.ctxPtr(slot))
		}
		if rc != 0 {
			e.freeLocked(slot)
			slot = -1
		}
		return rc
	}, func() error { return c.stopErr(true) })
	if err != nil {
		return fmt.Errorf("ofi: %s to rank %d: %w", what, c.rank, err)
	}
	err = e.wait(ctx, func() bool { return e.ops[slot].done }, func() error { return c.stopErr(true) })
	e.mu.Lock()
	o := e.ops[slot]
	if !o.done {
		e.ops[slot].orphan = true
		e.mu.Unlock()
		_ = c.Close() // the provider still holds b: the connection cannot go on
		return fmt.Errorf("ofi: %s to rank %d: %w", what, c.rank, err)
	}
	e.freeLocked(slot)
	e.mu.Unlock()
	if o.err != 0 {
		return fmt.Errorf("ofi: %s to rank %d: %w", what, c.rank, &Error{Op: what + " completion", Code: o.err, Text: e.l.errText(o.err)})
	}
	return nil
}

// writeDelivered posts fi_writemsg (fnWriteMsg, on ep) with
// FI_DELIVERY_COMPLETE: over a network provider (tcp) a plain write
// completes once its bytes are sent, and this one once the target has
// placed them, so that Write keeps fabric.RMAConn's promise (the target's
// polls place them where libfabric's progress is manual). ctx is the
// operation's context.
func writeDelivered(fnWriteMsg, ep uintptr, b []byte, to, addr, key uint64, ctx uintptr) int {
	var iov [iovecSize]byte
	binary.NativeEndian.PutUint64(iov[0:], uint64(bufPtr(b)))
	binary.NativeEndian.PutUint64(iov[8:], uint64(len(b)))
	var riov [rmaIOVSize]byte
	binary.NativeEndian.PutUint64(riov[0:], addr)
	binary.NativeEndian.PutUint64(riov[8:], uint64(len(b)))
	binary.NativeEndian.PutUint64(riov[16:], key)
	var desc uintptr
	var msg [msgRMASize]byte
	binary.NativeEndian.PutUint64(msg[0:], uint64(uintptr(unsafe.Pointer(&iov[0]))))
	binary.NativeEndian.PutUint64(msg[8:], uint64(uintptr(unsafe.Pointer(&desc))))
	binary.NativeEndian.PutUint64(msg[16:], 1)
	binary.NativeEndian.PutUint64(msg[24:], to)
	binary.NativeEndian.PutUint64(msg[32:], uint64(uintptr(unsafe.Pointer(&riov[0]))))
	binary.NativeEndian.PutUint64(msg[40:], 1)
	binary.NativeEndian.PutUint64(msg[48:], uint64(ctx))
	rc := call(fnWriteMsg, ep, uintptr(unsafe.Pointer(&msg[0])), flagCompletion|flagDelivery)
	runtime.KeepAlive(&iov)
	runtime.KeepAlive(&riov)
	runtime.KeepAlive(&desc)
	return rc
}
