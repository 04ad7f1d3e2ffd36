//go:build linux

package shm

import (
	"context"
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
)

// The RMA of a shared-memory connection is the kernel's cross-memory
// attach: Write is one process_vm_writev into the peer's exposed buffer
// and Read one process_vm_readv, each complete when it returns, as a
// verbs RDMA write is at its completion. A key is the exposed buffer's
// address and length in the exposing process, with a tag that tells a
// key from other bytes.

// rmaKeyTag starts every key.
const rmaKeyTag = 0x6b616d72 // "rmak"

// rmaKeyLen is a key's length: tag, address, length.
const rmaKeyLen = 4 + 8 + 8

// Expose implements fabric.RMAConn. b must stay valid, and in place, until
// release; a Go heap buffer does (the collector does not move heap
// objects), as the transport's own Alloc buffers do.
func (c *Conn) Expose(b []byte) ([]byte, func() error, error) {
	if !c.peerCanAccess && !c.PeerViews(b) {
		return nil, nil, fmt.Errorf("shm: expose %d bytes: the peer (pid %d) may not attach to this process's memory (ptrace permission: kernel.yama.ptrace_scope, or another user)", len(b), c.peerPid)
	}
	key := make([]byte, rmaKeyLen)
	binary.LittleEndian.PutUint32(key, rmaKeyTag)
	if len(b) > 0 {
		binary.LittleEndian.PutUint64(key[4:], uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))))
	}
	binary.LittleEndian.PutUint64(key[12:], uint64(len(b)))
	return key, func() error { return nil }, nil
}

// rmaTarget checks key, off and n against each other and returns the
// peer's address of the transfer.
func (c *Conn) rmaTarget(op string, key []byte, off, n int) (uint64, error) {
	if c.closed.Load() {
		return 0, fmt.Errorf("shm: RMA %s: %w", op, fabric.ErrClosed)
	}
	if len(key) != rmaKeyLen || binary.LittleEndian.Uint32(key) != rmaKeyTag {
		return 0, fmt.Errorf("shm: RMA %s: a key of %d bytes that Expose did not make", op, len(key))
	}
	addr, size := binary.LittleEndian.Uint64(key[4:]), binary.LittleEndian.Uint64(key[12:])
	if off < 0 || uint64(off)+uint64(n) > size {
		return 0, fmt.Errorf("shm: RMA %s of %d bytes at offset %d: past the end of the peer's %d-byte region", op, n, off, size)
	}
	if !c.canAccess {
		return 0, fmt.Errorf("shm: RMA %s: this process may not attach to the peer's memory (pid %d; ptrace permission: kernel.yama.ptrace_scope)", op, c.peerPid)
	}
	return addr + uint64(off), nil
}

// View implements fabric.RMAViewer: the region's bytes through this
// process's mapping of the peer's arena, when the region lies inside it
// (the peer's Alloc buffers do), and nil otherwise.
func (c *Conn) View(key []byte, off, n int) []byte {
	if c.closed.Load() || len(key) != rmaKeyLen || binary.LittleEndian.Uint32(key) != rmaKeyTag || n <= 0 {
		return nil
	}
	addr, size := binary.LittleEndian.Uint64(key[4:]), binary.LittleEndian.Uint64(key[12:])
	if off < 0 || uint64(off)+uint64(n) > size {
		return nil
	}
	return c.peerArena.window(addr+uint64(off), n)
}

// PeerViews implements fabric.PeerViewer: b lies in this process's arena
// and the peer has mapped it. Such a buffer needs no cross-memory attach:
// Expose takes it even where the peer may not attach to this process.
func (c *Conn) PeerViews(b []byte) bool { return c.peerMapsArena && c.arena.owns(b) }

// Write implements fabric.RMAConn.
func (c *Conn) Write(ctx context.Context, key []byte, off int, b []byte) error {
	return c.rmaCopy(ctx, "write", key, off, b)
}

// Read implements fabric.RMAConn.
func (c *Conn) Read(ctx context.Context, key []byte, off int, b []byte) error {
	return c.rmaCopy(ctx, "read", key, off, b)
}

// rmaCopy is Write and Read: one cross-memory copy after the checks.
func (c *Conn) rmaCopy(ctx context.Context, op string, key []byte, off int, b []byte) error {
	addr, err := c.rmaTarget(op, key, off, len(b))
	if err != nil || len(b) == 0 {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := cmaCopy(c.peerPid, b, addr, op == "write"); err != nil {
		return c.rmaErr(op, err)
	}
	return nil
}

// rmaErr words a failed RMA copy as a message's: the peer's process
// having exited is a closed connection.
func (c *Conn) rmaErr(op string, err error) error { return c.cmaErr("RMA "+op, err) }

var (
	_ fabric.RMAConn    = (*Conn)(nil)
	_ fabric.RMAViewer  = (*Conn)(nil)
	_ fabric.PeerViewer = (*Conn)(nil)
)
