package posix

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// dirent lays out one linux_dirent64 of name and type, padded to 8 bytes.
func dirent(name string, typ uint8) []byte {
	n := (19 + len(name) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint16(b[16:], uint16(n))
	b[18] = typ
	copy(b[19:], name)
	return b
}

func TestParseDirents(t *testing.T) {
	var b []byte
	for _, d := range []struct {
		name string
		typ  uint8
	}{{".", unix.DT_DIR}, {"..", unix.DT_DIR}, {"file.01", unix.DT_REG}, {"sub", unix.DT_DIR}, {"x", unix.DT_UNKNOWN}} {
		b = append(b, dirent(d.name, d.typ)...)
	}
	var got []string
	if err := parseDirents(b, func(name []byte, typ uint8) error {
		got = append(got, string(name)+":"+string(rune('0'+typ)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"file.01:" + string(rune('0'+unix.DT_REG)), "sub:" + string(rune('0'+unix.DT_DIR)), "x:" + string(rune('0'+unix.DT_UNKNOWN))}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range [][]byte{b[:10], append(dirent("a", 0)[:16], 0xff, 0xff, 0)} {
		if err := parseDirents(bad, func([]byte, uint8) error { return nil }); err == nil {
			t.Errorf("%x: no error", bad)
		}
	}
}

// TestReadDirLarge lists a directory larger than one getdents buffer.
func TestReadDirLarge(t *testing.T) {
	dir := t.TempDir()
	const n = 3000
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, "file.mdtest.0."+strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := &Backend{}
	files, dirs := 0, 0
	if err := b.ReadDir(dir, func(_ []byte, d bool) {
		if d {
			dirs++
		} else {
			files++
		}
	}); err != nil {
		t.Fatal(err)
	}
	if files != n || dirs != 1 {
		t.Errorf("%d files and %d dirs, want %d and 1", files, dirs, n)
	}
}

func FuzzParseDirents(f *testing.F) {
	f.Add(append(dirent("file.01", unix.DT_REG), dirent("d", unix.DT_DIR)...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		total := 0
		_ = parseDirents(b, func(name []byte, _ uint8) error {
			total += len(name)
			return nil
		})
		if total > len(b) {
			t.Fatalf("names of %d bytes from %d", total, len(b))
		}
	})
}
