package objecttest

import (
	"bytes"
	"errors"
	"io"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// pattern returns n bytes of the array content seed writes at off: each
// byte depends on its offset, so a chunk stored at the wrong place shows.
func pattern(seed byte, off int64, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		x := uint64(off) + uint64(i)
		p[i] = byte(x*131+x>>12) ^ seed | 1 // never zero: holes stay apart
	}
	return p
}

// write writes p at off and fails the case on error.
func (e *env) write(a object.Array, off int64, p []byte, f object.IOFlags) {
	e.t.Helper()
	if err := e.c.WriteArray(e.ctx, a, off, p, f); err != nil {
		e.t.Fatalf("WriteArray(%v, off %d, %d bytes, flags %d): %v", a.OID, off, len(p), f, err)
	}
}

// read reads n bytes at off, into a buffer that does not start zeroed,
// and checks the count and io.EOF against the array's size.
func (e *env) read(a object.Array, off int64, n int, size int64) []byte {
	e.t.Helper()
	p := bytes.Repeat([]byte{0xa5}, n) // not zeros: holes must be zeroed
	got, err := e.c.ReadArray(e.ctx, a, off, p, 0)
	want := int(min(max(size-off, 0), int64(n)))
	switch {
	case got != want:
		e.t.Errorf("ReadArray(off %d, %d bytes) of an array of %d = %d bytes; want %d", off, n, size, got, want)
	case got < n && err != io.EOF:
		e.t.Errorf("ReadArray(off %d, %d bytes) of an array of %d: error %v; want io.EOF with the short count", off, n, size, err)
	case got == n && err != nil:
		e.t.Errorf("ReadArray(off %d, %d bytes) of an array of %d: %v", off, n, size, err)
	}
	return p[:got]
}

// wantSize fails the case unless the array's size is want.
func (e *env) wantSize(a object.Array, want int64) {
	e.t.Helper()
	got, err := e.c.ArraySize(e.ctx, a)
	if err != nil || got != want {
		e.t.Errorf("ArraySize(%v) = %d, %v; want %d", a.OID, got, err, want)
	}
}

// arrayClasses are the classes the array cases run with: one target, two,
// and every target the container has.
var arrayClasses = []object.Class{object.S1, object.S2, object.SX}

func testArrayChunks(e *env) {
	for _, c := range arrayClasses {
		for _, tc := range []struct {
			name string
			off  int64
			n    int
		}{
			{"inside a chunk", 100, 1000},
			{"one whole chunk", chunk, chunk},
			{"across one boundary", chunk - 10, 20},
			{"across many chunks", chunk/2 + 3, 7*chunk + 11},
			{"one byte", 5*chunk - 1, 1},
		} {
			a := e.array(c)
			p := pattern(byte(c), tc.off, tc.n)
			e.write(a, tc.off, p, 0)
			size := tc.off + int64(tc.n)
			e.wantSize(a, size)
			if got := e.read(a, tc.off, tc.n, size); !bytes.Equal(got, p) {
				e.t.Errorf("%v %s: read back differs from what was written", c, tc.name)
			}
			// Read again in pieces that cut chunks differently.
			for off := tc.off; off < size; off += 1500 {
				n := int(min(1500, size-off))
				if got := e.read(a, off, n, size); !bytes.Equal(got, p[off-tc.off:off-tc.off+int64(n)]) {
					e.t.Errorf("%v %s: read of %d at %d differs", c, tc.name, n, off)
				}
			}
		}
	}
}

