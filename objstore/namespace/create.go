package namespace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// permBits are the mode bits an entry keeps of what its creator asks.
const permBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// newInode returns the inode of a new entry of mode m: a fresh object of
// class c (files and directories), or a link to target.
func (f *FS) newInode(ctx context.Context, m fs.FileMode, c object.Class, target string) (Inode, error) {
	now := time.Now()
	in := Inode{Mode: m, Atime: now, Mtime: now, Ctime: now, Target: target}
	if m&fs.ModeSymlink != 0 {
		return in, nil
	}
	oid, err := f.alloc.oid(ctx, c)
	if err != nil {
		return Inode{}, err
	}
	in.OID, in.OClass = oid, c
	if m&fs.ModeType == 0 {
		in.ChunkSize = f.opts.ChunkSize
	}
	return in, nil
}

// insert adds the entry name with inode in to directory dir, failing with
// an error wrapping EEXIST when it is there: one conditional Insert. A
// regular file's entry is remembered (see made).
func (f *FS) insert(ctx context.Context, dir Inode, name string, in Inode) error {
	b, err := in.encode()
	if err != nil {
		return err
	}
	err = f.cont.Insert(ctx, dir.OID, name, inodeAkey, b)
	if errors.Is(err, object.ErrExist) {
		return fmt.Errorf("entry %q: %w", name, syscall.EEXIST)
	}
	if err != nil {
		return fmt.Errorf("insert entry %q: %w", name, err)
	}
	if in.Mode.IsRegular() {
		f.made.put(dir.OID, name, b)
	}
	return nil
}

// Create creates the regular file p with permission perm and opens it.
// When p exists, Create fails with Excl and opens it otherwise (truncated
// with Trunc). A create costs one conditional Insert and no array I/O.
func (f *FS) Create(ctx context.Context, p string, perm fs.FileMode, flags Flags) (*File, error) {
	var fl *File
	err := f.change(ctx, "create", p, inserts, func(_ []string, dir Inode, name string) (err error) {
		fl, err = f.createAt(ctx, dir, name, perm, flags)
		return err
	})
	return fl, err
}

// createAt creates (or with flags, opens) the file name in directory dir.
func (f *FS) createAt(ctx context.Context, dir Inode, name string, perm fs.FileMode, flags Flags) (*File, error) {
	in, err := f.newInode(ctx, perm&permBits, f.opts.OClass, "")
	if err != nil {
		return nil, err
	}
	err = f.insert(ctx, dir, name, in)
	if errors.Is(err, syscall.EEXIST) && flags&Excl == 0 {
		if in, err = f.entry(ctx, dir.OID, name); err == nil {
			return f.open(ctx, in, flags)
		}
	}
	if err != nil {
		return nil, err
	}
	return f.handle(in, flags), nil
}

// Open opens the existing regular file p.
func (f *FS) Open(ctx context.Context, p string, flags Flags) (*File, error) {
	fl, err := f.openPath(ctx, p, flags)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return fl, nil
}

func (f *FS) openPath(ctx context.Context, p string, flags Flags) (*File, error) {
	in, err := f.lookup(ctx, p)
	if err != nil {
		return nil, err
	}
	return f.open(ctx, in, flags)
}

// open opens the file of inode in, refusing directories and links.
func (f *FS) open(ctx context.Context, in Inode, flags Flags) (*File, error) {
	switch {
	case in.IsDir():
		return nil, fmt.Errorf("open a directory as a file: %w", syscall.EISDIR)
	case in.Mode&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("open a symbolic link to %q: %w (links are not followed)", in.Target, syscall.ELOOP)
	case f.opts.ReadOnly && flags&Trunc != 0:
		return nil, fmt.Errorf("truncate on a read-only mount: %w", syscall.EROFS)
	}
	fl := f.handle(in, flags)
	if flags&Trunc != 0 {
		if err := fl.Truncate(ctx, 0); err != nil {
			return nil, err
		}
	}
	return fl, nil
}

// handle returns the File of a regular file's inode.
func (f *FS) handle(in Inode, flags Flags) *File {
	if f.opts.ReadOnly {
		flags |= ReadOnly
	}
	return &File{cont: f.cont, arr: object.Array{OID: in.OID, ChunkSize: in.ChunkSize}, flags: flags &^ (Excl | Trunc)}
}

// Symlink creates the symbolic link p pointing at target (kept as given;
// this package never follows links).
func (f *FS) Symlink(ctx context.Context, target, p string) error {
	return f.change(ctx, "symlink", p, inserts, func(_ []string, dir Inode, name string) error {
		in, err := f.newInode(ctx, fs.ModeSymlink|0o777, 0, target)
		if err != nil {
			return err
		}
		return f.insert(ctx, dir, name, in)
	})
}
