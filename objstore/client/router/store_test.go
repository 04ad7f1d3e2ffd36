package router_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/client/router"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/objecttest"
	"github.com/hpcbench/hpcbench/objstore/store"
	"github.com/hpcbench/hpcbench/objstore/store/storetest"
)

// TestStoreConformance runs the object API's suite over routers of
// engines' stores on disk, of several targets each: their arrays'
// extents are files, so a member's end and holes are the store's.
func TestStoreConformance(t *testing.T) {
	for _, targets := range [][]int{{1, 1}, {2, 3}} {
		t.Run(fmt.Sprintf("targets=%v", targets), func(t *testing.T) {
			objecttest.Run(t, func(t *testing.T, props object.ContProps) object.Container {
				members := make([]router.Member, len(targets))
				for m, n := range targets {
					p := storetest.Pool(t, n, store.Options{})
					members[m] = router.Member{Pool: p, Host: fmt.Sprintf("h%d", m), Targets: n}
				}
				r, err := router.New(members)
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				if err := r.CreateCont(ctx, "c", props); err != nil {
					t.Fatal(err)
				}
				c, err := r.OpenCont(ctx, "c")
				if err != nil {
					t.Fatal(err)
				}
				return c
			})
		})
	}
}
