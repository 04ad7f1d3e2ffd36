package ofi

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hpcbench/hpcbench/internal/dlib"
)

// Library names tried in order: the soname Debian's libfabric1 ships
// (libfabric 1.x), then the development link (libfabric-dev).
var libraryNames = []string{"libfabric.so.1", "libfabric.so"}

// apiVersion is FI_VERSION(1, 17): the structure layouts this package
// reads are those of libfabric 1.17's headers, and fi_getinfo fills them
// so for any newer library.
const apiVersion = 1<<16 | 17

// lib is libfabric, loaded: its exported functions. Everything else is
// reached through the function pointers of the objects these return.
type lib struct {
	path       string
	version    uint32
	fiGetinfo  uintptr // fi_getinfo(version, node, service, flags, hints, **info)
	fiFreeinfo uintptr // fi_freeinfo(info)
	fiDupinfo  uintptr // fi_dupinfo(info): fi_allocinfo is fi_dupinfo(NULL)
	fiFabric   uintptr // fi_fabric(attr, **fabric, context)
	fiStrerror uintptr // fi_strerror(errnum)
	fiTostr    uintptr // fi_tostr(data, type)
	strdup     uintptr // the C library's strdup: fi_freeinfo frees the hints' strings with free
	malloc     uintptr // the C library's malloc: and their addresses
}

// load opens libfabric and resolves its functions. dlopen counts its
// opens of a library and loads it once per process, so a second load
// costs a lookup; the handle is never closed (a Transport's objects live
// in the library).
func load() (*lib, error) { return open() }

// ErrNoLibrary wraps the error of a process where libfabric cannot be
// loaded.
var ErrNoLibrary = errors.New("libfabric is not installed")

func open() (*lib, error) {
	h, path, err := dlib.Open(libraryNames)
	if err != nil {
		return nil, fmt.Errorf("ofi: cannot load libfabric (%v): %w (Debian: apt-get install libfabric1)", err, ErrNoLibrary)
	}
	l := &lib{path: path}
	for _, s := range []struct {
		p    *uintptr
		name string
	}{
		{&l.fiGetinfo, "fi_getinfo"}, {&l.fiFreeinfo, "fi_freeinfo"}, {&l.fiDupinfo, "fi_dupinfo"},
		{&l.fiFabric, "fi_fabric"}, {&l.fiStrerror, "fi_strerror"}, {&l.fiTostr, "fi_tostr"},
	} {
		p, err := purego.Dlsym(h, s.name)
		if err != nil {
			return nil, fmt.Errorf("ofi: %s has no %s: %w", l.path, s.name, err)
		}
		*s.p = p
	}
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("ofi: cannot load the C library: %w", err)
	}
	if l.strdup, err = purego.Dlsym(libc, "strdup"); err != nil {
		return nil, fmt.Errorf("ofi: the C library has no strdup: %w", err)
	}
	if l.malloc, err = purego.Dlsym(libc, "malloc"); err != nil {
		return nil, fmt.Errorf("ofi: the C library has no malloc: %w", err)
	}
	v, err := purego.Dlsym(h, "fi_version")
	if err != nil {
		return nil, fmt.Errorf("ofi: %s has no fi_version: %w", l.path, err)
	}
	r, _, _ := purego.SyscallN(v)
	l.version = uint32(r)
	if l.version < apiVersion {
		return nil, fmt.Errorf("ofi: %s is libfabric %d.%d: want 1.17 or later (Debian 12's libfabric1)",
			l.path, l.version>>16, l.version&0xffff)
	}
	return l, nil
}

// Version returns the loaded libfabric's version ("1.17"), or the reason
// it cannot be loaded.
func Version() (string, error) {
	l, err := load()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d.%d", l.version>>16, l.version&0xffff), nil
}

// errText is fi_strerror's text for a positive FI_E* code.
func (l *lib) errText(code int) string {
	r, _, _ := purego.SyscallN(l.fiStrerror, uintptr(code))
	return cString(r)
}

// cString copies the NUL-terminated C string at p.
func cString(p uintptr) string {
	if p == 0 {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(cptr(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(cptr(p)), n))
}

// Error is a libfabric call that failed.
type Error struct {
	Op   string // the call: "fi_tsend"
	Code int    // the positive FI_E* code
	Text string // fi_strerror's text
}

func (e *Error) Error() string {
	return fmt.Sprintf("ofi: %s: %s (%d)", e.Op, e.Text, e.Code)
}

// fail returns the error of a call that returned rc < 0.
func (l *lib) fail(op string, rc int) error {
	return &Error{Op: op, Code: -rc, Text: l.errText(-rc)}
}
