package storetest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/objstore/store"
)

// Dir creates a pool of n targets in a new temporary directory of t and
// returns the pool's directory.
func Dir(t testing.TB, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pool")
	if err := store.Create(dir, store.CreateOptions{NTargets: n}); err != nil {
		t.Fatalf("create a store pool of %d targets: %v", n, err)
	}
	return dir
}

// Pool creates a pool of n targets in a new temporary directory of t,
// opens it with o, and closes it when t ends (failing t if Close fails).
func Pool(t testing.TB, n int, o store.Options) *store.Pool {
	t.Helper()
	dir := Dir(t, n)
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

// Hold holds the pool in dir, as a job's engine does (it publishes no
// addresses), and lets go after d; the channel reports the release.
func Hold(t testing.TB, dir string, d time.Duration) <-chan error {
	t.Helper()
	holder, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan error, 1)
	timer := time.AfterFunc(d, func() { released <- holder.Close() })
	t.Cleanup(func() {
		if timer.Stop() {
			holder.Close()
		}
	})
	return released
}
