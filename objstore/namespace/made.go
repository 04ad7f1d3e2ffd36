package namespace

import (
	"sync"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// madeMax bounds how many entries a mount remembers (about 150 bytes
// each: 5 MB at most); past it, new files are not remembered and their
// removal reads their entry first, as any other's.
const madeMax = 1 << 15

// madeKey names a directory entry: its directory's object and its name.
type madeKey struct {
	dir  object.OID
	name string
}

// made remembers the regular files this mount created or renamed, each
// with its encoded inode as the mount wrote it, so that a removal of one
// of them is a single conditional call (object.Container.RemoveIf, and on
// an object.Unlinker one round trip with the punch) instead of a read of
// the entry first. The container checks the value it holds is the one
// remembered: a file another mount removed, replaced or renamed over
// answers ErrNotExist or ErrChanged, never removes the wrong object, and
// is looked up again. Object ids are never reused, so an equal value is
// the same file. It is safe for concurrent use.
type made struct {
	mu      sync.Mutex
	entries map[madeKey][]byte
}

func newMade() *made { return &made{entries: make(map[madeKey][]byte)} }

// put remembers entry name of directory dir with inode bytes b (which it
// keeps: the caller does not change them afterwards).
func (m *made) put(dir object.OID, name string, b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.entries) < madeMax {
		m.entries[madeKey{dir, name}] = b
	}
}

// take returns and forgets what put remembered of entry name of dir.
func (m *made) take(dir object.OID, name string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := madeKey{dir, name}
	b, ok := m.entries[k]
	delete(m.entries, k)
	return b, ok
}
