package store

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Small arrays are held whole in the container's KV log rather than in
// extent files, as DAOS keeps small I/O in SCM rather than on NVMe (VOS's
// io_size media policy, 4 KiB): an array whose bytes all lie within its
// first HoldMax bytes (every write's offset + length <= HoldMax), written
// without object.Direct, is one record of the log (opArray, its whole
// content, rewritten by each write). mdtest's files
// (-w 4096) then cost a log append instead of a file created on a target,
// a read no open and a remove no unlink. Such an array is held in the
// engine's memory, as every KV value is, up to HoldBudget bytes per
// container; past that, new small arrays get extent files as large ones
// do.
//
// An array leaves the log for good (it moves) on its first write or
// SetSize that reaches past HoldMax, on a Direct write, or when growing it
// would pass the budget: its bytes are written to its extent files, then
// an opUnarray record is appended, and only then does the new write go to
// the extents. An engine killed between the two finds both the record and
// extent files when it next opens the container: the record wins (the
// write that moved the array never returned) and the extent files are
// removed (resolveMoves).
const (
	HoldMax    = 4096
	HoldBudget = 256 << 20
)

// arrayLocks serialise the changes that decide where an array lives: a
// write to an array in extent files, or one that cannot be held, takes its
// stripe for reading (writes to one shared file go on side by side); a
// write that holds an array, or moves it, takes it for writing. Reads take
// none: a move writes the extents before it drops the record, so a read
// finds the bytes in one place or the other.
type arrayLocks [64]sync.RWMutex

func (l *arrayLocks) of(oid object.OID) *sync.RWMutex {
	return &l[(oid.Lo^oid.Hi*0x9e3779b97f4a7c15)%uint64(len(l))]
}

// holdable reports whether a transfer of n bytes at off may go to the log.
func holdable(off int64, n int, f object.IOFlags) bool {
	return f&object.Direct == 0 && off >= 0 && off+int64(n) <= HoldMax
}

// held returns a copy of oid's array if the log holds it.
func (s *kvStore) held(oid object.OID) ([]byte, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.arrays[oid]
	if !ok {
		return nil, false
	}
	return append([]byte{}, v...), true
}

// heldSize returns the size of oid's array if the log holds it (ok
// reports whether it does).
func (s *kvStore) heldSize(oid object.OID) (int64, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.arrays[oid]
	return int64(len(v)), ok
}

// readHeld copies the bytes at off of oid's held array into p and returns
// how many lie before its end and its size; ok is false when the log does
// not hold the array.
func (s *kvStore) readHeld(oid object.OID, off int64, p []byte) (n int, size int64, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.arrays[oid]
	if !ok {
		return 0, 0, false
	}
	if off < int64(len(v)) {
		n = copy(p, v[off:])
	}
	return n, int64(len(v)), true
}

// hold stores the array edit makes of oid's held one (nil if there is
// none) as its new content, unless that would take the container's held
// bytes past HoldBudget; it reports whether it stored it. With sync the
// log is made stable before it returns, SyncKV or not.
func (s *kvStore) hold(oid object.OID, edit func(old []byte) []byte, sync bool) (bool, error) {
	s.mu.Lock()
	old := s.arrays[oid]
	v := edit(old)
	if s.arrayBytes-int64(len(old))+int64(len(v)) > s.budget {
		s.mu.Unlock()
		return false, nil
	}
	end, err := s.write(record{op: opArray, oid: oid, val: v})
	s.mu.Unlock()
	if err != nil {
		return false, err
	}
	if sync {
		return true, s.log.flush(end)
	}
	return true, s.log.commit(end)
}

// unhold records that oid's array has moved to its extent files.
func (s *kvStore) unhold(oid object.OID) error {
	s.mu.Lock()
	if _, ok := s.arrays[oid]; !ok {
		s.mu.Unlock()
		return nil
	}
	end, err := s.write(record{op: opUnarray, oid: oid})
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.log.commit(end)
}

// dropArray forgets oid's held array in the index. The caller holds s.mu
// (or is replaying the log).
func (s *kvStore) dropArray(oid object.OID) {
	if v, ok := s.arrays[oid]; ok {
		s.live -= frameSize(record{op: opArray, oid: oid, val: v})
		s.arrayBytes -= int64(len(v))
		delete(s.arrays, oid)
	}
}

// heldBytes returns the bytes of the arrays the log holds.
func (s *kvStore) heldBytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.arrayBytes
}

// heldOIDs returns the ids of the arrays the log holds.
func (s *kvStore) heldOIDs() []object.OID {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ids := make([]object.OID, 0, len(s.arrays))
	for id := range s.arrays {
		ids = append(ids, id)
	}
	return ids
}

// writeBytes returns old with p written at off (zeros in between).
func writeBytes(old []byte, off int64, p []byte) []byte {
	v := make([]byte, max(int64(len(old)), off+int64(len(p))))
	copy(v, old)
	copy(v[off:], p)
	return v
}

// resizeBytes returns old cut or zero-extended to size.
func resizeBytes(old []byte, size int64) []byte {
	v := make([]byte, size)
	copy(v, old)
	return v
}

// sync makes the whole log stable.
func (s *kvStore) sync() error { return s.log.flush(s.log.size.Load()) }

// resolveMoves finishes what an engine killed in the middle of a move
// left: an array both held in the log and with extent files keeps the
// log's bytes, and its extent files are removed.
func (st *contState) resolveMoves() error {
	for _, oid := range st.kv.heldOIDs() {
		ext, ok := st.sizes.lookup(oid)
		if !ok {
			continue
		}
		for _, d := range st.dirs {
			path := extentFile(d, oid, ext.cs)
			if err := unix.Unlink(path); err != nil && !errors.Is(err, unix.ENOENT) {
				return fmt.Errorf("open container %q: remove the extents of %v, which its log holds: %w", st.label, oid, err)
			}
		}
		st.sizes.drop(oid)
	}
	return nil
}
