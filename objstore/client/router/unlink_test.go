package router_test

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// TestUnlink checks both ways Unlink goes: one member Unlink when the
// directory's home member holds all of the victim, and a removal on the
// home member then a Punch over the victim's span otherwise; a removal
// that finds another value changes nothing.
func TestUnlink(t *testing.T) {
	ctx := context.Background()
	targets := []int{1, 1, 1}
	pools := newPools(targets...)
	var calls atomic.Int64
	for _, p := range pools {
		p.unlinks = &calls
	}
	r := newRouter(t, pools)
	if err := r.CreateCont(ctx, "c", object.ContProps{ChunkSize: cs}); err != nil {
		t.Fatal(err)
	}
	c, err := r.OpenCont(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	dir := object.NewOID(object.S1, object.FirstSeq)
	home := chunkOwner(targets, dir, 0)
	seq := uint64(object.FirstSeq + 1)
	// victim returns a new id of class cl whose home is (or is not) home.
	victim := func(cl object.Class, onHome bool) object.OID {
		for ; ; seq++ {
			if oid := object.NewOID(cl, seq); (chunkOwner(targets, oid, 0) == home) == onHome {
				seq++
				return oid
			}
		}
	}
	inode := []byte("inode")
	for _, tc := range []struct {
		name      string
		victim    object.OID
		expect    []byte
		wantErr   error
		wantCalls int64
	}{
		{"same member", victim(object.S1, true), nil, nil, 1},
		{"same member, conditional", victim(object.S1, true), inode, nil, 1},
		{"another member", victim(object.S1, false), nil, nil, 0},
		{"across members, conditional", victim(object.SX, true), inode, nil, 0},
		{"same member, another value", victim(object.S1, true), []byte("other"), object.ErrChanged, 1},
		{"across members, another value", victim(object.SX, false), []byte("other"), object.ErrChanged, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := object.Array{OID: tc.victim, ChunkSize: cs}
			for _, err := range []error{
				c.Put(ctx, dir, "f", "DFS_INODE", inode),
				c.Put(ctx, tc.victim, "attr", "a", []byte("x")),
				c.WriteArray(ctx, a, 0, pattern(0, 4*cs), 0),
			} {
				if err != nil {
					t.Fatal(err)
				}
			}
			before := calls.Load()
			removed, err := object.Unlink(ctx, c, dir, "f", "DFS_INODE", tc.expect, tc.victim)
			if removed != (tc.wantErr == nil) || !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("Unlink = %v, %v; want %v, %v", removed, err, tc.wantErr == nil, tc.wantErr)
			}
			if got := calls.Load() - before; got != tc.wantCalls {
				t.Errorf("members' Unlink called %d times; want %d", got, tc.wantCalls)
			}
			entry, err := c.Get(ctx, dir, "f", "DFS_INODE")
			if removed != object.IsNotExist(err) || !removed && !bytes.Equal(entry, inode) {
				t.Errorf("entry after Unlink = %q, %v; want it gone only when removed", entry, err)
			}
			for m, p := range pools {
				mc := memberCont(t, p)
				size, err := mc.ArraySize(ctx, a)
				_, gerr := mc.Get(ctx, tc.victim, "attr", "a")
				switch {
				case err != nil:
					t.Fatal(err)
				case removed && (size != 0 || !object.IsNotExist(gerr)):
					t.Errorf("member %d keeps the victim (%d bytes, record: %v)", m, size, gerr)
				case !removed && m == chunkOwner(targets, tc.victim, 0) && gerr != nil:
					t.Errorf("member %d lost the victim's record: %v", m, gerr)
				}
			}
			if size, err := c.ArraySize(ctx, a); err != nil || removed != (size == 0) {
				t.Errorf("the victim's size after Unlink = %d, %v", size, err)
			}
		})
	}
}
