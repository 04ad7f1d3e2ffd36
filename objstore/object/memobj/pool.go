package memobj

import (
	"context"
	"crypto/rand"
	"fmt"
	"sort"
	"sync"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Pool is an in-memory object.Pool: labels naming memobj Containers. Its
// methods may be called from many goroutines at once. Every OpenCont of a
// label returns the same Container, so handles opened by different callers
// see each other's writes, as handles of one DAOS container do.
type Pool struct {
	uuid string

	mu    sync.Mutex
	conts map[string]*poolCont
}

// poolCont is one container of a Pool and what QueryCont reports of it.
type poolCont struct {
	uuid string
	c    *Container
}

// NewPool returns an empty pool with a random UUID.
func NewPool() *Pool {
	return &Pool{uuid: newUUID(), conts: make(map[string]*poolCont)}
}

// newUUID returns a random version-4 UUID in its usual text form.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Query describes the pool: one target, in memory, of no fixed capacity.
func (p *Pool) Query(ctx context.Context) (object.PoolInfo, error) {
	return object.PoolInfo{UUID: p.uuid, Targets: []object.TargetInfo{{Index: 0, Path: "memory"}}}, nil
}

// CreateCont creates an empty container called label.
func (p *Pool) CreateCont(ctx context.Context, label string, props object.ContProps) error {
	if label == "" {
		return fmt.Errorf("create container %q: empty label: %w", label, object.ErrInvalid)
	}
	c, err := New(props)
	if err != nil {
		return fmt.Errorf("create container %q: %w", label, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conts[label] != nil {
		return fmt.Errorf("create container %q: %w", label, object.ErrExist)
	}
	p.conts[label] = &poolCont{uuid: newUUID(), c: c}
	return nil
}

// lookup returns the container called label, or ErrNotExist worded for op.
func (p *Pool) lookup(op, label string) (*poolCont, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pc := p.conts[label]
	if pc == nil {
		return nil, fmt.Errorf("%s container %q: %w", op, label, object.ErrNotExist)
	}
	return pc, nil
}

// OpenCont returns the container called label.
func (p *Pool) OpenCont(ctx context.Context, label string) (object.Container, error) {
	pc, err := p.lookup("open", label)
	if err != nil {
		return nil, err
	}
	return pc.c, nil
}

// ListConts returns the pool's labels, sorted.
func (p *Pool) ListConts(ctx context.Context) ([]string, error) {
	p.mu.Lock()
	labels := make([]string, 0, len(p.conts))
	for l := range p.conts {
		labels = append(labels, l)
	}
	p.mu.Unlock()
	sort.Strings(labels)
	return labels, nil
}

// QueryCont describes the container called label: Objects counts the ids
// with a KV record or an array, ArrayBytes the bytes of its arrays.
func (p *Pool) QueryCont(ctx context.Context, label string) (object.ContInfo, error) {
	pc, err := p.lookup("query", label)
	if err != nil {
		return object.ContInfo{}, err
	}
	c := pc.c
	c.mu.Lock()
	defer c.mu.Unlock()
	objs := make(map[object.OID]bool, len(c.kv)+len(c.arrays))
	for oid, d := range c.kv {
		for _, a := range d {
			if len(a) > 0 {
				objs[oid] = true
				break
			}
		}
	}
	var bytes int64
	for oid, a := range c.arrays {
		objs[oid] = true
		bytes += int64(len(a.data))
	}
	return object.ContInfo{Label: label, UUID: pc.uuid, Props: c.props, Objects: int64(len(objs)), ArrayBytes: bytes}, nil
}

// DestroyCont removes the container called label. Handles already open
// keep the container's memory until they are dropped.
func (p *Pool) DestroyCont(ctx context.Context, label string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conts[label] == nil {
		return fmt.Errorf("destroy container %q: %w", label, object.ErrNotExist)
	}
	delete(p.conts, label)
	return nil
}

// Close does nothing: the pool lives until it is garbage.
func (p *Pool) Close() error { return nil }

var _ object.Pool = (*Pool)(nil)
