package io500

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/posix"
)

// FS is the data dir's namespace, as the run's own steps need it: make
// the phases' directories, walk it (find), remove what the phases left.
// The operating system's (NewOSFS) for POSIX and MMAP; a backend's
// (NewBackendFS) for the others.
type FS interface {
	// MkdirAll makes dir and its missing parents.
	MkdirAll(dir string) error
	// Remove removes a file or an empty directory.
	Remove(path string) error
	// ReadDir calls fn with every entry of dir and whether it is one;
	// name is valid only during the call.
	ReadDir(dir string, fn func(name []byte, dir bool)) error
	// Stat returns a file's size and modification time.
	Stat(path string) (size int64, mtime time.Time, err error)
	// Close releases the namespace.
	Close() error
}

// NewOSFS returns the operating system's namespace: the POSIX backend's.
func NewOSFS() (FS, error) {
	e := posix.Entry()
	be, err := e.New(e.NewOptions(), aiori.Env{})
	if err != nil {
		return nil, err
	}
	return NewBackendFS(be)
}

// BackendFS is an I/O backend's namespace: it needs aiori.Metadata and
// aiori.Lister.
type BackendFS struct {
	B aiori.Backend
}

// NewBackendFS checks that b can serve as the data dir's namespace.
func NewBackendFS(b aiori.Backend) (*BackendFS, error) {
	_, meta := b.(aiori.Metadata)
	_, list := b.(aiori.Lister)
	if !meta || !list {
		return nil, fmt.Errorf("api %s: IO500 needs a backend with directories it can list (POSIX, MMAP, DFS)", b.Name())
	}
	return &BackendFS{B: b}, nil
}

// MkdirAll makes each missing component of dir, from the root.
func (f *BackendFS) MkdirAll(dir string) error {
	m := f.B.(aiori.Metadata)
	p := ""
	for _, c := range strings.Split(strings.Trim(dir, "/"), "/") {
		p += "/" + c
		if _, err := m.Stat(p); err == nil {
			continue
		}
		if err := m.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// Remove removes a file, or else an empty directory.
func (f *BackendFS) Remove(path string) error {
	if err := f.B.Remove(path); err == nil {
		return nil
	}
	return f.B.(aiori.Metadata).Rmdir(path)
}

// ReadDir is the backend's listing.
func (f *BackendFS) ReadDir(dir string, fn func(name []byte, dir bool)) error {
	return f.B.(aiori.Lister).ReadDir(dir, fn)
}

// Stat is the backend's.
func (f *BackendFS) Stat(path string) (int64, time.Time, error) {
	fi, err := f.B.(aiori.Metadata).Stat(path)
	return fi.Size, fi.ModTime, err
}

// Close closes the backend (on every rank at once).
func (f *BackendFS) Close() error { return f.B.Close() }
