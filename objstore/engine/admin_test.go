package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/objstore/store/storetest"
)

// TestAdminPoolWaitsForJobEngine: while a holder that published no
// addresses (a job's engine) has the pool, management waits for it to go
// and then opens the pool; one that stays past the wait is refused, named
// as a job's engine.
func TestAdminPoolWaitsForJobEngine(t *testing.T) {
	dir := storetest.Dir(t, 2)
	storetest.Hold(t, dir, time.Hour)
	if _, _, err := adminPool(context.Background(), dir, 100*time.Millisecond); err == nil || !strings.Contains(err.Error(), "in use by a job's engine") {
		t.Errorf("held past the wait: %v; want a refusal naming a job's engine", err)
	}

	dir = storetest.Dir(t, 2)
	released := storetest.Hold(t, dir, 300*time.Millisecond)
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
