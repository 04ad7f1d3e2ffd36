//go:build linux

package shm

import (
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestArena: allocations are page-rounded first fits, freed ranges
// coalesce, memory comes back zeroed, and bad frees are refused.
func TestArena(t *testing.T) {
	a, err := newArena(16 * arenaAlign)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	off := func(b []byte) int { return int(addrOf(b) - a.base) }
	x := a.alloc(1)                // page 0
	y := a.alloc(2*arenaAlign + 1) // pages 1-3
	z := a.alloc(arenaAlign)       // page 4
	if off(x) != 0 || off(y) != arenaAlign || off(z) != 4*arenaAlign || len(y) != 2*arenaAlign+1 || cap(y) != 3*arenaAlign {
		t.Fatalf("offsets %d %d %d, len %d cap %d", off(x), off(y), off(z), len(y), cap(y))
	}
	for _, b := range [][]byte{x, y, z} {
		if !a.owns(b) || !a.owns(b[len(b)/2:]) {
			t.Errorf("owns(buffer at %d) = false", off(b))
		}
	}
	if a.owns(make([]byte, 10)) || a.owns(nil) {
		t.Error("owns(heap buffer) = true")
	}
	y[0], y[len(y)-1] = 1, 2
	if err := a.release(y); err != nil {
		t.Fatal(err)
	}
	if err := a.release(y); err == nil || !strings.Contains(err.Error(), "already freed") {
		t.Errorf("double free: %v", err)
	}
	if err := a.release(x); err != nil {
		t.Fatal(err)
	}
	// Pages 0-3 are one free range now: a 4-page buffer fits there.
	w := a.alloc(4 * arenaAlign)
	if off(w) != 0 {
		t.Errorf("after coalescing, a 4-page buffer went to offset %d, want 0", off(w))
	}
	for i, v := range w {
		if v != 0 {
			t.Fatalf("reused memory not zeroed: byte %d is %d", i, v)
		}
	}
	if err := a.release(w[arenaAlign:]); err == nil {
		t.Error("free of a buffer's middle accepted")
	}
	if b := a.alloc(12 * arenaAlign); b != nil {
		t.Errorf("12 pages allocated from 11 free")
	}
	if b := a.alloc(11 * arenaAlign); b == nil || off(b) != 5*arenaAlign {
		t.Errorf("the last 11 pages: %v", b != nil)
	}
}

// TestPeerArenaWindow: only ranges wholly inside the peer's arena map to
// this process's bytes.
func TestPeerArenaWindow(t *testing.T) {
	p := &peerArena{mem: make([]byte, 100), base: 1000}
	for _, tc := range []struct {
		addr uint64
		n    int
		ok   bool
	}{
		{1000, 100, true}, {1050, 50, true}, {1099, 1, true}, {1000, 0, true},
		{999, 1, false}, {1050, 51, false}, {1100, 1, false}, {^uint64(0) - 2, 10, false},
	} {
		w := p.window(tc.addr, tc.n)
		if (w != nil) != tc.ok || w != nil && (len(w) != tc.n || addrOf(w[:cap(w)]) != addrOf(p.mem)+tc.addr-1000 && tc.n > 0) {
			t.Errorf("window(%d, %d) = %d bytes, want ok %v", tc.addr, tc.n, len(w), tc.ok)
		}
	}
	var none *peerArena
	if none.window(1000, 1) != nil {
		t.Error("window on no arena")
	}
}

// TestArenaMapRefused: when a side cannot map its peer's arena, both sides
// know it, messages from arena buffers go through the ring, and the
// failure is noted once.
func TestArenaMapRefused(t *testing.T) {
	var mu sync.Mutex
	var notes []string
	o := DefaultOptions()
	o.Logf = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, fmt.Sprintf(format, args...))
	}
	tr := newTransport(t, o)
	tr.mapHook = func(int, uint64, uint64) (*peerArena, error) { return nil, syscall.ENOMEM }
	d, a := pair(t, tr)
	if d.peerArena != nil || a.peerArena != nil || d.peerMapsArena || a.peerMapsArena {
		t.Fatalf("arenas mapped: %v %v, peers map ours: %v %v", d.peerArena != nil, a.peerArena != nil, d.peerMapsArena, a.peerMapsArena)
	}
	m := tr.Alloc(1 << 20)
	defer tr.Free(m)
	copy(m, fill(len(m), 5))
	if !tr.arena.owns(m) || d.useRndv(m) {
		t.Fatalf("an arena buffer (owned: %v) would go by rendezvous to a peer that cannot map it", tr.arena.owns(m))
	}
	exchange(t, d, a, 1, m)
	exchange(t, a, d, 1, m)
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || !strings.Contains(notes[0], "ring") {
		t.Errorf("notes = %q, want one about the ring", notes)
	}
}
