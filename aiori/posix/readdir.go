package posix

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ReadDir lists directory path (aiori.Lister), a batch of entries at a
// time, each entry's kind from the directory itself (d_type): no stat.
func (b *Backend) ReadDir(path string, fn func(name string, dir bool)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("posix: readdir %s: %w", path, err)
	}
	defer f.Close()
	for {
		ents, err := f.ReadDir(4096)
		for _, e := range ents {
			fn(e.Name(), e.IsDir())
		}
		if errors.Is(err, io.EOF) || (err == nil && len(ents) == 0) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("posix: readdir %s: %w", path, err)
		}
	}
}
