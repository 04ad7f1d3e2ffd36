package namespace

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"
)

// Dir is an open directory: calls on it name entries in it without
// walking the path again (dfs_open and dfs_lookup_rel on a parent
// object), so a create in it costs one Insert at any depth. A Dir keeps
// its directory's object id: another mount's Rmdir or Rename of the
// directory is not seen.
type Dir struct {
	fs   *FS
	in   Inode
	path string
}

// OpenDir opens the directory p.
func (f *FS) OpenDir(ctx context.Context, p string) (*Dir, error) {
	in, err := f.lookup(ctx, p)
	if err == nil && !in.IsDir() {
		err = fmt.Errorf("open a non-directory as a directory: %w", syscall.ENOTDIR)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "opendir", Path: p, Err: err}
	}
	return &Dir{fs: f, in: in, path: path.Clean("/" + p)}, nil
}

// Inode returns the directory's inode as it was when it was opened.
func (d *Dir) Inode() Inode { return d.in }

// at returns err, if any, as an *fs.PathError of op on entry name's path.
func (d *Dir) at(op, name string, err error) error {
	if err != nil {
		return &fs.PathError{Op: op, Path: path.Join(d.path, name), Err: err}
	}
	return nil
}

// checkName says whether name can be an entry's name.
func checkName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("entry name %q: %w", name, syscall.EINVAL)
	case strings.ContainsAny(name, "/\x00"):
		return fmt.Errorf("entry name %q: %w (holds a / or a NUL)", name, syscall.EINVAL)
	case len(name) > maxName:
		return fmt.Errorf("name of %d bytes: %w (want at most %d)", len(name), syscall.ENAMETOOLONG, maxName)
	}
	return nil
}

// change runs fn, a call that changes entry name, refusing on a read-only
// mount and on a name that cannot be an entry's.
func (d *Dir) change(op, name string, fn func() error) error {
	err := d.fs.writable()
	if err == nil {
		err = checkName(name)
	}
	if err == nil {
		err = fn()
	}
	return d.at(op, name, err)
}

// Create creates the file name in the directory, as FS.Create does.
func (d *Dir) Create(ctx context.Context, name string, perm fs.FileMode, flags Flags) (*File, error) {
	var fl *File
	err := d.change("create", name, func() (err error) {
		fl, err = d.fs.createAt(ctx, d.in, name, perm, flags)
		return err
	})
	return fl, err
}

// Open opens the existing file name in the directory.
func (d *Dir) Open(ctx context.Context, name string, flags Flags) (*File, error) {
	fl, err := d.open(ctx, name, flags)
	return fl, d.at("open", name, err)
}

func (d *Dir) open(ctx context.Context, name string, flags Flags) (*File, error) {
	in, err := d.lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	return d.fs.open(ctx, in, flags)
}

func (d *Dir) lookup(ctx context.Context, name string) (Inode, error) {
	if err := checkName(name); err != nil {
		return Inode{}, err
	}
	return d.fs.entry(ctx, d.in.OID, name)
}

// Mkdir creates the directory name in the directory.
func (d *Dir) Mkdir(ctx context.Context, name string, perm fs.FileMode) error {
	return d.change("mkdir", name, func() error { return d.fs.mkdirAt(ctx, d.in, name, perm) })
}

// Stat describes the entry name in the directory.
func (d *Dir) Stat(ctx context.Context, name string) (Info, error) {
	in, err := d.lookup(ctx, name)
	var info Info
	if err == nil {
		info, err = d.fs.info(ctx, in)
	}
	return info, d.at("stat", name, err)
}

// Remove unlinks the file or link name in the directory.
func (d *Dir) Remove(ctx context.Context, name string) error {
	return d.change("remove", name, func() error { return d.fs.removeAt(ctx, d.in, name) })
}

// ReadDir lists the directory's entries, as FS.ReadDir does.
func (d *Dir) ReadDir(ctx context.Context, anchor string, max int) ([]string, string, error) {
	names, next, err := d.fs.list(ctx, d.in, anchor, max)
	return names, next, d.at("readdir", "", err)
}
