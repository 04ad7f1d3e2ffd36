package namespace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Mkdir creates the directory p with permission perm: a new KV object and
// one conditional Insert of its entry. An existing p wraps fs.ErrExist.
func (f *FS) Mkdir(ctx context.Context, p string, perm fs.FileMode) error {
	return f.change(ctx, "mkdir", p, inserts, func(_ []string, dir Inode, name string) error {
		return f.mkdirAt(ctx, dir, name, perm)
	})
}

// mkdirAt creates the directory name in directory dir.
func (f *FS) mkdirAt(ctx context.Context, dir Inode, name string, perm fs.FileMode) error {
	in, err := f.newInode(ctx, fs.ModeDir|perm&permBits, f.opts.DirOClass, "")
	if err != nil {
		return err
	}
	return f.insert(ctx, dir, name, in)
}

// MkdirAll creates p and the directories above it that are missing, as
// mkdir -p does; directories that exist are left as they are. An error
// names the directory that could not be made.
func (f *FS) MkdirAll(ctx context.Context, p string, perm fs.FileMode) error {
	names, err := splitPath(p)
	if err != nil {
		return &fs.PathError{Op: "mkdir", Path: p, Err: err}
	}
	for i := range names {
		sub := "/" + joinNames(names[:i+1])
		err := f.Mkdir(ctx, sub, perm)
		if errors.Is(err, syscall.EEXIST) {
			var in Inode
			if in, err = f.lookup(ctx, sub); err == nil && !in.IsDir() {
				err = &fs.PathError{Op: "mkdir", Path: sub, Err: fmt.Errorf("a non-directory is there: %w", syscall.ENOTDIR)}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Rmdir removes the empty directory p: its entry, then its object. A
// directory with entries wraps syscall.ENOTEMPTY; a file, ENOTDIR.
func (f *FS) Rmdir(ctx context.Context, p string) error {
	return f.change(ctx, "rmdir", p, finds, func(names []string, parent Inode, name string) error {
		return f.rmdirAt(ctx, names, parent, name)
	})
}

// rmdirAt removes the empty directory name, at names, from parent.
func (f *FS) rmdirAt(ctx context.Context, names []string, parent Inode, name string) error {
	in, err := f.entry(ctx, parent.OID, name)
	if err != nil {
		return err
	}
	if !in.IsDir() {
		return fmt.Errorf("remove a non-directory: %w", syscall.ENOTDIR)
	}
	if err := f.checkEmpty(ctx, in); err != nil {
		return err
	}
	f.forget(names)
	return f.unlink(ctx, parent, name, in, nil)
}

// checkEmpty returns an error wrapping ENOTEMPTY unless directory in has
// no entries.
func (f *FS) checkEmpty(ctx context.Context, in Inode) error {
	names, _, err := f.cont.List(ctx, in.OID, "", 1)
	if err != nil {
		return fmt.Errorf("list directory %v: %w", in.OID, err)
	}
	if len(names) > 0 {
		return fmt.Errorf("directory holds %q: %w", names[0], syscall.ENOTEMPTY)
	}
	return nil
}

// unlink removes entry name, of inode in, from dir, then punches its
// object (a link has none). With expect (in's encoding as the entry holds
// it) the removal is conditional, and an error wrapping
// object.ErrChanged says the entry holds another inode now.
func (f *FS) unlink(ctx context.Context, dir Inode, name string, in Inode, expect []byte) error {
	removed, err := f.removePunch(ctx, dir.OID, name, expect, in.OID, in.OClass != 0)
	switch {
	case !removed && errors.Is(err, object.ErrChanged):
		return fmt.Errorf("entry %q: %w", name, err)
	case !removed && errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("entry %q: %w (removed meanwhile)", name, syscall.ENOENT)
	case !removed && err != nil:
		return fmt.Errorf("remove entry %q: %w", name, err)
	case err != nil:
		return fmt.Errorf("punch object %v of entry %q: %w", in.OID, name, err)
	}
	return nil
}

// removePunch removes entry name from directory object dir (only if its
// inode's bytes are expect, when expect is not nil) and then, if that
// succeeded and punch is true, punches victim (object.Unlink: one call
// when the container is an object.Unlinker). removed says the entry went;
// err is then the punch's error, and the removal's otherwise.
func (f *FS) removePunch(ctx context.Context, dir object.OID, name string, expect []byte, victim object.OID, punch bool) (removed bool, err error) {
	if punch {
		return object.Unlink(ctx, f.cont, dir, name, inodeAkey, expect, victim)
	}
	err = object.RemoveDkey(ctx, f.cont, dir, name, inodeAkey, expect)
	return err == nil, err
}

// ReadDir returns up to max names of directory p's entries after anchor
// ("" starts at the first) and the anchor to continue from, "" after the
// last. max <= 0 means no limit. Order is the container's.
func (f *FS) ReadDir(ctx context.Context, p, anchor string, max int) ([]string, string, error) {
	names, next, err := f.readDir(ctx, p, anchor, max)
	if err != nil {
		return nil, "", &fs.PathError{Op: "readdir", Path: p, Err: err}
	}
	return names, next, nil
}

func (f *FS) readDir(ctx context.Context, p, anchor string, max int) ([]string, string, error) {
	in, err := f.lookup(ctx, p)
	if err != nil {
		return nil, "", err
	}
	return f.list(ctx, in, anchor, max)
}

// list lists directory in's entries.
func (f *FS) list(ctx context.Context, in Inode, anchor string, max int) ([]string, string, error) {
	if !in.IsDir() {
		return nil, "", fmt.Errorf("list a non-directory: %w", syscall.ENOTDIR)
	}
	names, next, err := f.cont.List(ctx, in.OID, anchor, max)
	if err != nil {
		return nil, "", fmt.Errorf("list directory %v: %w", in.OID, err)
	}
	return names, next, nil
}
