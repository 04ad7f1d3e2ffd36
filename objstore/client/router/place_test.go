package router_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

const cs = 4096 // the tests' chunk size

// TestPlacement writes arrays through the router and checks, in each
// member's own container, that a member holds exactly the chunks k whose
// Placement(oid, k, N) it owns, one after the other in their global order
// (its extent files dense), and that an S1 object is whole on its home
// member.
func TestPlacement(t *testing.T) {
	ctx := context.Background()
	for _, targets := range [][]int{{1, 1, 1}, {3, 2}, {1, 2, 1}} {
		t.Run(fmt.Sprintf("targets=%v", targets), func(t *testing.T) {
			pools, _, c := newCont(t, object.ContProps{ChunkSize: cs}, targets...)
			for _, class := range []object.Class{object.SX, object.S2, object.S1} {
				oid, err := c.AllocOIDs(ctx, class, 1)
				if err != nil {
					t.Fatal(err)
				}
				a := object.Array{OID: oid, ChunkSize: cs}
				const chunks = 24
				if err := c.WriteArray(ctx, a, 0, pattern(0, chunks*cs), 0); err != nil {
					t.Fatal(err)
				}
				// Each member's own array is its chunks, in their
				// global order, with nothing between them.
				holders := map[int]bool{}
				for m, p := range pools {
					var want []byte
					for k := range int64(chunks) {
						if chunkOwner(targets, oid, k) == m {
							want = append(want, pattern(k*cs, cs)...)
						}
					}
					mc := memberCont(t, p)
					size, err := mc.ArraySize(ctx, a)
					if err != nil || size != int64(len(want)) {
						t.Errorf("%v: member %d's array has %d bytes, %v; want its %d chunks, dense", class, m, size, err, len(want)/cs)
						continue
					}
					got := make([]byte, len(want))
					if _, err := mc.ReadArray(ctx, a, 0, got, 0); err != nil && err != io.EOF {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%v: member %d's array is not its chunks in order", class, m)
					}
					if len(want) > 0 {
						holders[m] = true
					}
				}
				switch {
				case class == object.S1 && len(holders) != 1:
					t.Errorf("S1 object on members %v; want one", holders)
				case class == object.SX && len(holders) != len(targets):
					t.Errorf("SX object on members %v; want all %d", holders, len(targets))
				}
			}
		})
	}
}
