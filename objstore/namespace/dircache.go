package namespace

import (
	"strings"
	"sync"
)

// dirCache maps a directory's path (names joined by "/", "" the root) to
// its inode, for lookups that walk the same directories again. It is safe
// for concurrent use.
type dirCache struct {
	mu   sync.Mutex
	dirs map[string]Inode
}

func newDirCache() *dirCache { return &dirCache{dirs: make(map[string]Inode)} }

func (c *dirCache) get(key string) (Inode, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	in, ok := c.dirs[key]
	return in, ok
}

func (c *dirCache) put(key string, in Inode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dirs[key] = in
}

// forget drops key and every directory below it.
func (c *dirCache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.dirs {
		if k == key || strings.HasPrefix(k, key+"/") {
			delete(c.dirs, k)
		}
	}
}
