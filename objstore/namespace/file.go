package namespace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Flags say how Create and Open open a file.
type Flags uint8

const (
	// Excl makes Create fail, with an error wrapping fs.ErrExist, when
	// the entry exists.
	Excl Flags = 1 << iota
	// Trunc truncates an existing file to zero length.
	Trunc
	// ReadOnly makes the handle refuse writes (syscall.EBADF).
	ReadOnly
	// Direct transfers with object.Direct (O_DIRECT).
	Direct
	// DSync transfers with object.Sync (O_DSYNC).
	DSync
)

// ioFlags returns the object flags of a handle's transfers.
func (fl Flags) ioFlags() object.IOFlags {
	var f object.IOFlags
	if fl&Direct != 0 {
		f |= object.Direct
	}
	if fl&DSync != 0 {
		f |= object.Sync
	}
	return f
}

// File is an open regular file: an array object and its chunk size. It
// keeps no state but its flags, so one handle may be used from many
// goroutines, and a handle rebuilt from Handle's bytes by another rank
// reaches the same file.
type File struct {
	cont  object.Container
	arr   object.Array
	flags Flags
}

// OID returns the file's object id.
func (fl *File) OID() object.OID { return fl.arr.OID }

// ChunkSize returns the file's chunk size.
func (fl *File) ChunkSize() int64 { return fl.arr.ChunkSize }

// WriteAt writes p at off and returns len(p), or 0 and an error.
func (fl *File) WriteAt(ctx context.Context, p []byte, off int64) (int, error) {
	if fl.flags&ReadOnly != 0 {
		return 0, fmt.Errorf("write %v at %d: %w (opened read-only)", fl.arr.OID, off, syscall.EBADF)
	}
	if err := fl.cont.WriteArray(ctx, fl.arr, off, p, fl.flags.ioFlags()); err != nil {
		return 0, fmt.Errorf("write %d bytes of %v at %d: %w", len(p), fl.arr.OID, off, err)
	}
	return len(p), nil
}

// ReadAt reads len(p) bytes at off; fewer, at the end of the file, come
// with io.EOF (holes read as zeros).
func (fl *File) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	n, err := fl.cont.ReadArray(ctx, fl.arr, off, p, fl.flags.ioFlags())
	switch {
	case err == nil:
		return n, nil
	case errors.Is(err, io.EOF):
		return n, io.EOF
	}
	return n, fmt.Errorf("read %d bytes of %v at %d: %w", len(p), fl.arr.OID, off, err)
}

// Size returns the file's size.
func (fl *File) Size(ctx context.Context) (int64, error) {
	n, err := fl.cont.ArraySize(ctx, fl.arr)
	if err != nil {
		return 0, fmt.Errorf("size of %v: %w", fl.arr.OID, err)
	}
	return n, nil
}

// Truncate sets the file's size, cutting it or extending it with zeros.
func (fl *File) Truncate(ctx context.Context, size int64) error {
	if fl.flags&ReadOnly != 0 {
		return fmt.Errorf("truncate %v to %d: %w (opened read-only)", fl.arr.OID, size, syscall.EBADF)
	}
	if err := fl.cont.SetSize(ctx, fl.arr, size); err != nil {
		return fmt.Errorf("truncate %v to %d: %w", fl.arr.OID, size, err)
	}
	return nil
}

// Sync makes the file's written bytes stable.
func (fl *File) Sync(ctx context.Context) error {
	if err := fl.cont.SyncArray(ctx, fl.arr); err != nil {
		return fmt.Errorf("sync %v: %w", fl.arr.OID, err)
	}
	return nil
}

// Close releases the handle. DFS keeps no client state, so it has nothing
// to flush; other handles of the file stay usable.
func (fl *File) Close() error { return nil }
