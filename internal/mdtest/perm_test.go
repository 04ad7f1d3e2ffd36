package mdtest

import (
	"testing"
)

// TestPermutation: -R's order is a permutation of 0..n-1 for every n, the
// same for the same seed and owner, and another for another seed or
// owner.
func TestPermutation(t *testing.T) {
	for _, n := range []int64{1, 2, 3, 4, 5, 7, 10, 16, 17, 100, 1000, 4097} {
		order := func(seed, stream uint64) []int64 {
			p := newPermutation(n, seed, stream)
			out := make([]int64, n)
			seen := make([]bool, n)
			for i := range n {
				v := p.at(i)
				if v < 0 || v >= n || seen[v] {
					t.Fatalf("n %d: place %d holds %d: out of range or twice", n, i, v)
				}
				seen[v], out[i] = true, v
			}
			return out
		}
		a, b := order(42, 3), order(42, 3)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("n %d: two orders of one seed differ at place %d", n, i)
			}
		}
		if n < 100 {
			continue
		}
		// A random order leaves few items in place, and orders of other
		// seeds or owners differ in most places.
		same := func(x, y []int64) (k int) {
			for i := range x {
				if x[i] == y[i] {
					k++
				}
			}
			return k
		}
		ident := make([]int64, n)
		for i := range ident {
			ident[i] = int64(i)
		}
		for _, other := range [][]int64{ident, order(43, 3), order(42, 4)} {
			if k := same(a, other); k > int(n/10) {
				t.Errorf("n %d: %d of %d places alike between two orders; want few", n, k, n)
			}
		}
	}
}
