//go:build linux

package shm

import (
	"fmt"
	"sort"
	"sync"

	"golang.org/x/sys/unix"
)

// arena is this process's shared buffer heap: one memfd of a fixed,
// mostly untouched size, mapped here and, through the descriptor passed at
// set-up, by every peer. A message sent from an arena buffer is copied once,
// straight from that buffer into the receiver's, by plain loads and stores
// through the receiver's mapping of the arena (and, when the receiver's
// buffer is in its own arena, by the sender too). The memory is only
// allocated by the kernel as pages are touched, and a freed range is
// punched out of the file.
type arena struct {
	fd   int
	mem  []byte
	base uint64 // address of mem[0]

	mu   sync.Mutex
	free []span      // sorted by offset, coalesced
	used map[int]int // offset → bytes of every allocation not yet freed
}

// span is a free range of an arena, in bytes.
type span struct{ off, len int }

// arenaAlign is the alignment and granularity of arena allocations: whole
// pages, so that a freed range can be punched out of the file.
const arenaAlign = 4096

// newArena creates and maps an arena of size bytes (a multiple of
// arenaAlign).
func newArena(size int) (*arena, error) {
	fd, err := unix.MemfdCreate("hpcbench-shm-arena", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("shm: arena: memfd_create: %w", err)
	}
	fail := func(what string, err error) (*arena, error) {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("shm: arena of %d bytes: %s: %w", size, what, err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		return fail("sizing", err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, sealed); err != nil {
		return fail("sealing", err)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_NORESERVE)
	if err != nil {
		return fail("mapping", err)
	}
	return &arena{fd: fd, mem: mem, base: addrOf(mem), free: []span{{0, size}}, used: map[int]int{}}, nil
}

// alloc returns n bytes (n > 0) of the arena, zeroed, or nil when no free
// range is large enough.
func (a *arena) alloc(n int) []byte {
	need := (n + arenaAlign - 1) &^ (arenaAlign - 1)
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, s := range a.free {
		if s.len < need {
			continue
		}
		if s.len == need {
			a.free = append(a.free[:i], a.free[i+1:]...)
		} else {
			a.free[i] = span{s.off + need, s.len - need}
		}
		a.used[s.off] = need
		// Punched (or never touched) pages read as zeros.
		return a.mem[s.off : s.off+n : s.off+need]
	}
	return nil
}

// owns reports whether b lies in the arena.
func (a *arena) owns(b []byte) bool {
	if a == nil || cap(b) == 0 {
		return false
	}
	p := addrOf(b[:1])
	return p >= a.base && p+uint64(cap(b)) <= a.base+uint64(len(a.mem))
}

// release gives b, which alloc returned, back: its pages are punched out of
// the file, so the memory returns to the system and reads as zeros when it
// is allocated again.
func (a *arena) release(b []byte) error {
	if !a.owns(b) {
		return nil
	}
	off := int(addrOf(b[:1]) - a.base)
	a.mu.Lock()
	defer a.mu.Unlock()
	n, ok := a.used[off]
	if !ok {
		return fmt.Errorf("shm: arena: free of a buffer at offset %d: not one that Alloc returned, or already freed", off)
	}
	delete(a.used, off)
	if err := unix.Fallocate(a.fd, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, int64(off), int64(n)); err != nil {
		// The range is not reused: its contents would not read as zeros.
		return fmt.Errorf("shm: arena: releasing %d bytes: %w", n, err)
	}
	i := sort.Search(len(a.free), func(i int) bool { return a.free[i].off >= off })
	a.free = append(a.free, span{})
	copy(a.free[i+1:], a.free[i:])
	a.free[i] = span{off, n}
	// Coalesce with the neighbours.
	if i+1 < len(a.free) && a.free[i].off+a.free[i].len == a.free[i+1].off {
		a.free[i].len += a.free[i+1].len
		a.free = append(a.free[:i+1], a.free[i+2:]...)
	}
	if i > 0 && a.free[i-1].off+a.free[i-1].len == a.free[i].off {
		a.free[i-1].len += a.free[i].len
		a.free = append(a.free[:i], a.free[i+1:]...)
	}
	return nil
}

// close unmaps the arena and closes its descriptor. Peers keep their own
// mappings, which keep the memory until they unmap them.
func (a *arena) close() error {
	err := unix.Munmap(a.mem)
	if cerr := unix.Close(a.fd); err == nil {
		err = cerr
	}
	return err
}

// peerArena is this process's mapping of a peer's arena.
type peerArena struct {
	mem  []byte
	base uint64 // the peer's address of mem[0]
}

// window returns the bytes of the peer's address range [addr, addr+n) in
// this process's mapping, or nil when the range is not in the arena.
func (p *peerArena) window(addr uint64, n int) []byte {
	if p == nil || addr < p.base || addr+uint64(n) > p.base+uint64(len(p.mem)) || addr+uint64(n) < addr {
		return nil
	}
	off := int(addr - p.base)
	return p.mem[off : off+n : off+n]
}

// mapPeerArena maps the arena whose descriptor a peer sent, which must be
// size bytes and sealed against shrinking (so that the peer cannot make the
// mapping fault).
func mapPeerArena(fd int, size uint64, base uint64) (*peerArena, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("peer's arena: fstat: %w", err)
	}
	if size == 0 || uint64(st.Size) != size || size > maxArenaSize || size%arenaAlign != 0 {
		return nil, fmt.Errorf("peer's arena: %d bytes, announced %d: must be a multiple of %d up to %d", st.Size, size, arenaAlign, uint64(maxArenaSize))
	}
	seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	if err != nil {
		return nil, fmt.Errorf("peer's arena: reading seals: %w", err)
	}
	if seals&unix.F_SEAL_SHRINK == 0 {
		return nil, fmt.Errorf("peer's arena is not sealed against shrinking")
	}
	mem, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("mapping the peer's arena of %d bytes: %w", size, err)
	}
	return &peerArena{mem: mem, base: base}, nil
}

// unmap drops the mapping.
func (p *peerArena) unmap() error {
	if p == nil {
		return nil
	}
	return unix.Munmap(p.mem)
}
