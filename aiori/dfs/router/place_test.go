package router_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/hpcbench/hpcbench/aiori/dfs/object"
)

const cs = 4096 // the tests' chunk size

// TestPlacement writes arrays through the router and checks, in each
// member's own container, that chunk k is on the member owning
// Placement(oid, k, N) and on no other, and that an S1 object is whole on
// its home member.
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
				holders := map[int]bool{}
				for m, p := range pools {
					mc := memberCont(t, p)
					for k := range int64(chunks) {
						got := make([]byte, cs)
						if _, err := mc.ReadArray(ctx, a, k*cs, got, 0); err != nil && err != io.EOF {
							t.Fatal(err)
						}
						switch on := chunkOwner(targets, oid, k); {
						case on == m && !bytes.Equal(got, pattern(k*cs, cs)):
							t.Errorf("%v chunk %d: not on its member %d", class, k, m)
						case on != m && !bytes.Equal(got, make([]byte, cs)):
							t.Errorf("%v chunk %d: on member %d too; it belongs on %d", class, k, m, on)
						case on == m:
							holders[m] = true
						}
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
