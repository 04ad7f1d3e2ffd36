package posix

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// PathOps are the calls on a path that need no open file: Remove, Access
// and FileSize, as the POSIX backend makes them. A backend over the
// kernel's file systems embeds them to make these calls as POSIX does
// (the MMAP backend does). Errors begin with the name of the backend
// that embeds them. A PathOps must not be copied once used.
type PathOps struct {
	name string // begins the errors: "posix", "mmap"
	cp   cpath  // path conversion without allocation
}

// NewPathOps returns the path calls of the backend name ("posix",
// "mmap"), whose errors begin "name: ".
func NewPathOps(name string) PathOps { return PathOps{name: name} }

// Remove unlinks path.
func (p *PathOps) Remove(path string) error {
	if err := p.cp.unlinkat(path, 0); err != nil {
		return fmt.Errorf("%s: remove %s: %w", p.name, path, err)
	}
	return nil
}

// Access returns nil when path exists (access(2) with F_OK) and an error
// wrapping unix.ENOENT, which matches fs.ErrNotExist, when it does not.
func (p *PathOps) Access(path string) error {
	if err := unix.Access(path, unix.F_OK); err != nil {
		return fmt.Errorf("%s: access %s: %w", p.name, path, err)
	}
	return nil
}

// FileSize returns stat(2)'s st_size of path.
func (p *PathOps) FileSize(path string) (int64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, fmt.Errorf("%s: stat %s: %w", p.name, path, err)
	}
	return st.Size, nil
}
