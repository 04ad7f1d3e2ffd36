package dfs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/objstore/store"
)

// holdFor holds the pool in dir, as a job's engine does (no addresses
// published), and lets go after d; the channel reports the release.
func holdFor(t *testing.T, dir string, d time.Duration) <-chan error {
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

// TestAdminPoolWaitsForJobEngine: while a holder that published no
// addresses (a job's engine) has the pool, management waits for it to go
// and then opens the pool; one that stays past the wait is refused, named
// as a job's engine.
func TestAdminPoolWaitsForJobEngine(t *testing.T) {
	dir := newPoolDir(t)
	holdFor(t, dir, time.Hour)
	if _, _, err := adminPool(context.Background(), dir, 100*time.Millisecond); err == nil || !strings.Contains(err.Error(), "in use by a job's engine") {
		t.Errorf("held past the wait: %v; want a refusal naming a job's engine", err)
	}

	dir = newPoolDir(t)
	released := holdFor(t, dir, 300*time.Millisecond)
	start := time.Now()
	p, closeP, err := adminPool(context.Background(), dir, 10*time.Second)
	if err != nil {
		t.Fatalf("after the holder went: %v", err)
	}
	defer closeP()
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 250*time.Millisecond {
		t.Errorf("opened after %v, before the holder went", waited)
	}
	if _, err := p.Query(context.Background()); err != nil {
		t.Errorf("query: %v", err)
	}
}

// TestLocateWaitsForJobEngine: a job whose pool another job's engine
// still holds (its job just ended) waits for it to go and starts its own.
func TestLocateWaitsForJobEngine(t *testing.T) {
	dir := newPoolDir(t)
	released := holdFor(t, dir, 300*time.Millisecond)
	s := &session{opts: &Options{Pool: dir}}
	info, err := s.locate(t.Context(), "node0")
	if err != nil {
		t.Fatalf("locate: %v", err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if s.engine == nil || !strings.Contains(info.where, "started by rank 0") {
		t.Errorf("locate: engine %v, where %q; want one this rank started", s.engine, info.where)
	}
	if s.engine != nil {
		if err := s.engine.close(); err != nil {
			t.Error(err)
		}
	}
}
