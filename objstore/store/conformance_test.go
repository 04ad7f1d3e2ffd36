package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/objecttest"
)

// makePool creates a pool of n targets holding containers with labels
// (default props) in a new temporary directory, and returns its directory.
func makePool(t testing.TB, n int, labels ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pool")
	if err := Create(dir, CreateOptions{NTargets: n}); err != nil {
		t.Fatal(err)
	}
	if len(labels) == 0 {
		return dir
	}
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, l := range labels {
		if err := p.CreateCont(context.Background(), l, object.ContProps{}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// newPool creates a pool of n targets in a new temporary directory and
// opens it; the test's cleanup closes it.
func newPool(t testing.TB, n int, o Options) *Pool {
	t.Helper()
	p, err := Open(makePool(t, n), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Pool.Close: %v", err)
		}
	})
	return p
}

// newCont creates and opens a container with props in p.
func newCont(t testing.TB, p *Pool, label string, props object.ContProps) *Container {
	t.Helper()
	ctx := context.Background()
	if err := p.CreateCont(ctx, label, props); err != nil {
		t.Fatal(err)
	}
	c, err := p.OpenContainer(ctx, label)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		o    Options
	}{
		{"4 targets", 4, Options{}},
		{"1 target", 1, Options{}},
		{"3 targets, SyncKV, 2 open files", 3, Options{SyncKV: true, MaxOpenFiles: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objecttest.Run(t, func(t *testing.T, props object.ContProps) object.Container {
				return newCont(t, newPool(t, tc.n, tc.o), "c", props)
			})
		})
	}
}
