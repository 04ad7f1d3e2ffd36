package namespace

import (
	"fmt"
	"path"
	"strings"
	"syscall"
)

// maxName and maxPath are DFS's limits on an entry name and a path.
const (
	maxName = 255
	maxPath = 4095
)

// splitPath returns the names along p from the root. p is taken from the
// container's root whether or not it starts with "/", and cleaned as
// path.Clean does ("." and "" are the root; ".." stops at the root).
func splitPath(p string) ([]string, error) {
	if len(p) > maxPath {
		return nil, fmt.Errorf("path of %d bytes: %w (want at most %d)", len(p), syscall.ENAMETOOLONG, maxPath)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return nil, fmt.Errorf("path %q: %w (holds a NUL byte)", p, syscall.EINVAL)
	}
	c := path.Clean("/" + p)
	if c == "/" {
		return nil, nil
	}
	names := strings.Split(c[1:], "/")
	for _, n := range names {
		if len(n) > maxName {
			return nil, fmt.Errorf("name of %d bytes: %w (want at most %d)", len(n), syscall.ENAMETOOLONG, maxName)
		}
	}
	return names, nil
}

// splitParent returns the names along p's parent and p's own name, or an
// error for the root, which has no parent.
func splitParent(p string) ([]string, string, error) {
	names, err := splitPath(p)
	if err != nil {
		return nil, "", err
	}
	if len(names) == 0 {
		return nil, "", fmt.Errorf("the root directory: %w (it has no parent entry)", syscall.EINVAL)
	}
	return names[:len(names)-1], names[len(names)-1], nil // cap: the name follows
}

// joinNames returns the path of names below the root, without the leading
// "/" (the key of the directory cache).
func joinNames(names []string) string { return strings.Join(names, "/") }