func testArrayHoles(e *env) {
	for _, c := range arrayClasses {
		a := e.array(c)
		// Writes leave holes: inside a chunk, a whole chunk, and many.
		writes := []struct {
			off int64
			n   int
		}{{10, 20}, {100, 50}, {2 * chunk, 10}, {9*chunk + 1, 100}}
		size := int64(0)
		want := make([]byte, 9*chunk+101)
		for _, w := range writes {
			p := pattern(7, w.off, w.n)
			e.write(a, w.off, p, 0)
			copy(want[w.off:], p)
			size = max(size, w.off+int64(w.n))
		}
		e.wantSize(a, size)
		if got := e.read(a, 0, len(want), size); !bytes.Equal(got, want) {
			e.t.Errorf("%v: holes between writes do not read as zeros", c)
		}
		// A write that fills a hole leaves the rest.
		p := pattern(9, 5*chunk, chunk)
		e.write(a, 5*chunk, p, 0)
		copy(want[5*chunk:], p)
		if got := e.read(a, 0, len(want), size); !bytes.Equal(got, want) {
			e.t.Errorf("%v: read after filling a hole differs", c)
		}
	}
}

func testArrayEOF(e *env) {
	a := e.array(object.SX)
	const size = 3*chunk + 100
	p := pattern(3, 0, size)
	e.write(a, 0, p, 0)
	for _, tc := range []struct {
		name string
		off  int64
		n    int
	}{
		{"all", 0, size},
		{"past the end", 0, size + 10},
		{"the last bytes", size - 10, 10},
		{"across the end", size - 10, 20},
		{"at the end", size, 10},
		{"after the end", size + 5*chunk, 10},
		{"nothing inside", 5, 0},
	} {
		got := e.read(a, tc.off, tc.n, size)
		if tc.off < size && !bytes.Equal(got, p[tc.off:tc.off+int64(len(got))]) {
			e.t.Errorf("ReadArray %s: bytes differ from what was written", tc.name)
		}
	}
	never := e.array(object.SX)
	e.read(never, 0, 10, 0)
}

func testArraySize(e *env) {
	for _, c := range arrayClasses {
		a := e.array(c)
		e.wantSize(a, 0)
		for _, tc := range []struct {
			off  int64
			n    int
			want int64
		}{
			{10000, 100, 10100},
			{0, 10, 10100}, // lower: the size stays
			{4*chunk + 1, 1, 4*chunk + 2},
			{4 * chunk, 2, 4*chunk + 2},
			{20 * chunk, chunk, 21 * chunk},
		} {
			e.write(a, tc.off, pattern(1, tc.off, tc.n), 0)
			e.wantSize(a, tc.want)
		}
	}
}

func testSetSize(e *env) {
	for _, c := range arrayClasses {
		a := e.array(c)
		p := pattern(5, 0, 4*chunk)
		e.write(a, 0, p, 0)
		steps := []struct {
			name string
			size int64
		}{
			{"shrink inside a chunk", chunk + 100},
			{"grow", 3*chunk + 7},
			{"shrink to a boundary", 2 * chunk},
			{"grow far", 40 * chunk},
			{"shrink to zero", 0},
			{"grow from zero", 5000},
		}
		want := append([]byte(nil), p...)
		for _, s := range steps {
			if err := e.c.SetSize(e.ctx, a, s.size); err != nil {
				e.t.Fatalf("%v SetSize(%d) to %s: %v", c, s.size, s.name, err)
			}
			// What lies beyond a shrink is gone: growing again reads zeros.
			if int64(len(want)) > s.size {
				want = want[:s.size]
			}
			want = append(want, make([]byte, s.size-int64(len(want)))...)
			e.wantSize(a, s.size)
			if got := e.read(a, 0, int(s.size)+10, s.size); !bytes.Equal(got, want) {
				e.t.Errorf("%v after SetSize to %s (%d): content differs", c, s.name, s.size)
			}
		}
		// A write inside the size set leaves the size.
		e.write(a, 10, []byte("x"), 0)
		e.wantSize(a, 5000)
	}
	never := e.array(object.S2)
	if err := e.c.SetSize(e.ctx, never, 3*chunk+1); err != nil {
		e.t.Fatalf("SetSize of an array never written: %v", err)
	}
	e.wantSize(never, 3*chunk+1)
	if got := e.read(never, 0, 3*chunk+1, 3*chunk+1); !bytes.Equal(got, make([]byte, 3*chunk+1)) {
		e.t.Errorf("an array grown by SetSize does not read as zeros")
	}
}

