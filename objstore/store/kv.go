package store

import (
	"bytes"
	"fmt"
	"sort"
	"sync"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// firstOID is the first object id a container hands out: the ids below are
// left for reserved objects (DFS's superblock 0.0 and root 1.0), as memobj
// does.
const firstOID = object.FirstSeq

// oidBatch is how many ids a reserve record covers beyond the request, so
// most AllocOIDs calls append nothing.
const oidBatch = 4096

// kvStore is the KV records of one log: an index in memory (every value
// is held in memory) rebuilt from the log on open, and the log that makes
// each change last. Its methods may be called from many goroutines.
type kvStore struct {
	mu   sync.RWMutex
	log  *appendLog
	objs map[object.OID]map[string]map[string][]byte
	live int64 // bytes of the frames a rewrite would keep
	// sorted caches an object's dkeys in order for List, so that paging
	// through a large directory sorts it once; a new or removed dkey
	// drops the object's entry.
	sorted map[object.OID][]string
	// arrays holds the arrays kept whole in the log (see hold.go),
	// arrayBytes their total length, budget its bound (HoldBudget).
	arrays     map[object.OID][]byte
	arrayBytes int64
	budget     int64

	reserved uint64 // ids below are recorded as handed out
	next     uint64 // the next id to hand out
}

// openKV opens the KV log at path (creating it if create), replays it, and
// compacts it when its garbage (superseded frames) exceeds its live data.
func openKV(path string, sync, create bool) (*kvStore, error) {
	s := &kvStore{objs: make(map[object.OID]map[string]map[string][]byte), sorted: make(map[object.OID][]string), arrays: make(map[object.OID][]byte), budget: HoldBudget, live: int64(len(logMagic)) + frameSize(record{op: opReserve})}
	l, _, err := openLog(path, sync, create, s.applyAll)
	if err != nil {
		return nil, err
	}
	s.log = l
	s.next = max(s.reserved, firstOID)
	if s.garbage() > s.live {
		if err := s.compactLocked(); err != nil {
			l.close()
			return nil, err
		}
	}
	return s, nil
}

// garbage is how many bytes of the log a rewrite would drop.
func (s *kvStore) garbage() int64 { return s.log.size.Load() - s.live }

// apply changes the index as r says, keeping live up to date.
func (s *kvStore) apply(r record) {
	switch r.op {
	case opPut:
		d := s.objs[r.oid]
		if d == nil {
			d = make(map[string]map[string][]byte)
			s.objs[r.oid] = d
		}
		a := d[r.dkey]
		if a == nil {
			a = make(map[string][]byte)
			d[r.dkey] = a
			delete(s.sorted, r.oid)
		}
		if old, ok := a[r.akey]; ok {
			s.live -= frameSize(record{op: opPut, dkey: r.dkey, akey: r.akey, val: old})
		}
		a[r.akey] = r.val
		s.live += frameSize(r)
	case opRemove:
		s.dropDkey(r.oid, r.dkey)
	case opPunch:
		for dkey := range s.objs[r.oid] {
			s.dropDkey(r.oid, dkey)
		}
		delete(s.objs, r.oid)
		s.dropArray(r.oid)
	case opArray:
		s.dropArray(r.oid)
		s.arrays[r.oid] = r.val
		s.arrayBytes += int64(len(r.val))
		s.live += frameSize(r)
	case opUnarray:
		s.dropArray(r.oid)
	case opReserve:
		s.reserved = max(s.reserved, r.next)
	}
}

func (s *kvStore) dropDkey(oid object.OID, dkey string) {
	for akey, v := range s.objs[oid][dkey] {
		s.live -= frameSize(record{op: opPut, dkey: dkey, akey: akey, val: v})
	}
	delete(s.objs[oid], dkey)
	delete(s.sorted, oid)
	if len(s.objs[oid]) == 0 {
		delete(s.objs, oid)
	}
}

// write appends recs as one frame, applies them and returns the log's end
// for commit. The caller holds s.mu.
func (s *kvStore) write(recs ...record) (int64, error) {
	end, err := s.log.append(recs...)
	if err != nil {
		return 0, err
	}
	s.applyAll(recs...)
	return end, nil
}

// applyAll applies the records of one frame, in order.
func (s *kvStore) applyAll(recs ...record) {
	for _, r := range recs {
		s.apply(r)
	}
}

// put stores val under (oid, dkey, akey); with cond only if dkey has no
// akey, returning object.ErrExist otherwise. The check and the append are
// one step under the lock.
func (s *kvStore) put(oid object.OID, dkey, akey string, val []byte, cond bool) error {
	r := record{op: opPut, oid: oid, dkey: dkey, akey: akey, val: append([]byte{}, val...)}
	s.mu.Lock()
	if cond && len(s.objs[oid][dkey]) > 0 {
		s.mu.Unlock()
		return object.ErrExist
	}
	end, err := s.write(r)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.log.commit(end)
}

// get returns a copy of the value under (oid, dkey, akey).
func (s *kvStore) get(oid object.OID, dkey, akey string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.objs[oid][dkey][akey]
	if !ok {
		return nil, object.ErrNotExist
	}
	return append([]byte{}, v...), nil
}

// remove writes a tombstone for dkey, or returns object.ErrNotExist.
func (s *kvStore) remove(oid object.OID, dkey string) error {
	return s.removeIf(oid, dkey, "", nil)
}

// removeIf writes a tombstone for dkey if the value under akey is
// expect (any value when expect is nil), or returns object.ErrNotExist
// or object.ErrChanged. The check and the append are one step under the
// lock.
func (s *kvStore) removeIf(oid object.OID, dkey, akey string, expect []byte) error {
	return s.unlink(oid, dkey, akey, expect, nil)
}

// unlink is removeIf that, when victim is not nil and the removal goes
// ahead, also writes a tombstone for all of *victim's records (its array
// held in the log too) in the same frame: Remove and Punch of an object
// with no extent files as one append, whole or not at all.
func (s *kvStore) unlink(oid object.OID, dkey, akey string, expect []byte, victim *object.OID) error {
	s.mu.Lock()
	d := s.objs[oid][dkey]
	v, ok := d[akey]
	switch {
	case len(d) == 0 || expect != nil && !ok:
		s.mu.Unlock()
		return object.ErrNotExist
	case expect != nil && !bytes.Equal(v, expect):
		s.mu.Unlock()
		return object.ErrChanged
	}
	recs := []record{{op: opRemove, oid: oid, dkey: dkey}}
	if victim != nil && s.holdsLocked(*victim) {
		recs = append(recs, record{op: opPunch, oid: *victim})
	}
	end, err := s.write(recs...)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.log.commit(end)
}

// holdsLocked reports whether the log holds anything of oid: a KV record
// or its array. The caller holds s.mu.
func (s *kvStore) holdsLocked(oid object.OID) bool {
	_, held := s.arrays[oid]
	return held || len(s.objs[oid]) > 0
}

// punch writes a tombstone for all of oid's records (its array held in
// the log too), if it has any.
func (s *kvStore) punch(oid object.OID) error {
	s.mu.Lock()
	if !s.holdsLocked(oid) {
		s.mu.Unlock()
		return nil
	}
	end, err := s.write(record{op: opPunch, oid: oid})
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.log.commit(end)
}

// list returns up to max of oid's dkeys after anchor in sorted order, and
// the anchor to go on from ("" at the end). An anchor is "k" and the last
// dkey returned, so that it is never "" even after the dkey "".
func (s *kvStore) list(oid object.OID, anchor string, max int) ([]string, string, error) {
	after, ok := "", anchor != ""
	if ok {
		if anchor[0] != 'k' {
			return nil, "", fmt.Errorf("anchor %q: %w (not one List returned)", anchor, object.ErrInvalid)
		}
		after = anchor[1:]
	}
	s.mu.RLock()
	keys, cached := s.sorted[oid]
	if !cached && len(s.objs[oid]) > 0 {
		s.mu.RUnlock()
		s.mu.Lock()
		keys = s.sortLocked(oid)
		s.mu.Unlock()
		s.mu.RLock()
	}
	defer s.mu.RUnlock()
	from := 0
	if ok {
		from = sort.SearchStrings(keys, after)
		if from < len(keys) && keys[from] == after {
			from++
		}
	}
	keys = keys[from:]
	if max > 0 && len(keys) > max {
		page := append([]string(nil), keys[:max]...)
		return page, "k" + page[max-1], nil
	}
	return append([]string(nil), keys...), "", nil
}

// sortLocked returns oid's dkeys in order, from the cache or sorted now.
// The caller holds s.mu for writing.
func (s *kvStore) sortLocked(oid object.OID) []string {
	if keys, ok := s.sorted[oid]; ok {
		return keys
	}
	keys := make([]string, 0, len(s.objs[oid]))
	for k := range s.objs[oid] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s.sorted[oid] = keys
	return keys
}

// alloc hands out n consecutive ids and returns the first. A reserve
// record covering them (and a batch beyond) is in the log before it
// returns, so no id is handed out twice across restarts.
func (s *kvStore) alloc(n int) (uint64, error) {
	s.mu.Lock()
	first := s.next
	if uint64(n) > ^uint64(0)-first-oidBatch {
		s.mu.Unlock()
		return 0, fmt.Errorf("%d ids: %w (the id space is used up)", n, object.ErrInvalid)
	}
	var end int64
	if first+uint64(n) > s.reserved {
		var err error
		end, err = s.write(record{op: opReserve, next: first + uint64(n) + oidBatch})
		if err != nil {
			s.mu.Unlock()
			return 0, err
		}
	}
	s.next = first + uint64(n)
	s.mu.Unlock()
	if end > 0 {
		return first, s.log.commit(end)
	}
	return first, nil
}

// objects returns the ids of the objects that hold a KV record or an
// array held in the log.
func (s *kvStore) objects() []object.OID {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ids := make([]object.OID, 0, len(s.objs)+len(s.arrays))
	for id := range s.objs {
		ids = append(ids, id)
	}
	for id := range s.arrays {
		if _, ok := s.objs[id]; !ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// compact rewrites the log with only its live records.
func (s *kvStore) compact() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compactLocked()
}

func (s *kvStore) compactLocked() error {
	return s.log.rewrite(func(emit func(record) error) error {
		if err := emit(record{op: opReserve, next: max(s.reserved, s.next)}); err != nil {
			return err
		}
		for oid, dkeys := range s.objs {
			for dkey, akeys := range dkeys {
				for akey, v := range akeys {
					if err := emit(record{op: opPut, oid: oid, dkey: dkey, akey: akey, val: v}); err != nil {
						return err
					}
				}
			}
		}
		for oid, v := range s.arrays {
			if err := emit(record{op: opArray, oid: oid, val: v}); err != nil {
				return err
			}
		}
		return nil
	})
}

// close closes the log.
func (s *kvStore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.close()
}
