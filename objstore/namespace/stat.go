package namespace

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Info is what Stat reports: the entry's inode and its size.
type Info struct {
	Inode
	// Size is a file's size (its array's), a link's target length, or 0
	// for a directory.
	Size int64
}

// Stat describes the entry at p, without following a link.
func (f *FS) Stat(ctx context.Context, p string) (Info, error) {
	in, err := f.lookup(ctx, p)
	if err == nil {
		var info Info
		if info, err = f.info(ctx, in); err == nil {
			return info, nil
		}
	}
	return Info{}, &fs.PathError{Op: "stat", Path: p, Err: err}
}

// info returns what Stat reports of inode in.
func (f *FS) info(ctx context.Context, in Inode) (Info, error) {
	info := Info{Inode: in}
	switch {
	case in.Mode&fs.ModeSymlink != 0:
		info.Size = int64(len(in.Target))
	case in.Mode.IsRegular():
		n, err := f.cont.ArraySize(ctx, object.Array{OID: in.OID, ChunkSize: in.ChunkSize})
		if err != nil {
			return Info{}, fmt.Errorf("size of %v: %w", in.OID, err)
		}
		info.Size = n
	}
	return info, nil
}
