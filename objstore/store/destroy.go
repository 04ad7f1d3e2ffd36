package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Destroy removes the pool in dir: each target (only if its target.json
// says it is this pool's; a missing one is skipped, so a Destroy cut short
// can be run again), then dir. It refuses while an engine has the pool
// open. A pool of an earlier schema version, which Open refuses, is
// removed all the same: that is what its refusal asks the user to do.
func Destroy(dir string) error {
	if err := destroy(dir); err != nil {
		return fmt.Errorf("destroy pool %s: %w", dir, err)
	}
	return nil
}

func destroy(dir string) error {
	meta, err := readPoolMetaFrom(dir, 1)
	if err != nil {
		return err
	}
	lock, err := lockPool(dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	var paths []string
	for i, t := range meta.Targets {
		path := targetPath(dir, t)
		err := checkTargetMeta(path, meta.UUID, i)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		paths = append(paths, path)
	}
	for _, path := range paths {
		if err := os.RemoveAll(path); err != nil {
			return err
		}
	}
	// pool.json last but one: until it goes, Destroy can be run again.
	if err := os.RemoveAll(filepath.Join(dir, contDir)); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, poolFile)); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}
