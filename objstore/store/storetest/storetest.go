package storetest

import (
	"path/filepath"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/store"
)

// Pool creates a pool of n targets in a new temporary directory of t,
// opens it with o, and closes it when t ends (failing t if Close fails).
func Pool(t testing.TB, n int, o store.Options) *store.Pool {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pool")
	if err := store.Create(dir, store.CreateOptions{NTargets: n}); err != nil {
		t.Fatalf("create a store pool of %d targets: %v", n, err)
	}
	p, err := store.Open(dir, o)
	if err != nil {
		t.Fatalf("open the store pool in %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("close the store pool in %s: %v", dir, err)
		}
	})
	return p
}
