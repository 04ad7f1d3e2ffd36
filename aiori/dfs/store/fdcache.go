package store

import (
	"container/list"
	"errors"
	"io/fs"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/aiori/dfs/object"
)

// fdKey names one open extent file: a container's object on one target,
// opened for buffered or for direct I/O.
type fdKey struct {
	cont   string
	oid    object.OID
	target int
	direct bool
}

// fdEntry is a cached descriptor. refs counts the calls using it; an entry
// evicted while in use is closed by the last release.
type fdEntry struct {
	key  fdKey
	fd   int
	refs int
	dead bool
	elem *list.Element
}

// fdCache keeps up to max extent files open, closing the least recently
// used, so workloads with many objects (mdtest's) do not run out of
// descriptors and small ones do not reopen a file each transfer.
type fdCache struct {
	mu  sync.Mutex
	max int
	lru list.List // of *fdEntry, most recently used first
	m   map[fdKey]*fdEntry
}

func newFDCache(max int) *fdCache {
	return &fdCache{max: max, m: make(map[fdKey]*fdEntry)}
}

// get returns the entry for key, opening path if needed: with create, a
// missing file is made; without, get returns nil and no error for one.
// The caller releases the entry.
func (c *fdCache) get(key fdKey, path string, create bool) (*fdEntry, error) {
	c.mu.Lock()
	if e := c.m[key]; e != nil {
		e.refs++
		c.lru.MoveToFront(e.elem)
		c.mu.Unlock()
		return e, nil
	}
	c.mu.Unlock()

	flags := unix.O_RDWR | unix.O_CLOEXEC
	if create {
		flags |= unix.O_CREAT
	}
	if key.direct {
		flags |= unix.O_DIRECT
	}
	fd, err := unix.Open(path, flags, 0o644)
	if errors.Is(err, unix.ENOENT) && !create {
		return nil, nil
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[key]; e != nil { // another call opened it meanwhile
		unix.Close(fd)
		e.refs++
		c.lru.MoveToFront(e.elem)
		return e, nil
	}
	e := &fdEntry{key: key, fd: fd, refs: 1}
	e.elem = c.lru.PushFront(e)
	c.m[key] = e
	for c.lru.Len() > c.max {
		c.dropLocked(c.lru.Back().Value.(*fdEntry))
	}
	return e, nil
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
	c.lru.Remove(e.elem)
	delete(c.m, e.key)
	e.dead = true
	if e.refs == 0 {
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

// closeAll drops every entry.
func (c *fdCache) closeAll() { c.evict(func(fdKey) bool { return true }) }
