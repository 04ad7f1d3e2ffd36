package store

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/aiori/dfs/object"
)

// sizeIndex knows each array's size without a system call: built when the
// container opens, from the extent files on its targets (an array's size
// is the largest end of its extents), and kept up to date by the engine,
// which alone writes them. An array with no entry has no extent file: its
// size is 0. This is what makes a stat, a read's end-of-file check and a
// create-then-stat (mdtest) cost no fstat or failed open on every target.
type sizeIndex struct {
	mu    sync.Mutex
	sizes map[object.OID]int64
}

// loadSizes reads the extent files in dirs.
func loadSizes(dirs []string) (*sizeIndex, error) {
	ix := &sizeIndex{sizes: make(map[object.OID]int64)}
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("index the extents in %s: %w", d, err)
		}
		for _, e := range ents {
			oid, err := object.ParseOID(e.Name())
			if err != nil || !e.Type().IsRegular() {
				continue // not an extent file
			}
			var st unix.Stat_t
			if err := unix.Stat(d+"/"+e.Name(), &st); err != nil {
				return nil, fmt.Errorf("index the extents in %s: %w", d, err)
			}
			ix.sizes[oid] = max(ix.sizes[oid], st.Size)
		}
	}
	return ix, nil
}

// get returns oid's size.
func (ix *sizeIndex) get(oid object.OID) int64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.sizes[oid]
}

// wrote records that oid's bytes reach end.
func (ix *sizeIndex) wrote(oid object.OID, end int64) {
	ix.mu.Lock()
	ix.sizes[oid] = max(ix.sizes[oid], end)
	ix.mu.Unlock()
}

// set records oid's size after a SetSize.
func (ix *sizeIndex) set(oid object.OID, size int64) {
	ix.mu.Lock()
	ix.sizes[oid] = size
	ix.mu.Unlock()
}

// has reports whether oid has extent files (an entry).
func (ix *sizeIndex) has(oid object.OID) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	_, ok := ix.sizes[oid]
	return ok
}

// drop forgets a punched oid.
func (ix *sizeIndex) drop(oid object.OID) {
	ix.mu.Lock()
	delete(ix.sizes, oid)
	ix.mu.Unlock()
}

// count returns how many arrays have extents.
func (ix *sizeIndex) count() int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return len(ix.sizes)
}
