package store

import (
	"container/list"
	"errors"
	"io/fs"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// fdKey names one open extent file: a container's object on one target,
// opened for buffered or for direct I/O.
type fdKey struct {
	cont   string
	oid    object.OID
	cs     int64 // the chunk size, part of the file's name
	target int
	direct bool
}

// fdEntry is a cached descriptor, or a negative entry (fd == missing): the
// file was not there when last looked for. refs counts the calls using a
// descriptor; one evicted while in use is closed by the last release.
type fdEntry struct {
	key  fdKey
	fd   int
	refs int
	dead bool
	elem *list.Element
}

// missing is the fd of a negative entry. Negative entries are kept under
// the key with direct false, for both kinds of open.
const missing = -1

// fdCache keeps up to max extent files open, closing the least recently
// used, so workloads with many objects (mdtest's) do not run out of
// descriptors and small ones do not reopen a file each transfer. It also
// remembers files that are missing, so a small object's reads and sizes
// do not look up, on every target of its class, files it has none of.
type fdCache struct {
	mu  sync.Mutex
	max int
	lru list.List // of open *fdEntry, most recently used first
	neg list.List // of negative *fdEntry, most recently used first
	m   map[fdKey]*fdEntry
	// opened counts the descriptors put in the cache: a lookup that found
	// no file while it changed may have raced a create, and is not cached.
	opened uint64
}

func newFDCache(max int) *fdCache {
	return &fdCache{max: max, m: make(map[fdKey]*fdEntry)}
}

// negKey is the key of key's negative entry.
func negKey(key fdKey) fdKey { key.direct = false; return key }

// get returns the entry for key, opening path if needed: with create, a
// missing file is made; without, get returns nil and no error for one.
// The caller releases the entry.
func (c *fdCache) get(key fdKey, dir string, create bool) (*fdEntry, error) {
	c.mu.Lock()
	if e := c.hitLocked(key); e != nil {
		c.mu.Unlock()
		return e, nil
	}
	if n := c.m[negKey(key)]; n != nil && n.fd == missing && !create {
		c.neg.MoveToFront(n.elem)
		c.mu.Unlock()
		return nil, nil
	}
	opened := c.opened
	c.mu.Unlock()

	flags := unix.O_RDWR | unix.O_CLOEXEC
	if create {
		flags |= unix.O_CREAT
	}
	if key.direct {
		flags |= unix.O_DIRECT
	}
	path := extentFile(dir, key.oid, key.cs) // only on a miss: a hit builds no path
	fd, err := unix.Open(path, flags, 0o644)
	if errors.Is(err, unix.ENOENT) && !create {
		c.mu.Lock()
		if c.opened == opened && c.m[negKey(key)] == nil {
			c.insertLocked(&fdEntry{key: negKey(key), fd: missing})
		}
		c.mu.Unlock()
		return nil, nil
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.hitLocked(key); e != nil { // another call opened it meanwhile
		unix.Close(fd)
		return e, nil
	}
	if n := c.m[negKey(key)]; n != nil && n.fd == missing {
		c.dropLocked(n)
	}
	c.opened++
	e := &fdEntry{key: key, fd: fd, refs: 1}
	c.insertLocked(e)
	return e, nil
}

// hitLocked returns key's cached descriptor, counted as in use, or nil.
func (c *fdCache) hitLocked(key fdKey) *fdEntry {
	e := c.m[key]
	if e == nil || e.fd == missing {
		return nil
	}
	e.refs++
	c.lru.MoveToFront(e.elem)
	return e
}

// negPerFD is how many negative entries the cache keeps per descriptor
// it may hold open: they cost memory only, and a small object striped SX
// over n targets has n-1 of them.
const negPerFD = 16

// insertLocked adds e and evicts the least recently used entries beyond
// the bounds: max descriptors, negPerFD*max negative entries.
func (c *fdCache) insertLocked(e *fdEntry) {
	l, bound := &c.lru, c.max
	if e.fd == missing {
		l, bound = &c.neg, negPerFD*c.max
	}
	e.elem = l.PushFront(e)
	c.m[e.key] = e
	for l.Len() > bound {
		c.dropLocked(l.Back().Value.(*fdEntry))
	}
}

// release ends a use of e.
func (c *fdCache) release(e *fdEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refs--
	if e.dead && e.refs == 0 {
		unix.Close(e.fd)
	}
}

// dropLocked takes e out of the cache, closing it unless in use.
func (c *fdCache) dropLocked(e *fdEntry) {
	if e.fd == missing {
		c.neg.Remove(e.elem)
	} else {
		c.lru.Remove(e.elem)
	}
	if c.m[e.key] == e {
		delete(c.m, e.key)
	}
	e.dead = true
	if e.refs == 0 && e.fd != missing {
		unix.Close(e.fd)
	}
}

// evict drops the entries match selects (a punched object's, a closed
// container's).
func (c *fdCache) evict(match func(fdKey) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if match(k) {
			c.dropLocked(e)
		}
	}
}

// evictObject drops the entries of oid of container cont on its ntargets
// targets (a punch): a lookup of each key, not a walk of the cache.
func (c *fdCache) evictObject(cont string, oid object.OID, cs int64, ntargets int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for t := range ntargets {
		for _, direct := range []bool{false, true} {
			if e := c.m[fdKey{cont: cont, oid: oid, cs: cs, target: t, direct: direct}]; e != nil {
				c.dropLocked(e)
			}
		}
	}
}

// closeAll drops every entry.
func (c *fdCache) closeAll() { c.evict(func(fdKey) bool { return true }) }
