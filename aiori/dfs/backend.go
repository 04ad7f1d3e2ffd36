package dfs

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"strings"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/objstore/engine"
	"github.com/hpcbench/hpcbench/objstore/namespace"
)

// Name is the backend's registry name, as IOR's.
const Name = "DFS"

// Entry returns the registry entry of the DFS backend.
func Entry() aiori.Entry {
	return aiori.Entry{
		Name:       Name,
		Metadata:   true,
		NewOptions: func() aiori.Options { return DefaultOptions() },
		New:        New,
	}
}

// Backend is the DFS backend of one rank: a mounted DFS namespace in a
// container of the pool, reached through the pool's engines.
type Backend struct {
	opts Options
	ctx  context.Context
	sess *session
	fs   *namespace.FS
	desc map[string]string
}

// New connects this rank to the pool's engines, one per host (the first
// rank of each host brings its host's up when no engine serves the pool
// there), opens the container (rank 0 creates it when it is missing, as
// IOR's DFS backend does) and mounts DFS in it. It is called on every rank
// of the job at once.
func New(o aiori.Options, env aiori.Env) (aiori.Backend, error) {
	opts, ok := o.(*Options)
	if !ok {
		return nil, fmt.Errorf("dfs: options of type %T, want *dfs.Options", o)
	}
	ctx := env.Context
	if ctx == nil {
		ctx = context.Background()
	}
	sess, err := openSession(ctx, opts, env)
	if err != nil {
		return nil, err
	}
	b := &Backend{opts: *opts, ctx: ctx, sess: sess, fs: sess.fs}
	b.desc = b.describe()
	return b, nil
}

// describe gathers the run record's facts (see Describe).
func (b *Backend) describe() map[string]string {
	file, dir := b.opts.classes(b.sess.cont.Props())
	chunk := b.opts.ChunkSize
	if chunk == 0 {
		chunk = b.fs.Superblock().ChunkSize
	}
	d := map[string]string{
		"dfs.pool": b.sess.poolDirs(), "dfs.cont": b.opts.Cont,
		"dfs.oclass": file.String(), "dfs.dir_oclass": dir.String(), "dfs.chunk_size": fmt.Sprint(chunk),
		"dfs.engine": b.sess.enginesWhere(),
	}
	if pi, err := b.sess.pool.Query(b.ctx); err == nil {
		paths := make([]string, len(pi.Targets))
		for i, t := range pi.Targets {
			paths[i] = t.Path
		}
		d["dfs.pool_uuid"] = pi.UUID
		d["dfs.targets"] = fmt.Sprintf("%d on %d file system(s): %s", len(paths), engine.CapacityOf(pi.Targets).FileSystems, strings.Join(paths, ", "))
	}
	if c := b.sess.createdOn(); c != "" {
		d["dfs.pool_created"] = c
	}
	if ci, err := b.sess.pool.QueryCont(b.ctx, b.opts.Cont); err == nil {
		d["dfs.cont_uuid"] = ci.UUID
	}
	return d
}

// Describe returns the pool's directory, uuid and targets, the container,
// the object classes and chunk size of the files the run made, and where
// the engine ran, for the run record.
func (b *Backend) Describe() map[string]string { return maps.Clone(b.desc) }

// Name returns "DFS".
func (b *Backend) Name() string { return Name }

// Version describes the store, for IOR's apiVersion line.
func (b *Backend) Version() string {
	sb := b.fs.Superblock()
	return fmt.Sprintf("hpcbench DFS (layout %d, chunk %d, oclass %v)", sb.Layout, sb.ChunkSize, sb.OClass)
}

// Close unmounts DFS and leaves the pool: after every rank has (the
// engine's rank waits for the others before it stops its engine), and
// with --dfs.destroy rank 0 destroys the container first.
func (b *Backend) Close() error {
	return b.sess.close(b.ctx)
}

