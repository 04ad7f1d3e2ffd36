package dfs

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/aioritest"
)

// TestConformance runs the aiori suite against the DFS backend of a job of
// one rank: its embedded engine (made on first use of the pool), the RPC
// over shm, the namespace and the store's targets.
func TestConformance(t *testing.T) {
	pool := filepath.Join(t.TempDir(), "pool")
	ctx := t.Context() // the engine lives until the case's Close, after its own Context ends
	var n atomic.Int64
	var last *Backend
	aioritest.Run(t, func(t *testing.T) aiori.Backend {
		o := DefaultOptions()
		o.Pool, o.Cont, o.ChunkSize = pool, "conformance", 64<<10
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		b, err := New(o, aiori.Env{Rank: 0, Size: 1, Context: ctx})
		if err != nil {
			t.Fatal(err)
		}
		last = b.(*Backend)
		return b
	}, func(t *testing.T) string {
		d := fmt.Sprintf("/case%d", n.Add(1))
		if err := last.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}, aioritest.Caps{StoresData: true, Metadata: true, Direct: aioritest.ProbeDirect(filepath.Dir(pool)) == nil})
}
