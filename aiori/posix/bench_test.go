package posix

import (
	"golang.org/x/sys/unix"
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

// BenchmarkItem measures mdtest's per-item calls on a file of the
// temporary directory (tmpfs or a disk: the kernel's cost is the floor),
// each next to the bare system calls it makes, so the difference is the
// backend's own cost per item.
func BenchmarkItem(b *testing.B) {
	be, err := New(DefaultOptions(), aiori.Env{})
	if err != nil {
		b.Fatal(err)
	}
	pb := be.(*Backend)
	path := filepath.Join(b.TempDir(), "file.mdtest.0.0")
	data := aiori.AlignedBuffer(4096)
	if err := pb.CreateItem(path, data); err != nil {
		b.Fatal(err)
	}
	var st unix.Stat_t
	b.Run("Stat", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := pb.Stat(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("StatSyscall", func(b *testing.B) {
		for b.Loop() {
			if err := unix.Stat(path, &st); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ReadItem", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := pb.ReadItem(path, data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ReadSyscalls", func(b *testing.B) {
		for b.Loop() {
			fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := unix.Pread(fd, data, 0); err != nil {
				b.Fatal(err)
			}
			unix.Close(fd)
		}
	})
	b.Run("CreateItem", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := pb.CreateItem(path, data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CreateSyscalls", func(b *testing.B) {
		for b.Loop() {
			fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o664)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := unix.Pwrite(fd, data, 0); err != nil {
				b.Fatal(err)
			}
			unix.Close(fd)
		}
	})
}
