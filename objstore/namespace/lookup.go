package namespace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// entry reads and decodes the inode of name in directory dir; a missing
// entry wraps syscall.ENOENT.
func (f *FS) entry(ctx context.Context, dir object.OID, name string) (Inode, error) {
	b, err := f.cont.Get(ctx, dir, name, inodeAkey)
	if object.IsNotExist(err) {
		return Inode{}, fmt.Errorf("entry %q: %w", name, syscall.ENOENT)
	}
	if err != nil {
		return Inode{}, fmt.Errorf("read entry %q: %w", name, err)
	}
	in, err := decodeInode(b)
	if err != nil {
		return Inode{}, fmt.Errorf("entry %q: %w", name, err)
	}
	return in, nil
}

// A walkMode says how a walk uses the directory cache (Options.DirCache).
type walkMode int

const (
	// cached takes every directory the cache has.
	cached walkMode = iota
	// verifyLast takes the directories above the last one from the
	// cache and reads the last one's entry again: a change that inserts
	// into a directory must not insert into one another mount removed
	// or renamed.
	verifyLast
	// fresh reads every entry (and refills the cache with what it reads).
	fresh
)

// walk returns the inode of the directory at names, checking each step is
// a directory (ENOTDIR otherwise; symbolic links are not followed).
func (f *FS) walk(ctx context.Context, names []string, mode walkMode) (Inode, error) {
	dir := f.root
	for i, name := range names {
		key := joinNames(names[:i+1])
		if f.cache != nil && (mode == cached || mode == verifyLast && i < len(names)-1) {
			if in, ok := f.cache.get(key); ok {
				dir = in
				continue
			}
		}
		in, err := f.entry(ctx, dir.OID, name)
		if err != nil {
			return Inode{}, err
		}
		if !in.IsDir() {
			return Inode{}, fmt.Errorf("walk through /%s: %w", key, syscall.ENOTDIR)
		}
		if f.cache != nil {
			f.cache.put(key, in)
		}
		dir = in
	}
	return dir, nil
}

// cacheRetry runs fn with mode, and once more with fresh when the cache is
// on and fn found something missing: a directory in the cache that another
// mount has removed is an object without entries, so a stale entry shows
// as ENOENT, and the fresh walk puts the right one in its place.
func (f *FS) cacheRetry(mode walkMode, fn func(walkMode) error) error {
	err := fn(mode)
	if f.cache != nil && errors.Is(err, syscall.ENOENT) {
		err = fn(fresh)
	}
	return err
}

// forget drops the directory at names and those below it from the cache.
func (f *FS) forget(names []string) {
	if f.cache != nil {
		f.cache.forget(joinNames(names))
	}
}

// parent returns the names along p (its parent's, then its own), the
// parent's inode and p's own name.
func (f *FS) parent(ctx context.Context, p string, mode walkMode) ([]string, Inode, string, error) {
	dirs, name, err := splitParent(p)
	if err != nil {
		return nil, Inode{}, "", err
	}
	dir, err := f.walk(ctx, dirs, mode)
	return dirs[:len(dirs)+1], dir, name, err
}

// Lookup returns the inode of the entry at p (the root's for "/").
func (f *FS) Lookup(ctx context.Context, p string) (Inode, error) {
	in, err := f.lookup(ctx, p)
	if err != nil {
		return Inode{}, &fs.PathError{Op: "lookup", Path: p, Err: err}
	}
	return in, nil
}

func (f *FS) lookup(ctx context.Context, p string) (Inode, error) {
	names, err := splitPath(p)
	if err != nil || len(names) == 0 {
		return f.root, err
	}
	var in Inode
	err = f.cacheRetry(cached, func(mode walkMode) error {
		dir, err := f.walk(ctx, names[:len(names)-1], mode)
		if err == nil {
			in, err = f.entry(ctx, dir.OID, names[len(names)-1])
		}
		return err
	})
	return in, err
}

// A changeKind says whether a change inserts an entry into p's parent.
type changeKind bool

const (
	finds   changeKind = false // it finds p's entry first (remove, rmdir)
	inserts changeKind = true  // it inserts p's entry (create, mkdir)
)

// change runs fn, a call that changes the namespace, on p's names, parent
// directory and own name. It refuses on a read-only mount and returns an
// error as an *fs.PathError of op on p. A change that inserts reads the
// parent's entry again rather than take it from the cache.
func (f *FS) change(ctx context.Context, op, p string, kind changeKind, fn func(names []string, dir Inode, name string) error) error {
	err := f.writable()
	if err == nil {
		mode := cached
		if kind == inserts {
			mode = verifyLast
		}
		err = f.cacheRetry(mode, func(mode walkMode) error {
			names, dir, name, err := f.parent(ctx, p, mode)
			if err == nil {
				err = fn(names, dir, name)
			}
			return err
		})
	}
	if err != nil {
		return &fs.PathError{Op: op, Path: p, Err: err}
	}
	return nil
}