func testArrayInvalid(e *env) {
	a := e.array(object.S1)
	noChunk := object.Array{OID: a.OID}
	p := make([]byte, 10)
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"WriteArray at a negative offset", e.c.WriteArray(e.ctx, a, -1, p, 0)},
		{"WriteArray with chunk size 0", e.c.WriteArray(e.ctx, noChunk, 0, p, 0)},
		{"ReadArray with chunk size 0", func() error { _, err := e.c.ReadArray(e.ctx, noChunk, 0, p, 0); return err }()},
		{"ReadArray at a negative offset", func() error { _, err := e.c.ReadArray(e.ctx, a, -1, p, 0); return err }()},
		{"SetSize to a negative size", e.c.SetSize(e.ctx, a, -1)},
		{"SetSize with chunk size 0", e.c.SetSize(e.ctx, noChunk, 10)},
	} {
		if !errors.Is(tc.err, object.ErrInvalid) {
			e.t.Errorf("%s: error %v; want one wrapping ErrInvalid", tc.name, tc.err)
		}
	}
	e.wantSize(a, 0)
}

func testSyncArray(e *env) {
	a := e.array(object.SX)
	if err := e.c.SyncArray(e.ctx, a); err != nil {
		e.t.Errorf("SyncArray of an array never written: %v", err)
	}
	p := pattern(2, 0, 3*chunk)
	e.write(a, 0, p, object.Sync)
	e.write(a, 3*chunk, p, 0)
	if err := e.c.SyncArray(e.ctx, a); err != nil {
		e.t.Errorf("SyncArray: %v", err)
	}
	if got := e.read(a, 0, 3*chunk, 6*chunk); !bytes.Equal(got, p) {
		e.t.Errorf("read after a Sync write differs")
	}
}

func testPunch(e *env) {
	a := e.array(object.SX)
	e.put(a.OID, "d", "a", []byte("v"))
	e.put(a.OID, "d2", "a", []byte("v"))
	e.write(a, chunk/2, pattern(4, chunk/2, 5*chunk), 0)
	keep := e.array(object.SX)
	e.put(keep.OID, "d", "a", []byte("kept"))
	e.write(keep, 0, pattern(6, 0, 2*chunk), 0)

	if err := e.c.Punch(e.ctx, a.OID); err != nil {
		e.t.Fatalf("Punch: %v", err)
	}
	_, err := e.c.Get(e.ctx, a.OID, "d", "a")
	e.wantNotExist("Get after Punch", err)
	e.wantNotExist("Remove after Punch", e.c.Remove(e.ctx, a.OID, "d2"))
	if keys, _, err := e.c.List(e.ctx, a.OID, "", 0); err != nil || len(keys) != 0 {
		e.t.Errorf("List after Punch = %q, %v; want nothing", keys, err)
	}
	e.wantSize(a, 0)
	e.read(a, 0, chunk, 0)
	if err := e.c.Punch(e.ctx, a.OID); err != nil {
		e.t.Errorf("Punch of a punched object: %v", err)
	}
	if err := e.c.Punch(e.ctx, e.oid(object.S1)); err != nil {
		e.t.Errorf("Punch of an object never written: %v", err)
	}
	// The object starts again from nothing; the other is untouched.
	e.write(a, 10, []byte("again"), 0)
	e.wantSize(a, 15)
	if got := e.read(a, 0, 15, 15); !bytes.Equal(got, append(make([]byte, 10), "again"...)) {
		e.t.Errorf("an array written after Punch = %q; want zeros then %q", got, "again")
	}
	if got := e.get(keep.OID, "d", "a"); string(got) != "kept" {
		e.t.Errorf("Punch of one object changed another's KV: %q", got)
	}
	if got := e.read(keep, 0, 2*chunk, 2*chunk); !bytes.Equal(got, pattern(6, 0, 2*chunk)) {
		e.t.Errorf("Punch of one object changed another's array")
	}
}
