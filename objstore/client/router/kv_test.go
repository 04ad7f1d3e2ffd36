package router_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// recordOwner returns the member that holds oid's records under dkey, by
// the package doc's rule, with the standard library's FNV-1a.
func recordOwner(targets []int, oid object.OID, dkey string) int {
	w := oid.Class().Width(sum(targets))
	if w <= 1 {
		return chunkOwner(targets, oid, 0)
	}
	h := fnv.New64a()
	h.Write([]byte(dkey))
	return chunkOwner(targets, oid, int64(h.Sum64()%uint64(w)))
}

// TestKVPlacement puts records through the router and checks, in each
// member's own container, that every dkey is on the member the package doc
// names and on no other, and that they spread over every member of the
// object's stripe: one for S1, every member for SX.
func TestKVPlacement(t *testing.T) {
	ctx := context.Background()
	targets := []int{1, 2, 1}
	pools, _, c := newCont(t, object.ContProps{}, targets...)
	for _, class := range []object.Class{object.S1, object.S2, object.SX} {
		t.Run(class.String(), func(t *testing.T) {
			oid, err := c.AllocOIDs(ctx, class, 1)
			if err != nil {
				t.Fatal(err)
			}
			stripe := map[int]bool{} // the members of the object's stripe
			for k := range class.Width(sum(targets)) {
				stripe[chunkOwner(targets, oid, int64(k))] = true
			}
			const n = 200
			for i := range n {
				if err := c.Put(ctx, oid, fmt.Sprintf("entry-%d", i), "a", []byte{byte(i)}); err != nil {
					t.Fatal(err)
				}
			}
			held := map[int]int{}
			for i := range n {
				dkey := fmt.Sprintf("entry-%d", i)
				want := recordOwner(targets, oid, dkey)
				for m, p := range pools {
					v, err := memberCont(t, p).Get(ctx, oid, dkey, "a")
					switch {
					case m == want && (err != nil || len(v) != 1 || v[0] != byte(i)):
						t.Errorf("%s: member %d should hold it: %v, %v", dkey, m, v, err)
					case m != want && !object.IsNotExist(err):
						t.Errorf("%s: member %d holds it (%v, %v); only member %d should", dkey, m, v, err, want)
					case m == want:
						held[m]++
					}
				}
			}
			if len(held) != len(stripe) {
				t.Errorf("records on %d members (%v); want them spread over the %d of the stripe", len(held), held, len(stripe))
			}
		})
	}
}

// TestListSpread lists a wide KV object's dkeys through the router in pages
// of every size and at once: each dkey comes exactly once, from every
// member, and an anchor no listing returned is refused.
func TestListSpread(t *testing.T) {
	ctx := context.Background()
	_, _, c := newCont(t, object.ContProps{}, 1, 2, 1)
	oid, err := c.AllocOIDs(ctx, object.SX, 1)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 50 {
		k := fmt.Sprintf("e%02d", i)
		want = append(want, k)
		if err := c.Insert(ctx, oid, k, "a", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	for _, max := range []int{0, 1, 7, 49, 50, 64} {
		var got []string
		anchor, pages := "", 0
		for {
			keys, next, err := c.List(ctx, oid, anchor, max)
			if err != nil {
				t.Fatalf("max %d, anchor %q: %v", max, anchor, err)
			}
			if max > 0 && len(keys) > max {
				t.Errorf("max %d: a page of %d", max, len(keys))
			}
			got, anchor, pages = append(got, keys...), next, pages+1
			if anchor == "" || pages > 100 {
				break
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("max %d: listed %d keys %q; want each of the %d once", max, len(got), got, len(want))
		}
	}
	for _, bad := range []string{"x", "9:", "-1:a", ":"} {
		if _, _, err := c.List(ctx, oid, bad, 5); !errors.Is(err, object.ErrInvalid) {
			t.Errorf("List from anchor %q: %v; want ErrInvalid", bad, err)
		}
	}
}
