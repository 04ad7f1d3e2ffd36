package memobj

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Container is an in-memory object.Container.
type Container struct {
	props object.ContProps

	mu     sync.Mutex
	next   uint64
	kv     map[object.OID]map[string]map[string][]byte
	arrays map[object.OID]*array
}

type array struct {
	data []byte
}

// MaxArray is the largest array a memobj Container holds: it keeps every
// byte in memory, holes too, so a write far out (a fuzzer's, a hostile
// client's through an engine serving memobj) is refused, not allocated.
const MaxArray = 1 << 30

// New returns an empty container with props (zero fields take
// object.DefaultProps), or an error when they are out of range.
func New(props object.ContProps) (*Container, error) {
	props = props.WithDefaults()
	if err := props.Check(); err != nil {
		return nil, fmt.Errorf("memobj: %w", err)
	}
	return &Container{
		props:  props,
		next:   object.FirstSeq,
		kv:     make(map[object.OID]map[string]map[string][]byte),
		arrays: make(map[object.OID]*array),
	}, nil
}

// Props returns the container's properties.
func (c *Container) Props() object.ContProps { return c.props }

// AllocOIDs reserves n consecutive ids of class cl.
func (c *Container) AllocOIDs(ctx context.Context, cl object.Class, n int) (object.OID, error) {
	if err := ctx.Err(); err != nil {
		return object.OID{}, fmt.Errorf("alloc ids: %w", err)
	}
	if !cl.Valid() || n <= 0 {
		return object.OID{}, fmt.Errorf("alloc %d ids of class %d: %w", n, uint16(cl), object.ErrInvalid)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	first := c.next
	c.next += uint64(n)
	return object.NewOID(cl, first), nil
}

func (c *Container) put(oid object.OID, dkey, akey string, val []byte, cond bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.kv[oid]
	if d == nil {
		d = make(map[string]map[string][]byte)
		c.kv[oid] = d
	}
	a := d[dkey]
	if cond && len(a) > 0 {
		return fmt.Errorf("insert %v/%q: %w", oid, dkey, object.ErrExist)
	}
	if a == nil {
		a = make(map[string][]byte)
		d[dkey] = a
	}
	a[akey] = append([]byte(nil), val...)
	return nil
}

// Put stores val under (oid, dkey, akey).
func (c *Container) Put(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("put %v/%q/%q: %w", oid, dkey, akey, err)
	}
	return c.put(oid, dkey, akey, val, false)
}

// Insert stores val only if dkey has no akey yet.
func (c *Container) Insert(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("insert %v/%q/%q: %w", oid, dkey, akey, err)
	}
	return c.put(oid, dkey, akey, val, true)
}

