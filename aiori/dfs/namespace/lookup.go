package namespace

import (
	"context"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/hpcbench/hpcbench/aiori/dfs/object"
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

// walk returns the inode of the directory at names, checking each step is
// a directory (ENOTDIR otherwise; symbolic links are not followed).
func (f *FS) walk(ctx context.Context, names []string) (Inode, error) {
	dir := f.root
	for i, name := range names {
		key := joinNames(names[:i+1])
		if f.cache != nil {
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

// forget drops the directory at names and those below it from the cache.
func (f *FS) forget(names []string) {
	if f.cache != nil {
		f.cache.forget(joinNames(names))
	}
}

// parent returns the names along p (its parent's, then its own), the
// parent's inode and p's own name.
func (f *FS) parent(ctx context.Context, p string) ([]string, Inode, string, error) {
	dirs, name, err := splitParent(p)
	if err != nil {
		return nil, Inode{}, "", err
	}
	dir, err := f.walk(ctx, dirs)
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
	dir, err := f.walk(ctx, names[:len(names)-1])
	if err != nil {
		return Inode{}, err
	}
	return f.entry(ctx, dir.OID, names[len(names)-1])
}

// change runs fn, a call that changes the namespace, on p's names, parent
// directory and own name. It refuses on a read-only mount and returns an
// error as an *fs.PathError of op on p.
func (f *FS) change(ctx context.Context, op, p string, fn func(names []string, dir Inode, name string) error) error {
	err := f.writable()
	if err == nil {
		var names []string
		var dir Inode
		var name string
		if names, dir, name, err = f.parent(ctx, p); err == nil {
			err = fn(names, dir, name)
		}
	}
	if err != nil {
		return &fs.PathError{Op: op, Path: p, Err: err}
	}
	return nil
}
