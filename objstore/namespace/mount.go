package namespace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Options say how Mount mounts a container. The zero value mounts read and
// write, formats a container that is not formatted yet, and takes the
// superblock's defaults.
type Options struct {
	// ReadOnly mounts without writing: a container not formatted is an
	// error, and every call that would change the namespace fails with
	// syscall.EROFS.
	ReadOnly bool
	// ChunkSize is the chunk size of files this mount creates; 0 takes
	// the superblock's.
	ChunkSize int64
	// OClass and DirOClass are the classes of the files and directories
	// this mount creates; 0 takes the superblock's.
	OClass, DirOClass object.Class
	// DirCache keeps the directories a lookup walks through in a per-mount
	// cache, as IOR's DFS backend keeps directory handles. What another
	// mount does to a cached directory is seen: a lookup through the
	// cache that finds nothing walks again without it (a removed
	// directory's object has no entries), and a create, mkdir or rename
	// reads its parent's entry again, so it never inserts into a
	// directory another mount removed or renamed. What is not seen is
	// another mount's rename of a directory further up: a lookup of an
	// entry that is still there finds it under the old path until this
	// mount walks it again.
	DirCache bool
	// OIDBatch is how many object ids the mount reserves at a time; 0
	// means 1024.
	OIDBatch int
}

// FS is a mounted DFS namespace. Its methods may be called from many
// goroutines at once.
type FS struct {
	cont  object.Container
	sb    Superblock
	root  Inode
	opts  Options
	alloc *allocator
	cache *dirCache
	made  *made
}

// Mount mounts the DFS namespace in cont, formatting cont first when it
// has no superblock (unless opts.ReadOnly). Of several Mounts of one
// container at once, exactly one formats it; the others wait for it.
// Unmount does not close cont.
func Mount(ctx context.Context, cont object.Container, opts Options) (*FS, error) {
	sb, err := readSuperblock(ctx, cont)
	if errors.Is(err, ErrNotFormatted) && !opts.ReadOnly {
		sb, err = format(ctx, cont)
	}
	if err != nil {
		return nil, fmt.Errorf("mount DFS: %w", err)
	}
	b, err := cont.Get(ctx, SuperblockOID(), rootDkey, inodeAkey)
	if err != nil {
		return nil, fmt.Errorf("mount DFS: read the root's inode: %w", err)
	}
	root, err := decodeInode(b)
	if err == nil && (!root.IsDir() || root.OID != rootOID(root.OClass)) {
		err = fmt.Errorf("mode %v, object %v: %w (want a directory, id 1)", root.Mode, root.OID, object.ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("mount DFS: the root's inode: %w", err)
	}
	if opts, err = sb.resolve(opts); err != nil {
		return nil, fmt.Errorf("mount DFS: %w", err)
	}
	f := &FS{cont: cont, sb: sb, root: root, opts: opts, alloc: newAllocator(cont, opts.OIDBatch), made: newMade()}
	if opts.DirCache {
		f.cache = newDirCache()
	}
	return f, nil
}

// resolve fills opts's zero defaults from the superblock and checks them.
func (sb Superblock) resolve(opts Options) (Options, error) {
	opts.ChunkSize = cmp.Or(opts.ChunkSize, sb.ChunkSize)
	opts.OClass = cmp.Or(opts.OClass, sb.OClass)
	opts.DirOClass = cmp.Or(opts.DirOClass, sb.DirOClass)
	p := object.ContProps{ChunkSize: opts.ChunkSize, OClass: opts.OClass, DirOClass: opts.DirOClass}
	if err := p.Check(); err != nil {
		return opts, fmt.Errorf("options: %w", err)
	}
	return opts, nil
}

// format writes the root's entry and the superblock from cont's props, or
// waits for the mount that won the race to write the root's entry to
// finish its superblock.
func format(ctx context.Context, cont object.Container) (Superblock, error) {
	p := cont.Props().WithDefaults()
	if err := p.Check(); err != nil {
		return Superblock{}, fmt.Errorf("format: container props: %w", err)
	}
	sb := Superblock{Version: SBVersion, Layout: LayoutVersion, ChunkSize: p.ChunkSize, OClass: p.OClass, DirOClass: p.DirOClass}
	now := time.Now()
	root := Inode{Mode: fs.ModeDir | 0o755, OID: rootOID(p.DirOClass), Atime: now, Mtime: now, Ctime: now, OClass: p.DirOClass}
	b, err := root.encode()
	if err != nil {
		return Superblock{}, fmt.Errorf("format: %w", err)
	}
	err = cont.Insert(ctx, SuperblockOID(), rootDkey, inodeAkey, b)
	if errors.Is(err, object.ErrExist) {
		return awaitFormat(ctx, cont)
	}
	if err == nil {
		err = writeSuperblock(ctx, cont, sb)
	}
	if err != nil {
		return Superblock{}, fmt.Errorf("format: %w", err)
	}
	return sb, nil
}

// awaitFormat polls the superblock until its magic is there or ctx ends.
func awaitFormat(ctx context.Context, cont object.Container) (Superblock, error) {
	t := time.NewTimer(0)
	defer t.Stop()
	for wait := 50 * time.Microsecond; ; wait = min(2*wait, 10*time.Millisecond) {
		select {
		case <-ctx.Done():
			return Superblock{}, fmt.Errorf("wait for another mount to format: %w", ctx.Err())
		case <-t.C:
		}
		sb, err := readSuperblock(ctx, cont)
		if !errors.Is(err, ErrNotFormatted) {
			return sb, err
		}
		t.Reset(wait)
	}
}

// Superblock returns what the mounted container's superblock says.
func (f *FS) Superblock() Superblock { return f.sb }

// Container returns the container the namespace is mounted on.
func (f *FS) Container() object.Container { return f.cont }

// Unmount releases the mount; the container stays open. The ids left in
// its batches are not handed back (DAOS's are not either).
func (f *FS) Unmount() error { return nil }

// writable returns an error wrapping EROFS when the mount is read-only.
func (f *FS) writable() error {
	if f.opts.ReadOnly {
		return fmt.Errorf("read-only mount: %w", syscall.EROFS)
	}
	return nil
}