// name maps an IOR path to the container's namespace: the mount prefix is
// taken off, and a relative path is taken from the container's root.
func (b *Backend) name(p string) (string, error) {
	if pre := b.opts.Prefix; pre != "" {
		rest, ok := strings.CutPrefix(path.Clean(p), path.Clean(pre))
		if !ok || (rest != "" && !strings.HasPrefix(rest, "/")) {
			return "", fmt.Errorf("dfs: path %s is not under --dfs.prefix %s: %w", p, pre, fs.ErrInvalid)
		}
		p = rest
	}
	return path.Join("/", p), nil
}

func nsFlags(f aiori.OpenFlags) namespace.Flags {
	var n namespace.Flags
	if f&aiori.ReadOnly != 0 {
		n |= namespace.ReadOnly
	}
	if f&aiori.Excl != 0 {
		n |= namespace.Excl
	}
	if f&aiori.Trunc != 0 {
		n |= namespace.Trunc
	}
	if f&aiori.Direct != 0 {
		n |= namespace.Direct
	}
	return n
}

// Create creates (or, with Trunc, truncates) and opens path.
func (b *Backend) Create(p string, flags aiori.OpenFlags) (aiori.File, error) {
	n, err := b.name(p)
	if err != nil {
		return nil, err
	}
	f, err := b.fs.Create(b.ctx, n, 0o644, nsFlags(flags))
	if err != nil {
		return nil, fmt.Errorf("dfs: create %s: %w", p, err)
	}
	return &file{ctx: b.ctx, f: f, path: p}, nil
}

// Open opens an existing path.
func (b *Backend) Open(p string, flags aiori.OpenFlags) (aiori.File, error) {
	n, err := b.name(p)
	if err != nil {
		return nil, err
	}
	f, err := b.fs.Open(b.ctx, n, nsFlags(flags))
	if err != nil {
		return nil, fmt.Errorf("dfs: open %s: %w", p, err)
	}
	return &file{ctx: b.ctx, f: f, path: p}, nil
}

// Remove deletes the file at path.
func (b *Backend) Remove(p string) error {
	return b.do("remove", p, func(n string) error { return b.fs.Remove(b.ctx, n) })
}

// Access reports whether path exists.
func (b *Backend) Access(p string) error {
	return b.do("access", p, func(n string) error { _, err := b.fs.Lookup(b.ctx, n); return err })
}

// FileSize returns the size of the file at path.
func (b *Backend) FileSize(p string) (int64, error) {
	fi, err := b.Stat(p)
	return fi.Size, err
}

// Mkdir creates the directory path.
func (b *Backend) Mkdir(p string, perm fs.FileMode) error {
	return b.do("mkdir", p, func(n string) error { return b.fs.Mkdir(b.ctx, n, perm) })
}

// Rmdir removes the empty directory path.
func (b *Backend) Rmdir(p string) error {
	return b.do("rmdir", p, func(n string) error { return b.fs.Rmdir(b.ctx, n) })
}

// Rename moves from to to, as dfs_move.
func (b *Backend) Rename(from, to string) error {
	nt, err := b.name(to)
	if err != nil {
		return err
	}
	return b.do("rename", from, func(n string) error { return b.fs.Rename(b.ctx, n, nt) })
}

// Stat describes path.
func (b *Backend) Stat(p string) (aiori.FileInfo, error) {
	var fi aiori.FileInfo
	err := b.do("stat", p, func(n string) error {
		in, err := b.fs.Stat(b.ctx, n)
		if err == nil {
			fi = aiori.FileInfo{Size: in.Size, Mode: in.Mode, ModTime: in.Mtime}
		}
		return err
	})
	return fi, err
}

// ReadDir lists directory path (aiori.Lister): its names a batch at a
// time, each entry's kind from its inode (a stat per entry: DFS's
// directory entries hold no type).
func (b *Backend) ReadDir(p string, fn func(name []byte, dir bool)) error {
	return b.do("readdir", p, func(n string) error {
		anchor := ""
		for {
			names, next, err := b.fs.ReadDir(b.ctx, n, anchor, 4096)
			if err != nil {
				return err
			}
			for _, name := range names {
				in, err := b.fs.Stat(b.ctx, path.Join(n, name))
				if err != nil {
					return err
				}
				fn([]byte(name), in.Mode.IsDir())
			}
			if next == "" {
				return nil
			}
			anchor = next
		}
	})
}

