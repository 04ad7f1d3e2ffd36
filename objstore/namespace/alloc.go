package namespace

import (
	"context"
	"fmt"
	"sync"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// defaultOIDBatch is how many object ids a mount reserves at a time.
const defaultOIDBatch = 1024

// allocator hands out object ids from batches it reserves from the
// container, one batch per class, so a create does not cost an allocation
// round-trip. It is safe for concurrent use.
type allocator struct {
	cont  object.Container
	batch int

	mu   sync.Mutex
	next map[object.Class]idRange
}

// idRange is the unused part of a reserved batch: ids hi.lo to hi.(end-1).
type idRange struct {
	hi, lo, end uint64
}

func newAllocator(cont object.Container, batch int) *allocator {
	if batch <= 0 {
		batch = defaultOIDBatch
	}
	return &allocator{cont: cont, batch: batch, next: make(map[object.Class]idRange)}
}

// oid returns an object id of class c no other caller gets.
func (a *allocator) oid(ctx context.Context, c object.Class) (object.OID, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.next[c]
	if r.lo == r.end {
		first, err := a.cont.AllocOIDs(ctx, c, a.batch)
		if err != nil {
			return object.OID{}, fmt.Errorf("allocate %d object ids of class %v: %w", a.batch, c, err)
		}
		if first.Lo <= reservedRootLo {
			return object.OID{}, fmt.Errorf("allocate object ids of class %v: the container handed out %v: %w (ids 0 and 1 are DFS's)", c, first, object.ErrInvalid)
		}
		r = idRange{hi: first.Hi, lo: first.Lo, end: first.Lo + uint64(a.batch)}
	}
	oid := object.OID{Hi: r.hi, Lo: r.lo}
	r.lo++
	a.next[c] = r
	return oid, nil
}
