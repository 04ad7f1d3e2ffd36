package router_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// TestSetSize shrinks and extends an SX array over three engines and
// checks both the router's view and each member's.
func TestSetSize(t *testing.T) {
	ctx := context.Background()
	pools, _, c := newCont(t, object.ContProps{ChunkSize: cs}, 1, 1, 1)
	oid, err := c.AllocOIDs(ctx, object.SX, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := object.Array{OID: oid, ChunkSize: cs}
	data := pattern(0, 6*cs)
	if err := c.WriteArray(ctx, a, 0, data, 0); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		size int64
	}{
		{"shrink inside a chunk", 2*cs + 100},
		{"extend far", 10 * cs},
		{"shrink to a boundary", cs},
		{"shrink to zero", 0},
		{"extend from zero", 3*cs + 1},
	} {
		if err := c.SetSize(ctx, a, tc.size); err != nil {
			t.Fatalf("%s: SetSize(%d): %v", tc.name, tc.size, err)
		}
		if len(data) > int(tc.size) {
			data = data[:tc.size]
		}
		data = append(data, make([]byte, int(tc.size)-len(data))...)
		if size, err := c.ArraySize(ctx, a); err != nil || size != tc.size {
			t.Errorf("%s: ArraySize = %d, %v; want %d", tc.name, size, err, tc.size)
		}
		p := bytes.Repeat([]byte{0xa5}, int(tc.size)+cs)
		n, err := c.ReadArray(ctx, a, 0, p, 0)
		if n != int(tc.size) || err != io.EOF || !bytes.Equal(p[:n], data) {
			t.Errorf("%s: ReadArray = %d, %v (same bytes: %v); want %d, io.EOF", tc.name, n, err, bytes.Equal(p[:n], data), tc.size)
		}
		for m, pool := range pools {
			if size, err := memberCont(t, pool).ArraySize(ctx, a); err != nil || size > tc.size {
				t.Errorf("%s: member %d's ArraySize = %d, %v; want at most %d", tc.name, m, size, err, tc.size)
			}
		}
	}
}

// TestPunch punches an SX object with KV records and chunks on every
// engine, and checks that no member keeps any of it, nor lost another's.
func TestPunch(t *testing.T) {
	ctx := context.Background()
	targets := []int{1, 2, 1}
	pools, _, c := newCont(t, object.ContProps{ChunkSize: cs}, targets...)
	oids := make([]object.OID, 2)
	for i := range oids {
		oid, err := c.AllocOIDs(ctx, object.SX, 1)
		if err != nil {
			t.Fatal(err)
		}
		oids[i] = oid
		if err := c.Put(ctx, oid, "d", "a", []byte("v")); err != nil {
			t.Fatal(err)
		}
		if err := c.WriteArray(ctx, object.Array{OID: oid, ChunkSize: cs}, 0, pattern(0, 8*cs), 0); err != nil {
			t.Fatal(err)
		}
	}
	gone, kept := oids[0], oids[1]
	if err := c.Punch(ctx, gone); err != nil {
		t.Fatalf("Punch: %v", err)
	}
	for m, pool := range pools {
		mc := memberCont(t, pool)
		if size, err := mc.ArraySize(ctx, object.Array{OID: gone, ChunkSize: cs}); err != nil || size != 0 {
			t.Errorf("member %d keeps %d bytes of the punched object (%v)", m, size, err)
		}
		if keys, _, err := mc.List(ctx, gone, "", 0); err != nil || len(keys) != 0 {
			t.Errorf("member %d keeps dkeys %q of the punched object (%v)", m, keys, err)
		}
	}
	if v, err := c.Get(ctx, kept, "d", "a"); err != nil || string(v) != "v" {
		t.Errorf("the other object's record = %q, %v; want %q", v, err, "v")
	}
	if size, err := c.ArraySize(ctx, object.Array{OID: kept, ChunkSize: cs}); err != nil || size != 8*cs {
		t.Errorf("the other object's size = %d, %v; want %d", size, err, 8*cs)
	}
}
