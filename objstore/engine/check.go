package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/store"
)

// CheckSchema says, in one line, why this build cannot open the pool in
// dir for its pool.json: one of another schema version (a pool made by an
// earlier hpcbench) or a damaged one. A dir without pool.json passes (the
// pool made on first use; CheckPool has the say there).
func CheckSchema(dir string) error {
	if err := store.Check(dir); err != nil && !errors.Is(err, object.ErrNotExist) {
		return fmt.Errorf("pool %s: %w", dir, err)
	}
	return nil
}

// CheckPool says, in one line, why dir holds no pool. With firstUse a
// directory that does not exist yet, in one that does, passes: the job
// makes the pool there (store.Create refuses what is not writable, before
// it makes anything).
func CheckPool(dir string, firstUse bool) error {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		if _, err := os.Stat(filepath.Join(dir, "pool.json")); err == nil {
			return nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("pool %s: %w", dir, err)
		}
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && firstUse:
		parent := filepath.Dir(dir)
		if pst, perr := os.Stat(parent); perr != nil || !pst.IsDir() {
			return fmt.Errorf("pool %s: no such pool, and its parent %s is not a directory to make one in", dir, parent)
		}
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("pool %s: no such directory (make a pool with hpcbench dfs pool create %s)", dir, dir)
	case err != nil:
		return fmt.Errorf("pool %s: %w", dir, err)
	case !st.IsDir():
		return fmt.Errorf("pool %s: not a directory", dir)
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) == 0 && firstUse {
		return nil // an empty directory: made a pool on first use
	}
	return fmt.Errorf("pool %s: not a pool (no pool.json; make one with hpcbench dfs pool create)", dir)
}
