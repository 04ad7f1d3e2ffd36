package namespace

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// containsAll reports whether err is not nil and its text holds every one
// of subs.
func containsAll(err error, subs ...string) bool {
	if err == nil {
		return false
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			return false
		}
	}
	return true
}

// must fails the test on err.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// counting is a Container that counts the calls made to it by name.
type counting struct {
	object.Container
	mu    sync.Mutex
	calls map[string]int
}

func (c *counting) count(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[name]++
}

// take returns the counts since the last take and starts again.
func (c *counting) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.calls
	c.calls = make(map[string]int)
	return m
}

func (c *counting) AllocOIDs(ctx context.Context, cl object.Class, n int) (object.OID, error) {
	c.count("AllocOIDs")
	return c.Container.AllocOIDs(ctx, cl, n)
}

func (c *counting) Put(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	c.count("Put")
	return c.Container.Put(ctx, oid, dkey, akey, val)
}

func (c *counting) Insert(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	c.count("Insert")
	return c.Container.Insert(ctx, oid, dkey, akey, val)
}

func (c *counting) Get(ctx context.Context, oid object.OID, dkey, akey string) ([]byte, error) {
	c.count("Get")
	return c.Container.Get(ctx, oid, dkey, akey)
}

func (c *counting) Remove(ctx context.Context, oid object.OID, dkey string) error {
	c.count("Remove")
	return c.Container.Remove(ctx, oid, dkey)
}

func (c *counting) RemoveIf(ctx context.Context, oid object.OID, dkey, akey string, expect []byte) error {
	c.count("RemoveIf")
	return c.Container.RemoveIf(ctx, oid, dkey, akey, expect)
}

func (c *counting) List(ctx context.Context, oid object.OID, anchor string, max int) ([]string, string, error) {
	c.count("List")
	return c.Container.List(ctx, oid, anchor, max)
}

func (c *counting) WriteArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) error {
	c.count("WriteArray")
	return c.Container.WriteArray(ctx, a, off, p, f)
}

func (c *counting) ArraySize(ctx context.Context, a object.Array) (int64, error) {
	c.count("ArraySize")
	return c.Container.ArraySize(ctx, a)
}

func (c *counting) SetSize(ctx context.Context, a object.Array, size int64) error {
	c.count("SetSize")
	return c.Container.SetSize(ctx, a, size)
}

func (c *counting) Punch(ctx context.Context, oid object.OID) error {
	c.count("Punch")
	return c.Container.Punch(ctx, oid)
}
