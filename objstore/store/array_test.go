package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// aligned returns n zero bytes at an address that is a multiple of
// DirectAlign.
func aligned(n int) []byte {
	b := make([]byte, n+DirectAlign)
	skip := (DirectAlign - int(uintptr(unsafe.Pointer(&b[0]))%DirectAlign)) % DirectAlign
	return b[skip : skip+n : skip+n]
}

// directWorks reports whether dir's file system takes O_DIRECT (tmpfs
// before Linux 6.6 does not).
func directWorks(dir string) bool {
	fd, err := unix.Open(filepath.Join(dir, "probe"), unix.O_RDWR|unix.O_CREAT|unix.O_DIRECT, 0o644)
	if err != nil {
		return false
	}
	unix.Close(fd)
	os.Remove(filepath.Join(dir, "probe"))
	return true
}

func TestDirect(t *testing.T) {
	ctx := context.Background()
	p := newPool(t, 2, Options{})
	if !directWorks(p.Targets()[0]) {
		t.Skip("the targets' file system refuses O_DIRECT")
	}
	c := newCont(t, p, "c", object.ContProps{ChunkSize: 8192})
	defer c.Close()
	a := object.Array{OID: object.NewOID(object.SX, 2000), ChunkSize: 8192}
	// Looking for the files before they exist caches their absence; the
	// writes below must replace it, for direct and buffered opens both.
	if n, err := c.ReadArray(ctx, a, 0, aligned(DirectAlign), object.Direct); n != 0 || err == nil {
		t.Errorf("direct read of an array never written = %d, %v; want 0, io.EOF", n, err)
	}
	buf := aligned(5 * DirectAlign)
	for i := range buf {
		buf[i] = byte(i%253 + 1)
	}
	if err := c.WriteArray(ctx, a, DirectAlign, buf, object.Direct|object.Sync); err != nil {
		t.Fatalf("aligned direct write: %v", err)
	}
	got := aligned(8 * DirectAlign)
	n, err := c.ReadArray(ctx, a, 0, got, object.Direct)
	if n != 6*DirectAlign || err == nil || !bytes.Equal(got[DirectAlign:n], buf) || !bytes.Equal(got[:DirectAlign], make([]byte, DirectAlign)) {
		t.Errorf("aligned direct read = %d, %v; want %d bytes, io.EOF, the bytes written after a hole", n, err, 6*DirectAlign)
	}
	// A buffered read sees what the direct write wrote.
	plain := make([]byte, len(buf))
	if _, err := c.ReadArray(ctx, a, DirectAlign, plain, 0); err != nil || !bytes.Equal(plain, buf) {
		t.Errorf("buffered read after a direct write: %v", err)
	}
	for _, tc := range []struct {
		name string
		off  int64
		p    []byte
	}{
		{"offset", 100, aligned(DirectAlign)},
		{"length", 0, aligned(DirectAlign + 1)},
	} {
		if err := c.WriteArray(ctx, a, tc.off, tc.p, object.Direct); !errors.Is(err, object.ErrInvalid) {
			t.Errorf("direct write with a misaligned %s: error %v; want ErrInvalid", tc.name, err)
		}
		if _, err := c.ReadArray(ctx, a, tc.off, tc.p, object.Direct); !errors.Is(err, object.ErrInvalid) {
			t.Errorf("direct read with a misaligned %s: error %v; want ErrInvalid", tc.name, err)
		}
	}
	// A buffer at an address O_DIRECT refuses (the RPC layer's inline
	// data) moves through an aligned bounce buffer.
	odd := aligned(2*DirectAlign + 1)[1:]
	copy(odd, buf)
	if err := c.WriteArray(ctx, a, 0, odd, object.Direct); err != nil {
		t.Fatalf("direct write from a misaligned buffer: %v", err)
	}
	back := aligned(2*DirectAlign + 1)[1:]
	if n, err := c.ReadArray(ctx, a, 0, back, object.Direct); err != nil || n != len(back) || !bytes.Equal(back, odd) {
		t.Errorf("direct read into a misaligned buffer = %d, %v, same bytes %v", n, err, bytes.Equal(back, odd))
	}
}

// TestLayout checks the fixed format: chunk k is in the extent file
// HI.LO.CS of target Placement(oid, k, n), as that file's (k div width)-th
// chunk (files are dense), and creating an object's KV records makes no
// file.
func TestLayout(t *testing.T) {
	ctx := context.Background()
	p := newPool(t, 4, Options{})
	c := newCont(t, p, "c", object.ContProps{ChunkSize: 4096})
	defer c.Close()
	a := object.Array{OID: object.NewOID(object.S2, 1234), ChunkSize: 4096}
	if err := c.Insert(ctx, a.OID, "f", "DFS_INODE", []byte("inode")); err != nil {
		t.Fatal(err)
	}
	for _, d := range c.st.dirs {
		if ents, _ := os.ReadDir(d); len(ents) != 0 {
			t.Errorf("KV records made files in %s: %v", d, ents)
		}
	}
	data := make([]byte, 4*4096)
	for i := range data {
		data[i] = byte(i/4096 + 1)
	}
	if err := c.WriteArray(ctx, a, 0, data, 0); err != nil {
		t.Fatal(err)
	}
	name := a.OID.String() + ".1000" // the chunk size, in hex
	for k := range int64(4) {
		tgt := object.Placement(a.OID, k, 4)
		at := k / 2 * 4096 // S2: every other chunk on each of two targets
		b, err := os.ReadFile(filepath.Join(p.Targets()[tgt], c.st.meta.UUID, name))
		if err != nil || int64(len(b)) != 2*4096 || !bytes.Equal(b[at:at+4096], data[k*4096:(k+1)*4096]) {
			t.Errorf("chunk %d is not at offset %d of target %d's extent file (%d bytes, want 8192; %v)", k, at, tgt, len(b), err)
		}
	}
	files := 0
	for _, d := range c.st.dirs {
		ents, _ := os.ReadDir(d)
		files += len(ents)
	}
	if files != 2 {
		t.Errorf("an S2 array has extent files on %d targets; want 2", files)
	}
}

