package namespace

import (
	"context"
	"errors"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// fixedAlloc is a Container whose AllocOIDs always returns first.
type fixedAlloc struct {
	object.Container
	first uint64
}

func (c fixedAlloc) AllocOIDs(ctx context.Context, cl object.Class, n int) (object.OID, error) {
	return object.NewOID(cl, c.first), nil
}

func TestAllocator(t *testing.T) {
	cases := []struct {
		name  string
		first uint64
		batch int
		want  []uint64 // the ids' Lo, in order; nil: an error
	}{
		{"a batch of 3", 5000, 3, []uint64{5000, 5001, 5002, 5000}},
		{"the default batch", 2000, 0, []uint64{2000, 2001}},
		{"the superblock's id", 0, 4, nil},
		{"the root's id", 1, 4, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := newAllocator(fixedAlloc{first: c.first}, c.batch)
			if c.want == nil {
				if oid, err := a.oid(context.Background(), object.S1); !errors.Is(err, object.ErrInvalid) {
					t.Errorf("got %v, %v; want an error wrapping ErrInvalid", oid, err)
				}
				return
			}
			for _, lo := range c.want {
				oid, err := a.oid(context.Background(), object.S2)
				if err != nil || oid != object.NewOID(object.S2, lo) {
					t.Fatalf("got %v, %v; want %v", oid, err, object.NewOID(object.S2, lo))
				}
			}
		})
	}
}
