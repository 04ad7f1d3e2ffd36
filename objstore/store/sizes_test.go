package store

import (
	"context"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// TestSizeIndex: the sizes the index answers with follow writes, SetSize
// and Punch, and are the same after the pool is opened again (rebuilt from
// the extent files); a punched object that was never written leaves
// nothing to unlink.
func TestSizeIndex(t *testing.T) {
	ctx := context.Background()
	dir := makePool(t, 4, "c")
	p, c := openCont(t, dir, "c")
	arrs := []object.Array{
		{OID: object.NewOID(object.SX, 5000), ChunkSize: 4096},
		{OID: object.NewOID(object.S1, 5001), ChunkSize: 4096},
		{OID: object.NewOID(object.S2, 5002), ChunkSize: 4096},
		{OID: object.NewOID(object.SX, 5003), ChunkSize: 4096}, // never written
	}
	want := []int64{3*4096 + 7, HoldMax + 100, 9000, 0} // past HoldMax: in extent files
	for i, a := range arrs[:3] {
		if err := c.WriteArray(ctx, a, 0, make([]byte, 10), 0); err != nil {
			t.Fatal(err)
		}
		if err := c.WriteArray(ctx, a, want[i]-1, []byte{1}, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetSize(ctx, arrs[2], 9000); err != nil { // already 9000: no change
		t.Fatal(err)
	}
	check := func(c *Container, when string) {
		t.Helper()
		for i, a := range arrs {
			if got, err := c.ArraySize(ctx, a); err != nil || got != want[i] {
				t.Errorf("%s: ArraySize(%v) = %d, %v; want %d", when, a.OID, got, err, want[i])
			}
		}
	}
	check(c, "written")
	if err := c.Punch(ctx, arrs[3].OID); err != nil {
		t.Fatal(err)
	}
	if err := c.SetSize(ctx, arrs[1], 50); err != nil {
		t.Fatal(err)
	}
	want[1] = 50
	check(c, "after SetSize")
	c.Close()
	p.Close()

	p, c = openCont(t, dir, "c")
	defer p.Close()
	defer c.Close()
	check(c, "reopened")
	if err := c.Punch(ctx, arrs[0].OID); err != nil {
		t.Fatal(err)
	}
	want[0] = 0
	check(c, "after Punch")
	if n := c.st.sizes.count(); n != 2 {
		t.Errorf("the index holds %d arrays after the punch, want 2", n)
	}
}
