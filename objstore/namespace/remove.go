package namespace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Remove unlinks the file or symbolic link p: it removes the entry, then
// punches the file's object. A directory wraps syscall.EISDIR.
func (f *FS) Remove(ctx context.Context, p string) error {
	return f.change(ctx, "remove", p, finds, func(_ []string, dir Inode, name string) error {
		return f.removeAt(ctx, dir, name)
	})
}

// removeAt unlinks the file or link name in directory dir: a file this
// mount made with no read of its entry (made), unless the entry changed.
func (f *FS) removeAt(ctx context.Context, dir Inode, name string) error {
	if b, ok := f.made.take(dir.OID, name); ok {
		if in, err := decodeInode(b); err == nil {
			err = f.unlink(ctx, dir, name, in, b)
			if !errors.Is(err, object.ErrChanged) {
				return err
			}
		}
	}
	in, err := f.entry(ctx, dir.OID, name)
	if err != nil {
		return err
	}
	if in.IsDir() {
		return fmt.Errorf("unlink a directory: %w (use Rmdir)", syscall.EISDIR)
	}
	return f.unlink(ctx, dir, name, in, nil)
}

// Rename moves the entry from to to, as dfs_move does: it writes the
// entry at to, replacing a file there (or an empty directory, when from
// is a directory), then removes the entry at from and punches the object
// it replaced. A directory cannot move below itself (EINVAL); a file
// cannot replace a directory (EISDIR), nor a directory a file (ENOTDIR).
func (f *FS) Rename(ctx context.Context, from, to string) error {
	if err := f.rename(ctx, from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

func (f *FS) rename(ctx context.Context, from, to string) error {
	if err := f.writable(); err != nil {
		return err
	}
	return f.cacheRetry(cached, func(mode walkMode) error { return f.renameWith(ctx, from, to, mode) })
}

// renameWith renames from to to, walking to from's parent with mode and
// to to's with verifyLast (or fresh), since the entry is put there.
func (f *FS) renameWith(ctx context.Context, from, to string, mode walkMode) error {
	fnames, fparent, fname, err := f.parent(ctx, from, mode)
	if err != nil {
		return err
	}
	src, err := f.entry(ctx, fparent.OID, fname)
	if err != nil {
		return err
	}
	tmode := verifyLast
	if mode == fresh {
		tmode = fresh
	}
	tnames, tparent, tname, err := f.parent(ctx, to, tmode)
	if err != nil {
		return err
	}
	if slices.Equal(fnames, tnames) {
		return nil
	}
	if src.IsDir() && len(tnames) > len(fnames) && slices.Equal(tnames[:len(fnames)], fnames) {
		return fmt.Errorf("move a directory below itself: %w", syscall.EINVAL)
	}
	dst, err := f.entry(ctx, tparent.OID, tname)
	replaced := err == nil
	if err := f.checkReplace(ctx, src, dst, replaced, err); err != nil {
		return err
	}
	src.Ctime = time.Now()
	b, err := src.encode()
	if err != nil {
		return err
	}
	if err := f.cont.Put(ctx, tparent.OID, tname, inodeAkey, b); err != nil {
		return fmt.Errorf("write entry %q: %w", tname, err)
	}
	f.forget(fnames)
	f.forget(tnames)
	f.made.take(fparent.OID, fname)
	if src.Mode.IsRegular() {
		f.made.put(tparent.OID, tname, b)
	}
	removed, err := f.removePunch(ctx, fparent.OID, fname, nil, dst.OID, replaced && dst.OClass != 0 && dst.OID != src.OID)
	switch {
	case !removed:
		return fmt.Errorf("remove old entry %q: %w", fname, err)
	case err != nil:
		return fmt.Errorf("punch replaced object %v: %w", dst.OID, err)
	}
	return nil
}

// checkReplace says whether src may replace dst (when replaced; lookupErr
// is the error looking dst up gave).
func (f *FS) checkReplace(ctx context.Context, src, dst Inode, replaced bool, lookupErr error) error {
	switch {
	case !replaced && errors.Is(lookupErr, syscall.ENOENT):
		return nil
	case !replaced:
		return lookupErr
	case dst.IsDir() && !src.IsDir():
		return fmt.Errorf("replace a directory with a non-directory: %w", syscall.EISDIR)
	case !dst.IsDir() && src.IsDir():
		return fmt.Errorf("replace a non-directory with a directory: %w", syscall.ENOTDIR)
	case dst.IsDir():
		return f.checkEmpty(ctx, dst)
	}
	return nil
}