// Mknod creates an empty file without keeping it open.
func (b *Backend) Mknod(p string) error {
	return b.do("mknod", p, func(n string) error {
		f, err := b.fs.Create(b.ctx, n, 0o644, namespace.Excl)
		if err != nil {
			return err
		}
		return f.Close()
	})
}

// AllocBuffer returns a buffer of n bytes from the engine connection's
// transport (fabric/shm's arena: a WriteArray from it is copied once, by
// the engine, instead of through the ring), or the heap.
func (b *Backend) AllocBuffer(n int) []byte { return b.sess.clients[b.sess.local].Alloc(n) }

// FreeBuffer gives back a buffer AllocBuffer returned.
func (b *Backend) FreeBuffer(p []byte) { b.sess.clients[b.sess.local].Free(p) }

// Sync has nothing to flush: DFS keeps no cache in the client, as IOR's
// DFS backend says of dfs_sync.
func (b *Backend) Sync() error { return nil }

// Statfs reports the pool's capacity: the sum over its targets' file
// systems. path must exist, as statfs(2)'s.
func (b *Backend) Statfs(p string) (aiori.FSInfo, error) {
	if err := b.Access(p); err != nil {
		return aiori.FSInfo{}, fmt.Errorf("dfs: statfs %s: %w", p, err)
	}
	pi, err := b.sess.pool.Query(b.ctx)
	if err != nil {
		return aiori.FSInfo{}, fmt.Errorf("dfs: statfs %s: query the pool: %w", p, err)
	}
	c := engine.CapacityOf(pi.Targets)
	return aiori.FSInfo{TotalBytes: c.TotalBytes, FreeBytes: c.FreeBytes, TotalInodes: c.TotalInodes, FreeInodes: c.FreeInodes}, nil
}

// do maps p and runs op on the namespace's name for it, wrapping its error
// with what and p.
func (b *Backend) do(what, p string, op func(n string) error) error {
	n, err := b.name(p)
	if err != nil {
		return err
	}
	if err := op(n); err != nil {
		return fmt.Errorf("dfs: %s %s: %w", what, p, err)
	}
	return nil
}

// file is an open DFS file; after Close it refuses every call.
type file struct {
	ctx    context.Context
	f      *namespace.File
	path   string
	closed bool
}

// errClosed is what a closed file's calls wrap, as os.File's.
var errClosed = fs.ErrClosed

func (f *file) WriteAt(p []byte, off int64) (int, error) {
	if f.closed {
		return 0, fmt.Errorf("dfs: write %s: %w", f.path, errClosed)
	}
	return f.f.WriteAt(f.ctx, p, off)
}

func (f *file) ReadAt(p []byte, off int64) (int, error) {
	if f.closed {
		return 0, fmt.Errorf("dfs: read %s: %w", f.path, errClosed)
	}
	return f.f.ReadAt(f.ctx, p, off)
}

func (f *file) Fsync() error {
	if f.closed {
		return fmt.Errorf("dfs: fsync %s: %w", f.path, errClosed)
	}
	return f.f.Sync(f.ctx)
}

func (f *file) Close() error {
	if f.closed {
		return fmt.Errorf("dfs: close %s: %w", f.path, errClosed)
	}
	f.closed = true
	return f.f.Close()
}

var (
	_ aiori.Backend         = (*Backend)(nil)
	_ aiori.Metadata        = (*Backend)(nil)
	_ aiori.Lister          = (*Backend)(nil)
	_ aiori.Syncer          = (*Backend)(nil)
	_ aiori.Statfser        = (*Backend)(nil)
	_ aiori.Describer       = (*Backend)(nil)
	_ aiori.BufferAllocator = (*Backend)(nil)
)
