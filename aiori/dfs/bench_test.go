package dfs

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
)

// newBenchBackend is a backend of one rank over a fresh pool in a temp
// directory, its engine in this process (as rank 0's is).
func newBenchBackend(b *testing.B) *Backend {
	b.Helper()
	o := DefaultOptions()
	o.Pool, o.Cont = filepath.Join(b.TempDir(), "pool"), "bench"
	be, err := New(o, aiori.Env{Rank: 0, Size: 1, Context: b.Context()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { be.Close() })
	return be.(*Backend)
}

// BenchmarkMetadata measures mdtest's file operations through the whole
// client → engine path: create (an empty file, as mdtest -F without -w),
// stat and remove, three directories down as mdtest's tree puts them.
func BenchmarkMetadata(b *testing.B) {
	be := newBenchBackend(b)
	dir := "/md"
	for _, d := range []string{"/md", "/md/test-dir.0", "/md/test-dir.0/tree.0"} {
		if err := be.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
		dir = d
	}
	const n = 2000
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s/file.%d", dir, i)
	}
	b.Run("create", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if i%n == 0 && i > 0 {
				b.StopTimer()
				for _, p := range names {
					be.Remove(p)
				}
				b.StartTimer()
			}
			if err := be.Mknod(names[i%n]); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, p := range names {
		be.Mknod(p)
	}
	b.Run("stat", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := be.Stat(names[i%n]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("remove+create", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := be.Remove(names[i%n]); err != nil {
				b.Fatal(err)
			}
			if err := be.Mknod(names[i%n]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
