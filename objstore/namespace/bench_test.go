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
			benchEach(b, benchFiles(b, f), func(p string) error {
				_, err := f.Create(context.Background(), p, 0o644, Excl)
				return err
			})
		})
	}
}

// BenchmarkCreateDeep creates files three directories down, by path and
// through a Dir (which walks nothing).
func BenchmarkCreateDeep(b *testing.B) {
	ctx := context.Background()
	for _, via := range []string{"path", "Dir"} {
		b.Run(via, func(b *testing.B) {
			f := newFS(b, Options{})
			if err := f.MkdirAll(ctx, "/x/y/z", 0o755); err != nil {
				b.Fatal(err)
			}
			d, err := f.OpenDir(ctx, "/x/y/z")
			if err != nil {
				b.Fatal(err)
			}
			names := make([]string, b.N)
			for i := range names {
				names[i] = fmt.Sprintf("file.%08d", i)
			}
			benchEach(b, names, func(name string) error {
				var err error
				if via == "Dir" {
					_, err = d.Create(ctx, name, 0o644, Excl)
				} else {
					_, err = f.Create(ctx, "/x/y/z/"+name, 0o644, Excl)
				}
				return err
			})
		})
	}
}

// benchCreated returns the paths of b.N files it creates in /bench.
func benchCreated(b *testing.B, f *FS) []string {
	b.Helper()
	paths := benchFiles(b, f)
	for _, p := range paths {
		if _, err := f.Create(context.Background(), p, 0o644, Excl); err != nil {
			b.Fatal(err)
		}
	}
	return paths
}

// benchEach times op on each of b.N paths.
func benchEach(b *testing.B, paths []string, op func(p string) error) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := op(paths[i]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStat(b *testing.B) {
	f := newFS(b, Options{})
	benchEach(b, benchCreated(b, f), func(p string) error {
		_, err := f.Stat(context.Background(), p)
		return err
	})
}

func BenchmarkRemove(b *testing.B) {
	f := newFS(b, Options{})
	benchEach(b, benchCreated(b, f), func(p string) error { return f.Remove(context.Background(), p) })
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
