package router_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/client/router"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
)

// fakePool is a member engine's pool for the tests: a memobj.Pool (one
// target in memory) that reports targets targets in Query, and whose
// containers, when unlinks is not nil, are object.Unlinkers counting their
// Unlink calls there.
type fakePool struct {
	*memobj.Pool
	targets int
	unlinks *atomic.Int64
}

// Query reports the pool's UUID and targets targets "/tgtI".
func (f *fakePool) Query(ctx context.Context) (object.PoolInfo, error) {
	pi, err := f.Pool.Query(ctx)
	pi.Targets = nil
	for i := range f.targets {
		pi.Targets = append(pi.Targets, object.TargetInfo{Index: i, Path: fmt.Sprintf("/tgt%d", i), FSID: "mem"})
	}
	return pi, err
}

// OpenCont opens the memobj container, counting its Unlinks when asked.
func (f *fakePool) OpenCont(ctx context.Context, label string) (object.Container, error) {
	c, err := f.Pool.OpenCont(ctx, label)
	if err != nil || f.unlinks == nil {
		return c, err
	}
	return &unlinkCont{Container: c, calls: f.unlinks}, nil
}

// unlinkCont is a container that is an object.Unlinker, counting calls.
type unlinkCont struct {
	object.Container
	calls *atomic.Int64
}

// Unlink removes the dkey and punches victim, and counts the call.
func (u *unlinkCont) Unlink(ctx context.Context, oid object.OID, dkey, akey string, expect []byte, victim object.OID) (bool, error) {
	u.calls.Add(1)
	if err := object.RemoveDkey(ctx, u.Container, oid, dkey, akey, expect); err != nil {
		return false, err
	}
	return true, u.Punch(ctx, victim)
}

// newPools returns one fakePool per entry of targets.
func newPools(targets ...int) []*fakePool {
	pools := make([]*fakePool, len(targets))
	for i, n := range targets {
		pools[i] = &fakePool{Pool: memobj.NewPool(), targets: n}
	}
	return pools
}

// newRouter returns a router over pools, engine i on host "hI".
func newRouter(t *testing.T, pools []*fakePool) *router.Pool {
	t.Helper()
	members := make([]router.Member, len(pools))
	for i, p := range pools {
		members[i] = router.Member{Pool: p, Host: fmt.Sprintf("h%d", i), Targets: p.targets}
	}
	r, err := router.New(members)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return r
}

// newCont returns pools of targets, the router over them and the
// container "c" with props made and opened through it (the caller closes
// it, or leaves it to memory).
func newCont(t *testing.T, props object.ContProps, targets ...int) ([]*fakePool, *router.Pool, object.Container) {
	t.Helper()
	pools := newPools(targets...)
	r := newRouter(t, pools)
	ctx := context.Background()
	if err := r.CreateCont(ctx, "c", props); err != nil {
		t.Fatalf("CreateCont: %v", err)
	}
	c, err := r.OpenCont(ctx, "c")
	if err != nil {
		t.Fatalf("OpenCont: %v", err)
	}
	return pools, r, c
}

// memberCont returns member pool p's own container "c", past the router.
func memberCont(t *testing.T, p *fakePool) object.Container {
	t.Helper()
	c, err := p.Pool.OpenCont(context.Background(), "c")
	if err != nil {
		t.Fatalf("open a member's container: %v", err)
	}
	return c
}

// owner returns the member owning global target g of targets, counted
// engine-major.
func owner(targets []int, g int) int {
	for m, n := range targets {
		if g < n {
			return m
		}
		g -= n
	}
	panic("target out of range")
}

// sum returns the pool's N.
func sum(targets []int) int {
	n := 0
	for _, t := range targets {
		n += t
	}
	return n
}

// chunkOwner returns the member holding chunk k of oid.
func chunkOwner(targets []int, oid object.OID, k int64) int {
	return owner(targets, object.Placement(oid, k, sum(targets)))
}

// pattern returns n bytes, none zero, that depend on their offset.
func pattern(off int64, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		x := uint64(off) + uint64(i)
		p[i] = byte(x*131+x>>12) | 1
	}
	return p
}
