package store

import (
	"context"
	"fmt"
	"io/fs"
	"sync/atomic"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Container is a handle of an open container: the engine's
// object.Container. Handles of one container share its log and files.
type Container struct {
	p      *Pool
	st     *contState
	closed atomic.Bool
}

// check returns why a call cannot go on: a closed handle or ctx's end.
func (c *Container) check(ctx context.Context) error {
	if c.closed.Load() {
		return fmt.Errorf("container %q: %w", c.st.label, fs.ErrClosed)
	}
	if c.p.shut.Load() {
		return fmt.Errorf("container %q: its pool %s: %w", c.st.label, c.p.dir, fs.ErrClosed)
	}
	return ctx.Err()
}

// Props returns the container's properties.
func (c *Container) Props() object.ContProps { return c.st.meta.Props }

// Label returns the container's label.
func (c *Container) Label() string { return c.st.label }

// AllocOIDs reserves n ids of class cl; the reservation is in the log
// before it returns.
func (c *Container) AllocOIDs(ctx context.Context, cl object.Class, n int) (object.OID, error) {
	if err := c.check(ctx); err != nil {
		return object.OID{}, fmt.Errorf("alloc %d ids: %w", n, err)
	}
	if !cl.Valid() || n <= 0 {
		return object.OID{}, fmt.Errorf("alloc %d ids of class %d: %w", n, uint16(cl), object.ErrInvalid)
	}
	first, err := c.st.kv.alloc(n)
	if err != nil {
		return object.OID{}, fmt.Errorf("alloc %d ids: %w", n, err)
	}
	return object.NewOID(cl, first), nil
}

// Put stores val under (oid, dkey, akey).
func (c *Container) Put(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	return c.put(ctx, "put", oid, dkey, akey, val, false)
}

// Insert stores val under (oid, dkey, akey) only if dkey has no akey.
func (c *Container) Insert(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	return c.put(ctx, "insert", oid, dkey, akey, val, true)
}

func (c *Container) put(ctx context.Context, op string, oid object.OID, dkey, akey string, val []byte, cond bool) error {
	err := c.check(ctx)
	if err == nil {
		err = c.st.kv.put(oid, dkey, akey, val, cond)
	}
	if err != nil {
		return fmt.Errorf("%s %v/%q/%q: %w", op, oid, dkey, akey, err)
	}
	return nil
}

// Get returns the value under (oid, dkey, akey).
func (c *Container) Get(ctx context.Context, oid object.OID, dkey, akey string) ([]byte, error) {
	err := c.check(ctx)
	var v []byte
	if err == nil {
		v, err = c.st.kv.get(oid, dkey, akey)
	}
	if err != nil {
		return nil, fmt.Errorf("get %v/%q/%q: %w", oid, dkey, akey, err)
	}
	return v, nil
}

// Remove deletes dkey and its akeys from oid.
func (c *Container) Remove(ctx context.Context, oid object.OID, dkey string) error {
	err := c.check(ctx)
	if err == nil {
		err = c.st.kv.remove(oid, dkey)
	}
	if err != nil {
		return fmt.Errorf("remove %v/%q: %w", oid, dkey, err)
	}
	return nil
}

// RemoveIf deletes dkey and its akeys from oid if the value under akey
// is expect.
func (c *Container) RemoveIf(ctx context.Context, oid object.OID, dkey, akey string, expect []byte) error {
	err := c.check(ctx)
	if err == nil {
		err = c.st.kv.removeIf(oid, dkey, akey, expect)
	}
	if err != nil {
		return fmt.Errorf("remove %v/%q if %q matches: %w", oid, dkey, akey, err)
	}
	return nil
}

// List returns up to max of oid's dkeys after anchor, in sorted order.
func (c *Container) List(ctx context.Context, oid object.OID, anchor string, max int) ([]string, string, error) {
	if err := c.check(ctx); err != nil {
		return nil, "", fmt.Errorf("list %v: %w", oid, err)
	}
	keys, next, err := c.st.kv.list(oid, anchor, max)
	if err != nil {
		return nil, "", fmt.Errorf("list %v: %w", oid, err)
	}
	return keys, next, nil
}

// Punch removes oid's extent files on every target (missing ones are
// fine), then its KV records and its array held in the log.
func (c *Container) Punch(ctx context.Context, oid object.OID) error {
	err := c.check(ctx)
	if err == nil {
		l := c.st.locks.of(oid)
		l.Lock()
		err = c.punchLocked(oid)
		l.Unlock()
	}
	if err != nil {
		return fmt.Errorf("punch %v: %w", oid, err)
	}
	return nil
}

// punchLocked punches oid; the caller holds oid's array lock.
func (c *Container) punchLocked(oid object.OID) error {
	if err := c.unlinkExtents(oid); err != nil {
		return err
	}
	return c.st.kv.punch(oid)
}

// Unlink removes dkey from oid (RemoveIf when expect is not nil) and, if
// that succeeded, punches victim (object.Unlinker). When victim has no
// extent files (an mdtest file, its bytes held in the log or none), the
// removal and the punch are one append to the log.
func (c *Container) Unlink(ctx context.Context, oid object.OID, dkey, akey string, expect []byte, victim object.OID) (removed bool, err error) {
	if err := c.check(ctx); err != nil {
		return false, fmt.Errorf("unlink %v/%q: %w", oid, dkey, err)
	}
	l := c.st.locks.of(victim)
	l.Lock()
	defer l.Unlock()
	if _, ok := c.st.sizes.lookup(victim); !ok {
		if err := c.st.kv.unlink(oid, dkey, akey, expect, &victim); err != nil {
			return false, fmt.Errorf("unlink %v/%q and punch %v: %w", oid, dkey, victim, err)
		}
		return true, nil
	}
	if err := c.st.kv.removeIf(oid, dkey, akey, expect); err != nil {
		return false, fmt.Errorf("unlink %v/%q: %w", oid, dkey, err)
	}
	if err := c.punchLocked(victim); err != nil {
		return true, fmt.Errorf("unlink %v/%q: punch %v: %w", oid, dkey, victim, err)
	}
	return true, nil
}

// Compact rewrites the container's KV log with only its live records
// (synced, then renamed over the old one). Open does it by itself when
// the log's garbage exceeds its live data.
func (c *Container) Compact(ctx context.Context) error {
	err := c.check(ctx)
	if err == nil {
		err = c.st.kv.compact()
	}
	if err != nil {
		return fmt.Errorf("compact container %q: %w", c.st.label, err)
	}
	return nil
}

// Close releases the handle; the last handle's Close closes the log (after
// a sync when Options.SyncKV) and the container's open files.
func (c *Container) Close() error {
	if c.closed.Swap(true) {
		return fmt.Errorf("close container %q: %w", c.st.label, fs.ErrClosed)
	}
	if err := c.p.release(c.st); err != nil {
		return fmt.Errorf("close container %q: %w", c.st.label, err)
	}
	return nil
}

var _ object.Container = (*Container)(nil)
var _ object.Unlinker = (*Container)(nil)
