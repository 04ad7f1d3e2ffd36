package dfs

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/aiori/dfs/store"
)

// TestAdminPoolWaitsForJobEngine: while a holder that published no
// addresses (a job's engine) has the pool, management waits for it to go
// and then opens the pool; one that stays past the wait is refused, named
// as a job's engine.
func TestAdminPoolWaitsForJobEngine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pool")
	if err := store.Create(dir, store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	holder, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = adminPool(context.Background(), dir, 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "in use by a job's engine") {
		t.Errorf("held past the wait: %v; want a refusal naming a job's engine", err)
	}
	released := make(chan error, 1)
	timer := time.AfterFunc(300*time.Millisecond, func() { released <- holder.Close() })
	defer timer.Stop()
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
