package posix

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestPathOps checks Remove, Access and FileSize, and that their errors
// begin with the name of the backend that embeds them.
func TestPathOps(t *testing.T) {
	for _, name := range []string{"posix", "mmap"} {
		t.Run(name, func(t *testing.T) {
			p := NewPathOps(name)
			dir := t.TempDir()
			path, missing := filepath.Join(dir, "f"), filepath.Join(dir, "missing")
			if err := os.WriteFile(path, make([]byte, 5), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := p.Access(path); err != nil {
				t.Errorf("Access(existing) = %v", err)
			}
			if n, err := p.FileSize(path); n != 5 || err != nil {
				t.Errorf("FileSize(existing) = %d, %v; want 5, nil", n, err)
			}
			if err := p.Remove(path); err != nil {
				t.Errorf("Remove(existing) = %v", err)
			}
			_, sizeErr := p.FileSize(missing)
			for _, c := range []struct {
				call string
				err  error
			}{
				{"access", p.Access(missing)},
				{"stat", sizeErr},
				{"remove", p.Remove(missing)},
			} {
				want := name + ": " + c.call + " " + missing + ": no such file or directory"
				if c.err == nil || c.err.Error() != want || !errors.Is(c.err, fs.ErrNotExist) {
					t.Errorf("%s of a missing path = %v; want %q matching fs.ErrNotExist", c.call, c.err, want)
				}
			}
		})
	}
}