// TestStripe checks stripe's arithmetic against a byte-by-byte model:
// for arrays of every size up to a few stripes, each target's file size
// (localSize) is one past the last local offset of a byte it holds, and
// logicalEnd of that size is one past the last such byte; local maps the
// bytes of each target one after the other.
func TestStripe(t *testing.T) {
	for _, tc := range []struct {
		class object.Class
		n     int
		cs    int64
	}{
		{object.S1, 4, 3}, {object.S2, 4, 3}, {object.SX, 4, 3}, {object.SX, 3, 5},
		{object.S4, 4, 2}, {object.S2, 1, 4}, {object.S4, 2, 1}, {object.SX, 1, 7},
	} {
		oid := object.NewOID(tc.class, 77)
		s := newStripe(oid, tc.cs, tc.n)
		next := make([]int64, tc.n) // the next local offset each target fills
		for size := int64(0); size <= 5*tc.cs*int64(tc.n); size++ {
			if size > 0 {
				b := size - 1
				tg := object.Placement(oid, b/tc.cs, tc.n)
				if got := s.local(b); got != next[tg] {
					t.Fatalf("%v n=%d cs=%d: byte %d on target %d at local %d, want %d (dense)", tc.class, tc.n, tc.cs, b, tg, got, next[tg])
				}
				next[tg]++
			}
			end := int64(0)
			for tg := range tc.n {
				if got := s.localSize(tg, size); got != next[tg] {
					t.Fatalf("%v n=%d cs=%d size %d: target %d's file %d bytes, want %d", tc.class, tc.n, tc.cs, size, tg, got, next[tg])
				}
				end = max(end, s.logicalEnd(tg, next[tg]))
			}
			if end != size {
				t.Fatalf("%v n=%d cs=%d size %d: the files' logical ends reach %d", tc.class, tc.n, tc.cs, size, end)
			}
		}
	}
}

// TestOpenFilesBound checks that the fd cache keeps no more files open
// than MaxOpenFiles, and no more missing ones than its bound for those,
// however many objects are written and sized.
func TestOpenFilesBound(t *testing.T) {
	ctx := context.Background()
	p := newPool(t, 2, Options{MaxOpenFiles: 3})
	c := newCont(t, p, "c", object.ContProps{ChunkSize: 4096})
	for i := range 50 {
		a := object.Array{OID: object.NewOID(object.SX, uint64(5000+i)), ChunkSize: 4096}
		if err := c.WriteArray(ctx, a, 0, make([]byte, 3*4096), 0); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ArraySize(ctx, object.Array{OID: object.NewOID(object.SX, uint64(9000+i)), ChunkSize: 4096}); err != nil {
			t.Fatal(err)
		}
		if n, neg := p.fds.lru.Len(), p.fds.neg.Len(); n > 3 || neg > 3*negPerFD {
			t.Fatalf("after %d objects, %d files open and %d known missing; want at most 3 and %d", i+1, n, neg, 3*negPerFD)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n, neg := p.fds.lru.Len(), p.fds.neg.Len(); n != 0 || neg != 0 {
		t.Errorf("after the last handle's Close, %d files open and %d known missing; want none", n, neg)
	}
}

// TestChunkSizeFixed: an array's extents are cut in the chunk size of
// their first write, and a transfer in another is refused rather than
// read from the wrong places.
func TestChunkSizeFixed(t *testing.T) {
	ctx := context.Background()
	c := newCont(t, newPool(t, 4, Options{}), "c", object.ContProps{})
	defer c.Close()
	a := object.Array{OID: object.NewOID(object.SX, 4321), ChunkSize: 8192}
	if err := c.WriteArray(ctx, a, 0, make([]byte, 64<<10), 0); err != nil {
		t.Fatal(err)
	}
	b := a
	b.ChunkSize = 4096
	buf := make([]byte, 4096)
	for name, err := range map[string]error{
		"WriteArray": c.WriteArray(ctx, b, 0, buf, 0),
		"ReadArray":  func() error { _, err := c.ReadArray(ctx, b, 0, buf, 0); return err }(),
		"SetSize":    c.SetSize(ctx, b, 100),
	} {
		if !errors.Is(err, object.ErrInvalid) || !strings.Contains(err.Error(), "chunks of 8192 bytes") {
			t.Errorf("%s in chunks of 4096: %v; want ErrInvalid naming the array's 8192", name, err)
		}
	}
}
