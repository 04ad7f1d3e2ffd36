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
// transport, with a plain removal and with an expected value (RemoveIf):
// with the entry there (holding that value), the entry goes and the
// object is punched; with the entry gone, or holding another value,
// Unlink reports the removal's ErrNotExist or ErrChanged and the object
// is left whole (the engine skipped the punch); and the connection
// serves the next call either way.
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

			for _, tc := range []struct {
				name   string
				expect []byte
			}{{"Remove", nil}, {"RemoveIf", []byte("inode")}} {
				unlink := func(expect []byte) (bool, error) {
					return c.Unlink(ctx, kvOID, "entry", "DFS_INODE", expect, arr.OID)
				}
				intact := func(what string) {
					t.Helper()
					got := make([]byte, len(data))
					if n, err := c.ReadArray(ctx, arr, 0, got, 0); err != nil || n != len(data) || !bytes.Equal(got, data) {
						t.Errorf("%s: the array after a failed Unlink: %d bytes, %v, intact %v; want it untouched", what, n, err, bytes.Equal(got, data))
					}
				}
				put()
				removed, err := unlink(tc.expect)
				if !removed || err != nil {
					t.Fatalf("%s: Unlink of an entry there = %v, %v; want true, nil", tc.name, removed, err)
				}
				if _, err := c.Get(ctx, kvOID, "entry", "DFS_INODE"); !errors.Is(err, object.ErrNotExist) {
					t.Errorf("%s: Get after Unlink: %v; want ErrNotExist", tc.name, err)
				}
				if n := size(); n != 0 {
					t.Errorf("%s: the punched array's size is %d; want 0", tc.name, n)
				}

				if err := c.WriteArray(ctx, arr, 0, data, 0); err != nil {
					t.Fatal(err)
				}
				removed, err = unlink(tc.expect) // no entry now
				if removed || !errors.Is(err, object.ErrNotExist) {
					t.Fatalf("%s: Unlink of a missing entry = %v, %v; want false, ErrNotExist", tc.name, removed, err)
				}
				intact(tc.name + ", missing entry")
				if tc.expect != nil {
					put()
					removed, err = unlink([]byte("another inode"))
					if removed || !errors.Is(err, object.ErrChanged) {
						t.Fatalf("%s: Unlink of an entry holding another value = %v, %v; want false, ErrChanged", tc.name, removed, err)
					}
					intact(tc.name + ", another value")
				}
				put()
				if removed, err := unlink(tc.expect); !removed || err != nil {
					t.Fatalf("%s: Unlink after a failed one = %v, %v; want true, nil", tc.name, removed, err)
				}
			}
		})
	}
}

// TestCallAfterSkipped: the second call of a pair whose first failed is
// not run, and its error says so (errSkipped); a pair cannot carry more
// data than a message holds inline.
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
	e1, e2 = cl.callAfter(ctx, &msg{op: opPut, handle: c.handle, oid: kvOID, s1: "d", s2: "a", data: make([]byte, inlineMax+1)}, &msg{op: opPunch})
	if !errors.Is(e1, object.ErrInvalid) || !errors.Is(e2, object.ErrInvalid) {
		t.Errorf("callAfter with data past inlineMax = %v, %v; want ErrInvalid for both", e1, e2)
	}
	if _, err := c.Get(ctx, kvOID, "d", "a"); !errors.Is(err, object.ErrNotExist) {
		t.Errorf("the refused pair's Put: %v; want nothing stored", err)
	}
}
