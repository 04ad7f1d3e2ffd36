package ucx

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// A remote key, as Expose returns it for the peer:
//
//	bytes 0-3    CRC-32 (IEEE) of the rest, so that a damaged or forged key
//	             is refused before UCX is given it
//	bytes 4-11   the region's address in the exposing process
//	bytes 12-19  the region's length
//	bytes 20-    the packed UCX remote key (ucp_rkey_pack)
const keyHeader = 4 + 8 + 8

// maxPackedRkey bounds a packed remote key read from a peer.
const maxPackedRkey = 4096

// errBadKey is the error of every malformed remote key.
var errBadKey = errors.New("ucx: bad remote key")

// formatKey lays a region's key out.
func formatKey(addr, length uint64, rkey []byte) []byte {
	b := make([]byte, 4, keyHeader+len(rkey))
	b = binary.LittleEndian.AppendUint64(b, addr)
	b = binary.LittleEndian.AppendUint64(b, length)
	b = append(b, rkey...)
	binary.LittleEndian.PutUint32(b, crc32.ChecksumIEEE(b[4:]))
	return b
}

// parseKey is formatKey's inverse, for a key from a peer.
func parseKey(key []byte) (addr, length uint64, rkey []byte, err error) {
	if len(key) <= keyHeader || len(key) > keyHeader+maxPackedRkey {
		return 0, 0, nil, fmt.Errorf("%w: %d bytes; want %d to %d", errBadKey, len(key), keyHeader+1, keyHeader+maxPackedRkey)
	}
	if crc32.ChecksumIEEE(key[4:]) != binary.LittleEndian.Uint32(key) {
		return 0, 0, nil, fmt.Errorf("%w: checksum mismatch", errBadKey)
	}
	addr, length = binary.LittleEndian.Uint64(key[4:]), binary.LittleEndian.Uint64(key[12:])
	if addr+length < addr {
		return 0, 0, nil, fmt.Errorf("%w: region wraps around", errBadKey)
	}
	return addr, length, key[keyHeader:], nil
}

// Expose maps b for UCX (ucp_mem_map) and returns its packed remote key
// with b's address and length. release unmaps it.
func (c *Conn) Expose(b []byte) ([]byte, func() error, error) {
	if len(b) == 0 {
		return nil, nil, errors.New("ucx: expose: empty region")
	}
	wk := c.wk
	wk.mu.Lock()
	defer wk.mu.Unlock()
	if c.closed || !wk.open {
		return nil, nil, fmt.Errorf("expose: %w", fabric.ErrClosed)
	}
	wk.s.memP = memMapParams{fieldMask: memFieldAddress | memFieldLength, address: ptr(b), length: uint64(len(b))}
	if st := status(wk.call(wk.l.memMap, wk.ctx, uintptr(unsafe.Pointer(&wk.s.memP)), wk.outPtr(0))); st != statusOK {
		return nil, nil, wk.l.err("ucp_mem_map", st)
	}
	memh := wk.s.out[0]
	if st := status(wk.call(wk.l.rkeyPack, wk.ctx, memh, wk.outPtr(0), wk.outPtr(1))); st != statusOK {
		wk.call(wk.l.memUnmap, wk.ctx, memh)
		return nil, nil, wk.l.err("ucp_rkey_pack", st)
	}
	rbuf, rlen := wk.s.out[0], wk.s.out[1]
	key := formatKey(uint64(ptr(b)), uint64(len(b)), cBytes(rbuf, int(rlen)))
	wk.call(wk.l.rkeyBufferRelease, rbuf)
	released := false
	release := func() error {
		wk.mu.Lock()
		defer wk.mu.Unlock()
		if released || !wk.open {
			return nil
		}
		released = true
		st := status(wk.call(wk.l.memUnmap, wk.ctx, memh))
		runtime.KeepAlive(b)
		if st != statusOK {
			return wk.l.err("ucp_mem_unmap", st)
		}
		return nil
	}
	return key, release, nil
}

