package dummy

import (
	"testing"
	"unsafe"
)

// TestItemsKeepNothing: mdtest's item calls leave no record behind, and a
// size recorded through a File or moved by Rename is kept under a copy of
// the path, so that a caller reusing the bytes of its paths (mdtest's
// runner) cannot change a recorded path.
func TestItemsKeepNothing(t *testing.T) {
	b := newTestBackend(t, Options{}, 0)
	buf := make([]byte, 16)
	for _, p := range []string{"d/file.mdtest.0.0", "d/file.mdtest.0.1"} {
		if err := b.CreateItem(p, buf); err != nil {
			t.Fatal(err)
		}
		if n, err := b.ReadItem(p, buf); n != len(buf) || err != nil {
			t.Fatalf("ReadItem(%s) = %d, %v; want %d, nil", p, n, err, len(buf))
		}
		if err := b.StatItem(p); err != nil {
			t.Fatal(err)
		}
		if err := b.Mknod(p + ".node"); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(b.sizes); n != 0 {
		t.Errorf("after item calls the backend remembers %d paths; want none", n)
	}

	name := []byte("a")
	f, err := b.Create(string(name), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	to := []byte("b") // passed as a view, as mdtest's runner passes it
	if err := b.Rename("a", unsafe.String(&to[0], len(to))); err != nil {
		t.Fatal(err)
	}
	to[0] = 'c' // the caller's bytes change; the record does not
	if got, _ := b.FileSize("b"); got != int64(len(buf)) {
		t.Errorf("FileSize(b) after the rename = %d; want %d", got, len(buf))
	}
}
