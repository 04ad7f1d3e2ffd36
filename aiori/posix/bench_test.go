package posix

import (
	"path/filepath"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
)

// benchSpan is how far the benchmarks' offsets go before wrapping round,
// so that a long run reuses a file of bounded size in the page cache.
const benchSpan = 64 << 20

var benchSizes = []struct {
	name string
	size int
}{
	{"4KiB", 4 << 10},
	{"1MiB", 1 << 20},
}

// BenchmarkWriteAt measures WriteAt of 4 KiB and 1 MiB at sequential
// offsets of a temporary file (page-cached; no fsync).
func BenchmarkWriteAt(b *testing.B) {
	for _, bs := range benchSizes {
		b.Run(bs.name, func(b *testing.B) {
			f := benchFile(b, 0)
			buf := make([]byte, bs.size)
			b.SetBytes(int64(bs.size))
			b.ReportAllocs()
			var off int64
			for b.Loop() {
				if _, err := f.WriteAt(buf, off); err != nil {
					b.Fatal(err)
				}
				off = (off + int64(bs.size)) % benchSpan
			}
		})
	}
}

// BenchmarkReadAt measures ReadAt of 4 KiB and 1 MiB at sequential
// offsets of a temporary file written beforehand (so reads come from the
// page cache).
func BenchmarkReadAt(b *testing.B) {
	for _, bs := range benchSizes {
		b.Run(bs.name, func(b *testing.B) {
			f := benchFile(b, benchSpan)
			buf := make([]byte, bs.size)
			b.SetBytes(int64(bs.size))
			b.ReportAllocs()
			var off int64
			for b.Loop() {
				if _, err := f.ReadAt(buf, off); err != nil {
					b.Fatal(err)
				}
				off = (off + int64(bs.size)) % benchSpan
			}
		})
	}
}

// benchFile creates a temporary file holding size bytes, closed when b
// ends.
func benchFile(b *testing.B, size int) aiori.File {
	b.Helper()
	be, err := New(DefaultOptions(), aiori.Env{})
	if err != nil {
		b.Fatal(err)
	}
	f, err := be.Create(filepath.Join(b.TempDir(), "bench"), aiori.ReadWrite)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	chunk := make([]byte, 1<<20)
	for off := 0; off < size; off += len(chunk) {
		if _, err := f.WriteAt(chunk, int64(off)); err != nil {
			b.Fatal(err)
		}
	}
	return f
}
