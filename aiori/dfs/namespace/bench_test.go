package namespace

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
)

// benchFiles creates b.N files in /bench and returns their paths.
func benchFiles(b *testing.B, f *FS) []string {
	b.Helper()
	ctx := context.Background()
	if err := f.MkdirAll(ctx, "/bench", 0o755); err != nil {
		b.Fatal(err)
	}
	paths := make([]string, b.N)
	for i := range paths {
		paths[i] = fmt.Sprintf("/bench/file.%08d", i)
	}
	return paths
}

func BenchmarkCreate(b *testing.B) {
	for _, cache := range []bool{false, true} {
		b.Run(fmt.Sprintf("cache=%v", cache), func(b *testing.B) {
			f := newFS(b, Options{DirCache: cache})
			paths := benchFiles(b, f)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if _, err := f.Create(ctx, paths[i], 0o644, Excl); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkStat(b *testing.B) {
	f := newFS(b, Options{})
	paths := benchFiles(b, f)
	ctx := context.Background()
	for _, p := range paths {
		if _, err := f.Create(ctx, p, 0o644, Excl); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := f.Stat(ctx, paths[i]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRemove(b *testing.B) {
	f := newFS(b, Options{})
	paths := benchFiles(b, f)
	ctx := context.Background()
	for _, p := range paths {
		if _, err := f.Create(ctx, p, 0o644, Excl); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := f.Remove(ctx, paths[i]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCreateParallel(b *testing.B) {
	f := newFS(b, Options{})
	ctx := context.Background()
	if err := f.Mkdir(ctx, "/bench", 0o755); err != nil {
		b.Fatal(err)
	}
	var seq atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := seq.Add(1)
			if _, err := f.Create(ctx, fmt.Sprintf("/bench/f.%d", i), 0o644, Excl); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
