package router_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// TestReadHoles writes only the last chunk of a 4-chunk SX array over
// three engines, so that the others' ends lie before it, and reads it
// back whole, in part and past its end.
func TestReadHoles(t *testing.T) {
	ctx := context.Background()
	targets := []int{1, 1, 1}
	pools, _, c := newCont(t, object.ContProps{ChunkSize: cs}, targets...)
	oid, err := c.AllocOIDs(ctx, object.SX, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := object.Array{OID: oid, ChunkSize: cs}
	data := pattern(3*cs, cs)
	if err := c.WriteArray(ctx, a, 3*cs, data, 0); err != nil {
		t.Fatal(err)
	}
	want := append(make([]byte, 3*cs), data...)
	for _, tc := range []struct {
		name  string
		off   int64
		n     int
		wantN int
	}{
		{"all", 0, 4 * cs, 4 * cs},
		{"the holes", 0, 3 * cs, 3 * cs},
		{"one hole", cs + 10, 100, 100},
		{"across the end", 3*cs + 100, 2 * cs, cs - 100},
		{"from a hole past the end", 2 * cs, 3 * cs, 2 * cs},
		{"at the end", 4 * cs, 10, 0},
		{"after the end", 9 * cs, cs, 0},
		{"nothing", 10, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := bytes.Repeat([]byte{0xa5}, tc.n) // not zeros: holes must be zeroed
			n, err := c.ReadArray(ctx, a, tc.off, p, 0)
			if n != tc.wantN || (n < tc.n) != (err == io.EOF) || err != nil && err != io.EOF {
				t.Fatalf("ReadArray(%d, %d bytes) = %d, %v; want %d (io.EOF when short)", tc.off, tc.n, n, err, tc.wantN)
			}
			if n > 0 && !bytes.Equal(p[:n], want[tc.off:tc.off+int64(n)]) {
				t.Errorf("ReadArray(%d, %d bytes): bytes differ from zeros then the data", tc.off, tc.n)
			}
		})
	}
	if size, err := c.ArraySize(ctx, a); err != nil || size != 4*cs {
		t.Errorf("ArraySize = %d, %v; want %d", size, err, 4*cs)
	}
	for m, p := range pools {
		size, err := memberCont(t, p).ArraySize(ctx, a)
		wantSize := int64(0)
		if m == chunkOwner(targets, oid, 3) { // its local chunks: those of 0..3 it owns
			for k := range int64(4) {
				if chunkOwner(targets, oid, k) == m {
					wantSize += cs
				}
			}
		}
		if err != nil || size != wantSize {
			t.Errorf("member %d's ArraySize = %d, %v; want %d", m, size, err, wantSize)
		}
	}
}
