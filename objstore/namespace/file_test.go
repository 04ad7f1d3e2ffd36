package namespace

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// The tests' files have 4 KiB chunks (newFS's container default).
const chunk = 4096

// pattern returns n bytes that differ with their offset from off.
func pattern(off int64, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((off+int64(i))%251 + 1)
	}
	return b
}

func TestFileIO(t *testing.T) {
	type write struct {
		off int64
		n   int
	}
	cases := []struct {
		name   string
		writes []write
		trunc  int64 // >= 0: truncate to this after the writes
		size   int64
	}{
		{"within a chunk", []write{{10, 100}}, -1, 110},
		{"across a chunk boundary", []write{{chunk - 5, 10}}, -1, chunk + 5},
		{"across several chunks", []write{{100, 3*chunk + 7}}, -1, 3*chunk + 107},
		{"a hole between", []write{{0, 10}, {5 * chunk, 10}}, -1, 5*chunk + 10},
		{"a hole first", []write{{2*chunk + 1, 3}}, -1, 2*chunk + 4},
		{"overwrite", []write{{0, 2 * chunk}, {chunk - 1, 2}}, -1, 2 * chunk},
		{"truncate down", []write{{0, 3 * chunk}}, chunk + 1, chunk + 1},
		{"truncate up", []write{{0, 10}}, 2 * chunk, 2 * chunk},
		{"truncate to 0", []write{{0, 10}}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			f := newFS(t, Options{})
			fl, err := f.Create(ctx, "/f", 0o644, Excl)
			must(t, err)
			want := []byte{}
			for _, w := range c.writes {
				n, err := fl.WriteAt(ctx, pattern(w.off, w.n), w.off)
				if err != nil || n != w.n {
					t.Fatalf("write %d at %d: %d, %v", w.n, w.off, n, err)
				}
				if end := w.off + int64(w.n); end > int64(len(want)) {
					want = append(want, make([]byte, end-int64(len(want)))...)
				}
				copy(want[w.off:], pattern(w.off, w.n))
			}
			if c.trunc >= 0 {
				must(t, fl.Truncate(ctx, c.trunc))
				want = append(want, make([]byte, max(0, c.trunc-int64(len(want))))...)[:c.trunc]
			}
			must(t, fl.Sync(ctx))
			info, err := f.Stat(ctx, "/f")
			must(t, err)
			if size, err := fl.Size(ctx); err != nil || size != c.size || info.Size != c.size {
				t.Errorf("size %d (stat %d), %v; want %d", size, info.Size, err, c.size)
			}
			// Read it all back through another rank's handle, a buffer
			// longer than the file: the tail comes with io.EOF.
			other, err := f.OpenHandle(fl.Handle())
			must(t, err)
			got := make([]byte, c.size+chunk)
			n, err := other.ReadAt(ctx, got, 0)
			if int64(n) != c.size || !errors.Is(err, io.EOF) {
				t.Errorf("read: %d, %v; want %d, io.EOF", n, err, c.size)
			}
			if !bytes.Equal(got[:n], want) {
				t.Errorf("read back differs from what was written")
			}
			if n, err := other.ReadAt(ctx, make([]byte, 1), c.size); n != 0 || err != io.EOF {
				t.Errorf("read at the end: %d, %v; want 0, io.EOF", n, err)
			}
			must(t, other.Close())
			must(t, fl.Close())
		})
	}
}

func TestOpenTrunc(t *testing.T) {
	ctx := context.Background()
	f := newFS(t, Options{})
	fl, err := f.Create(ctx, "/f", 0o644, Excl)
	must(t, err)
	_, err = fl.WriteAt(ctx, pattern(0, 100), 0)
	must(t, err)
	for _, c := range []struct {
		name string
		open func() (*File, error)
		size int64
	}{
		{"open", func() (*File, error) { return f.Open(ctx, "/f", ReadOnly) }, 100},
		{"create, existing", func() (*File, error) { return f.Create(ctx, "/f", 0o644, 0) }, 100},
		{"create with Trunc", func() (*File, error) { return f.Create(ctx, "/f", 0o644, Trunc) }, 0},
	} {
		g, err := c.open()
		must(t, err)
		if g.OID() != fl.OID() {
			t.Errorf("%s: object %v, want %v", c.name, g.OID(), fl.OID())
		}
		if n, err := g.Size(ctx); err != nil || n != c.size {
			t.Errorf("%s: size %d, %v; want %d", c.name, n, err, c.size)
		}
	}
}

func TestHandle(t *testing.T) {
	f := newFS(t, Options{})
	fl, err := f.Create(context.Background(), "/f", 0o644, Excl|Direct)
	must(t, err)
	b := fl.Handle()
	g, err := f.OpenHandle(b)
	must(t, err)
	if *g != *fl {
		t.Errorf("handle round trip: %+v, want %+v", *g, *fl)
	}
	bad := map[string][]byte{
		"empty":      nil,
		"magic":      append([]byte("XFSH"), b[4:]...),
		"version":    append(append(append([]byte(nil), b[:4]...), 9), b[5:]...),
		"flags":      append(append(append([]byte(nil), b[:5]...), 0xff), b[6:]...),
		"chunk size": append(append([]byte(nil), b[:22]...), 1, 0, 0, 0, 0, 0, 0, 0),
		"class":      append(append(append([]byte(nil), b[:12]...), 3, 0), b[14:]...),
	}
	for name, h := range bad {
		if _, err := f.OpenHandle(h); !errors.Is(err, object.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

func FuzzOpenHandle(f *testing.F) {
	fs := newFS(f, Options{})
	fl, err := fs.Create(context.Background(), "/f", 0o644, Excl)
	must(f, err)
	f.Add(fl.Handle())
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := fs.OpenHandle(b)
		if err != nil {
			return
		}
		if h := g.Handle(); !bytes.Equal(h, b) {
			t.Fatalf("handle %x re-encodes to %x", b, h)
		}
	})
}
