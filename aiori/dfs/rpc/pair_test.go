package rpc

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/hpcbench/hpcbench/aiori/dfs/object"
	"github.com/hpcbench/hpcbench/aiori/dfs/object/memobj"
)

// TestUnlink checks Cont.Unlink, a pair in one round trip, over every
// transport: with the entry there, the entry goes and the object is
// punched; with the entry gone, Unlink reports Remove's ErrNotExist and
// the object is left whole (the engine skipped the punch); and the
// connection serves the next call either way.
func TestUnlink(t *testing.T) {
	for _, fc := range fabrics() {
		t.Run(fc.name, func(t *testing.T) {
			e := startEngine(t, fc.tr(t), memobj.NewPool())
			cl := e.dial(t, 1, fc.opts)
			c := openCont(t, cl, "c").(*Cont)
			ctx := context.Background()
			data := pattern(8192, 9)
			put := func() {
				t.Helper()
				if err := c.Put(ctx, kvOID, "entry", "DFS_INODE", []byte("inode")); err != nil {
					t.Fatal(err)
				}
				if err := c.WriteArray(ctx, arr, 0, data, 0); err != nil {
					t.Fatal(err)
				}
			}
			size := func() int64 {
				t.Helper()
				n, err := c.ArraySize(ctx, arr)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}

			put()
			removed, err := c.Unlink(ctx, kvOID, "entry", arr.OID)
			if !removed || err != nil {
				t.Fatalf("Unlink of an entry there = %v, %v; want true, nil", removed, err)
			}
			if _, err := c.Get(ctx, kvOID, "entry", "DFS_INODE"); !errors.Is(err, object.ErrNotExist) {
				t.Errorf("Get after Unlink: %v; want ErrNotExist", err)
			}
			if n := size(); n != 0 {
				t.Errorf("the punched array's size is %d; want 0", n)
			}

			if err := c.WriteArray(ctx, arr, 0, data, 0); err != nil {
				t.Fatal(err)
			}
			removed, err = c.Unlink(ctx, kvOID, "entry", arr.OID) // no entry now
			if removed || !errors.Is(err, object.ErrNotExist) {
				t.Fatalf("Unlink of a missing entry = %v, %v; want false, ErrNotExist", removed, err)
			}
			got := make([]byte, len(data))
			if n, err := c.ReadArray(ctx, arr, 0, got, 0); err != nil || n != len(data) || !bytes.Equal(got, data) {
				t.Errorf("the array after a failed Unlink: %d bytes, %v, intact %v; want it untouched", n, err, bytes.Equal(got, data))
			}
			put()
			if removed, err := c.Unlink(ctx, kvOID, "entry", arr.OID); !removed || err != nil {
				t.Fatalf("Unlink after a failed one = %v, %v; want true, nil", removed, err)
			}
		})
	}
}

// TestCallAfterSkipped: the second call of a pair whose first failed is
// not run, and its error says so (errSkipped); a pair cannot carry data.
func TestCallAfterSkipped(t *testing.T) {
	e := startEngine(t, shmTransport(t), memobj.NewPool())
	cl := e.dial(t, 1, ClientOptions{})
	c := openCont(t, cl, "c").(*Cont)
	ctx := context.Background()
	if err := c.Put(ctx, kvOID, "keep", "a", []byte("v")); err != nil {
		t.Fatal(err)
	}
	e1, e2 := cl.callAfter(ctx,
		&msg{op: opRemove, handle: c.handle, oid: kvOID, s1: "missing"},
		&msg{op: opRemove, handle: c.handle, oid: kvOID, s1: "keep"})
	if !errors.Is(e1, object.ErrNotExist) || !errors.Is(e2, errSkipped) {
		t.Errorf("callAfter = %v, %v; want ErrNotExist, then errSkipped", e1, e2)
	}
	if _, err := c.Get(ctx, kvOID, "keep", "a"); err != nil {
		t.Errorf("the skipped Remove's entry: %v; want it still there", err)
	}
	e1, e2 = cl.callAfter(ctx, &msg{op: opPut, handle: c.handle, oid: kvOID, s1: "d", s2: "a", data: []byte("x")}, &msg{op: opPunch})
	if !errors.Is(e1, object.ErrInvalid) || !errors.Is(e2, object.ErrInvalid) {
		t.Errorf("callAfter with data = %v, %v; want ErrInvalid for both", e1, e2)
	}
}
