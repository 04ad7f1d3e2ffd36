package store

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// sizeIndex knows each array's size and chunk size without a system call:
// built when the container opens, from the extent files on its targets (a
// file's name carries the chunk size, and with it where its bytes lie in
// the array: an array's size is the largest logical end its files reach),
// and kept up to date by the engine, which alone writes them. An array
// with no entry has no extent file: its size is 0. This is what makes a
// stat, a read's end-of-file check and a create-then-stat (mdtest) cost
// no fstat or failed open on every target.
type sizeIndex struct {
	mu    sync.Mutex
	sizes map[object.OID]extents
}

// extents is what the index knows of one array.
type extents struct {
	size, cs int64
}

// loadSizes reads the extent files in dirs, the container's directories
// on its targets in placement order.
func loadSizes(dirs []string) (*sizeIndex, error) {
	ix := &sizeIndex{sizes: make(map[object.OID]extents)}
	for t, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("index the extents in %s: %w", d, err)
		}
		for _, e := range ents {
			oid, cs, err := parseExtentName(e.Name())
			if err != nil || !e.Type().IsRegular() {
				continue // not an extent file
			}
			var st unix.Stat_t
			if err := unix.Stat(d+"/"+e.Name(), &st); err != nil {
				return nil, fmt.Errorf("index the extents in %s: %w", d, err)
			}
			if old, ok := ix.sizes[oid]; ok && old.cs != cs {
				return nil, fmt.Errorf("index the extents in %s: %v has extent files in chunks of %d and of %d bytes", d, oid, old.cs, cs)
			}
			end := newStripe(oid, cs, len(dirs)).logicalEnd(t, st.Size)
			ix.sizes[oid] = extents{size: max(ix.sizes[oid].size, end), cs: cs}
		}
	}
	return ix, nil
}

// lookup returns what the index knows of oid, if it has extent files:
// its size and the chunk size they were written in.
func (ix *sizeIndex) lookup(oid object.OID) (extents, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	e, ok := ix.sizes[oid]
	return e, ok
}

// wrote records that oid's bytes, in chunks of cs, reach end.
func (ix *sizeIndex) wrote(oid object.OID, cs, end int64) {
	ix.mu.Lock()
	ix.sizes[oid] = extents{size: max(ix.sizes[oid].size, end), cs: cs}
	ix.mu.Unlock()
}

// set records oid's size after a SetSize.
func (ix *sizeIndex) set(oid object.OID, cs, size int64) {
	ix.mu.Lock()
	ix.sizes[oid] = extents{size: size, cs: cs}
	ix.mu.Unlock()
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