// rkey is the unpacked remote key for key, unpacked once per Conn.
// Caller holds mu.
func (c *Conn) rkey(key, packed []byte) (uintptr, error) {
	if rk, ok := c.rkeys[string(key)]; ok {
		return rk, nil
	}
	if st := status(c.wk.call(c.wk.l.epRkeyUnpack, c.ep, ptr(packed), c.wk.outPtr(0))); st != statusOK {
		return 0, fmt.Errorf("%w: %w", errBadKey, c.wk.l.err("ucp_ep_rkey_unpack", st))
	}
	rk := c.wk.s.out[0]
	if c.rkeys == nil {
		c.rkeys = make(map[string]uintptr)
	}
	c.rkeys[string(key)] = rk
	return rk, nil
}

// Write puts b into the peer's region named by key at off (ucp_put_nbx),
// then flushes the endpoint, so that the bytes are in the peer's memory
// when it returns.
func (c *Conn) Write(ctx context.Context, key []byte, off int, b []byte) error {
	return c.rma(ctx, "write", c.wk.l.putNbx, key, off, b)
}

// Read gets len(b) bytes of the peer's region named by key at off into b
// (ucp_get_nbx).
func (c *Conn) Read(ctx context.Context, key []byte, off int, b []byte) error {
	return c.rma(ctx, "read", c.wk.l.getNbx, key, off, b)
}

// rma runs one put or get (fn) and, for a put, the flush after it.
func (c *Conn) rma(ctx context.Context, what string, fn uintptr, key []byte, off int, b []byte) error {
	addr, length, packed, err := parseKey(key)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if off < 0 || uint64(off) > length || uint64(len(b)) > length-uint64(off) {
		return fmt.Errorf("%s of %d bytes at offset %d: out of the region's %d bytes", what, len(b), off, length)
	}
	wk := c.wk
	wk.mu.Lock()
	if err := c.sendable(); err != nil {
		wk.mu.Unlock()
		return fmt.Errorf("%s: %w", what, err)
	}
	if len(b) == 0 {
		wk.mu.Unlock()
		return nil
	}
	rk, err := c.rkey(key, packed)
	if err != nil {
		wk.mu.Unlock()
		return fmt.Errorf("%s: %w", what, err)
	}
	p := &wk.s.reqP
	*p = requestParam{}
	req := wk.call(fn, c.ep, ptr(b), uintptr(len(b)), uintptr(addr+uint64(off)), rk, uintptr(unsafe.Pointer(p)))
	if fn == wk.l.putNbx && !isErrPtr(req) {
		if req != 0 {
			// The flush completes after the put: wait for it alone.
			wk.call(wk.l.requestFree, req)
		}
		req = wk.call(wk.l.epFlushNbx, c.ep, uintptr(unsafe.Pointer(p)))
	}
	wk.mu.Unlock()
	if isErrPtr(req) {
		return fmt.Errorf("%s: %w", what, c.opErr("ucp_"+what, status(req)))
	}
	if req != 0 {
		w := &c.rmaW
		*w = newWaiter(wk.singleP)
		st, stopped := wk.waitWith(w, req, nil, nil, fn == wk.l.putNbx, func(w *waiter) error {
			if err := deadline.ContextErr(ctx); err != nil {
				return err
			}
			if c.closed {
				return fmt.Errorf("%s: %w", what, fabric.ErrClosed)
			}
			return c.peerGone(w)
		}, func(_ uintptr, why error) { c.breakLocked(why) })
		wk.mu.Unlock()
		if stopped != nil {
			return stopped
		}
		if st != statusOK {
			return fmt.Errorf("%s: %w", what, c.opErr("ucp_"+what, st))
		}
	}
	runtime.KeepAlive(b)
	return nil
}

// Progress runs the worker once: UCX carries out there what a peer's put
// or get needs from this side when no transport reaches this memory
// directly (tcp, shared memory without cma: UCX's active-message
// emulation of RMA). A process that waits for a peer's Write by watching
// its own memory calls it in its loop (fabric.Progresser); it does not
// wait.
func (c *Conn) Progress(ctx context.Context) error {
	wk := c.wk
	wk.mu.Lock()
	closed := c.closed || !wk.open
	if !closed && wk.progress() {
		wk.events++
	}
	wk.mu.Unlock()
	if closed {
		return fmt.Errorf("progress: %w", fabric.ErrClosed)
	}
	return deadline.ContextErr(ctx)
}
