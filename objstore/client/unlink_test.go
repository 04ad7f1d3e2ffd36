package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/client"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
	"github.com/hpcbench/hpcbench/objstore/rpc/rpctest"
	"github.com/hpcbench/hpcbench/objstore/store"
	"github.com/hpcbench/hpcbench/objstore/store/storetest"
)

// TestUnlink checks Cont.Unlink, one request, over every transport,
// against an engine serving a memobj pool (which removes, then punches)
// and one serving a store pool (an object.Unlinker: one append to its
// log for a small array, removal then punch for extent files), with a
// plain removal and with an expected value: with the entry there (holding
// that value), the entry goes and the object is punched; with the entry
// gone, or holding another value, Unlink reports ErrNotExist or
// ErrChanged and the object is left whole; and the connection serves the
// next call either way.
func TestUnlink(t *testing.T) {
	for _, fc := range fabrics() {
		for _, pc := range enginePools() {
			t.Run(fc.name+"/"+pc.name, func(t *testing.T) {
				e := startEngine(t, fc.tr(t), pc.open(t))
				c := rpctest.OpenCont(t, e.dial(t, 1, fc.opts), "c").(*client.Cont)
				for _, size := range []int{100, 8192} {
					for _, expect := range [][]byte{nil, []byte("inode")} {
						testUnlink(t, c, pattern(size, 9), expect)
					}
				}
			})
		}
	}
}

// testUnlink runs TestUnlink's steps on c, with an array of data and
// Unlink's expected value expect.
func testUnlink(t *testing.T, c *client.Cont, data, expect []byte) {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("%d bytes, expecting %q", len(data), expect)
	unlink := func(expect []byte) (bool, error) {
		return c.Unlink(ctx, rpctest.KVOID, "entry", "DFS_INODE", expect, rpctest.Array.OID)
	}
	put := func() {
		t.Helper()
		if err := c.Put(ctx, rpctest.KVOID, "entry", "DFS_INODE", []byte("inode")); err != nil {
			t.Fatal(err)
		}
		if err := c.WriteArray(ctx, rpctest.Array, 0, data, 0); err != nil {
			t.Fatal(err)
		}
	}
	intact := func(what string) {
		t.Helper()
		got := make([]byte, len(data))
		if n, err := c.ReadArray(ctx, rpctest.Array, 0, got, 0); err != nil || n != len(data) || !bytes.Equal(got, data) {
			t.Errorf("%s, %s: the array after a failed Unlink: %d bytes, %v, intact %v; want it untouched", name, what, n, err, bytes.Equal(got, data))
		}
	}

	put()
	removed, err := unlink(expect)
	if !removed || err != nil {
		t.Fatalf("%s: Unlink of an entry there = %v, %v; want true, nil", name, removed, err)
	}
	if _, err := c.Get(ctx, rpctest.KVOID, "entry", "DFS_INODE"); !errors.Is(err, object.ErrNotExist) {
		t.Errorf("%s: Get after Unlink: %v; want ErrNotExist", name, err)
	}
	if n, err := c.ArraySize(ctx, rpctest.Array); n != 0 || err != nil {
		t.Errorf("%s: the punched array's size is %d, %v; want 0", name, n, err)
	}

	if err := c.WriteArray(ctx, rpctest.Array, 0, data, 0); err != nil {
		t.Fatal(err)
	}
	removed, err = unlink(expect) // no entry now
	if removed || !errors.Is(err, object.ErrNotExist) {
		t.Fatalf("%s: Unlink of a missing entry = %v, %v; want false, ErrNotExist", name, removed, err)
	}
	intact("missing entry")
	if expect != nil {
		put()
		removed, err = unlink([]byte("another inode"))
		if removed || !errors.Is(err, object.ErrChanged) {
			t.Fatalf("%s: Unlink of an entry holding another value = %v, %v; want false, ErrChanged", name, removed, err)
		}
		intact("another value")
		if err := c.Remove(ctx, rpctest.KVOID, "entry"); err != nil {
			t.Fatal(err)
		}
	}
	put()
	if removed, err := unlink(expect); !removed || err != nil {
		t.Fatalf("%s: Unlink after a failed one = %v, %v; want true, nil", name, removed, err)
	}
}

// poolCase names a kind of pool an engine serves.
type poolCase struct {
	name string
	open func(t *testing.T) object.Pool
}

// enginePools are the pools TestUnlink's engines serve.
func enginePools() []poolCase {
	return []poolCase{
		{"memobj", func(*testing.T) object.Pool { return memobj.NewPool() }},
		{"store", func(t *testing.T) object.Pool { return storetest.Pool(t, 2, store.Options{}) }},
	}
}

// TestUnlinkPunchFails: when the engine removes the entry but cannot
// punch the object, Unlink says the entry went (removed) and returns the
// punch's error, as Remove then Punch would.
func TestUnlinkPunchFails(t *testing.T) {
	e := startEngine(t, shmTransport(t), punchFails{memobj.NewPool()})
	c := rpctest.OpenCont(t, e.dial(t, 1, client.ClientOptions{}), "c").(*client.Cont)
	ctx := context.Background()
	if err := c.Put(ctx, rpctest.KVOID, "entry", "DFS_INODE", []byte("inode")); err != nil {
		t.Fatal(err)
	}
	removed, err := c.Unlink(ctx, rpctest.KVOID, "entry", "DFS_INODE", []byte("inode"), rpctest.Array.OID)
	if !removed || err == nil || !strings.Contains(err.Error(), errPunch.Error()) {
		t.Errorf("Unlink with a failing punch = %v, %v; want true and the punch's error", removed, err)
	}
	if _, err := c.Get(ctx, rpctest.KVOID, "entry", "DFS_INODE"); !errors.Is(err, object.ErrNotExist) {
		t.Errorf("Get of the entry: %v; want ErrNotExist", err)
	}
}

// errPunch is the error punchFails's containers punch with.
var errPunch = errors.New("the disk is on fire")

// punchFails is a pool whose containers fail every Punch.
type punchFails struct{ object.Pool }

func (p punchFails) OpenCont(ctx context.Context, label string) (object.Container, error) {
	c, err := p.Pool.OpenCont(ctx, label)
	if err != nil {
		return nil, err
	}
	return failingPunch{c}, nil
}

type failingPunch struct{ object.Container }

func (failingPunch) Punch(context.Context, object.OID) error { return errPunch }