// Get returns the value under (oid, dkey, akey).
func (c *Container) Get(ctx context.Context, oid object.OID, dkey, akey string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("get %v/%q/%q: %w", oid, dkey, akey, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.kv[oid][dkey][akey]
	if !ok {
		return nil, fmt.Errorf("get %v/%q/%q: %w", oid, dkey, akey, object.ErrNotExist)
	}
	return append([]byte(nil), v...), nil
}

// Remove deletes dkey from oid.
func (c *Container) Remove(ctx context.Context, oid object.OID, dkey string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("remove %v/%q: %w", oid, dkey, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.kv[oid][dkey]) == 0 {
		return fmt.Errorf("remove %v/%q: %w", oid, dkey, object.ErrNotExist)
	}
	delete(c.kv[oid], dkey)
	return nil
}

// RemoveIf deletes dkey from oid if the value under akey is expect.
func (c *Container) RemoveIf(ctx context.Context, oid object.OID, dkey, akey string, expect []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("remove %v/%q if %q matches: %w", oid, dkey, akey, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.kv[oid][dkey][akey]
	switch {
	case !ok:
		return fmt.Errorf("remove %v/%q if %q matches: %w", oid, dkey, akey, object.ErrNotExist)
	case !bytes.Equal(v, expect):
		return fmt.Errorf("remove %v/%q if %q matches: %w", oid, dkey, akey, object.ErrChanged)
	}
	delete(c.kv[oid], dkey)
	return nil
}

// List returns oid's dkeys in sorted order; the anchor is the last dkey
// returned.
func (c *Container) List(ctx context.Context, oid object.OID, anchor string, max int) ([]string, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("list %v: %w", oid, err)
	}
	c.mu.Lock()
	keys := make([]string, 0, len(c.kv[oid]))
	for k := range c.kv[oid] {
		if k > anchor || anchor == "" {
			keys = append(keys, k)
		}
	}
	c.mu.Unlock()
	sort.Strings(keys)
	if max > 0 && len(keys) > max {
		keys = keys[:max]
		return keys, keys[max-1], nil
	}
	return keys, "", nil
}

func (c *Container) arr(a object.Array, create bool) (*array, error) {
	if a.ChunkSize <= 0 {
		return nil, fmt.Errorf("array %v: chunk size %d: %w", a.OID, a.ChunkSize, object.ErrInvalid)
	}
	ar := c.arrays[a.OID]
	if ar == nil && create {
		ar = &array{}
		c.arrays[a.OID] = ar
	}
	return ar, nil
}

// WriteArray writes p at off.
func (c *Container) WriteArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %v: %w", a.OID, err)
	}
	if off < 0 || off > MaxArray-int64(len(p)) {
		return fmt.Errorf("write %v at %d: %w (memobj holds arrays up to %d bytes)", a.OID, off, object.ErrInvalid, MaxArray)
	}
	if len(p) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ar, err := c.arr(a, true)
	if err != nil {
		return err
	}
	if end := off + int64(len(p)); end > int64(len(ar.data)) {
		ar.data = append(ar.data, make([]byte, end-int64(len(ar.data)))...)
	}
	copy(ar.data[off:], p)
	return nil
}

// ReadArray reads len(p) bytes at off.
func (c *Container) ReadArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("read %v: %w", a.OID, err)
	}
	if off < 0 {
		return 0, fmt.Errorf("read %v at %d: %w", a.OID, off, object.ErrInvalid)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ar, err := c.arr(a, false)
	if err != nil {
		return 0, err
	}
	var data []byte
	if ar != nil {
		data = ar.data
	}
	if off >= int64(len(data)) {
		return 0, io.EOF
	}
	n := copy(p, data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// ArraySize returns the array's size.
func (c *Container) ArraySize(ctx context.Context, a object.Array) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("size of %v: %w", a.OID, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ar, err := c.arr(a, false)
	if err != nil || ar == nil {
		return 0, err
	}
	return int64(len(ar.data)), nil
}

// SetSize truncates or extends the array.
func (c *Container) SetSize(ctx context.Context, a object.Array, size int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("set size of %v: %w", a.OID, err)
	}
	if size < 0 || size > MaxArray {
		return fmt.Errorf("set size of %v to %d: %w (memobj holds arrays up to %d bytes)", a.OID, size, object.ErrInvalid, MaxArray)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ar, err := c.arr(a, true)
	if err != nil {
		return err
	}
	if size <= int64(len(ar.data)) {
		ar.data = ar.data[:size:size]
	} else {
		ar.data = append(ar.data, make([]byte, size-int64(len(ar.data)))...)
	}
	return nil
}

// SyncArray has nothing to flush.
func (c *Container) SyncArray(ctx context.Context, a object.Array) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sync %v: %w", a.OID, err)
	}
	return nil
}

// Punch removes the object.
func (c *Container) Punch(ctx context.Context, oid object.OID) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("punch %v: %w", oid, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.kv, oid)
	delete(c.arrays, oid)
	return nil
}

// Close does nothing: the container lives until it is garbage.
func (c *Container) Close() error { return nil }

var _ object.Container = (*Container)(nil)
