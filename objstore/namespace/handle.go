package namespace

import (
	"encoding/binary"
	"fmt"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// handleMagic opens every encoded handle; handleLen is its length.
const (
	handleMagic   = "DFSH"
	handleVersion = 1
	handleLen     = 30
)

// Handle returns the handle in a form another rank's OpenHandle turns back
// into a File (dfs_obj_local2global): "DFSH", version 1, flags, OID.Hi,
// OID.Lo and chunk size, little-endian, 30 bytes.
func (fl *File) Handle() []byte {
	b := make([]byte, handleLen)
	copy(b, handleMagic)
	b[4] = handleVersion
	b[5] = byte(fl.flags)
	binary.LittleEndian.PutUint64(b[6:], fl.arr.OID.Hi)
	binary.LittleEndian.PutUint64(b[14:], fl.arr.OID.Lo)
	binary.LittleEndian.PutUint64(b[22:], uint64(fl.arr.ChunkSize))
	return b
}

// OpenHandle returns the File that Handle's bytes b describe, in this
// mount's container (dfs_obj_global2local). On a read-only mount the
// File is read-only.
func (f *FS) OpenHandle(b []byte) (*File, error) {
	a, flags, err := decodeHandle(b)
	if err != nil {
		return nil, err
	}
	if f.opts.ReadOnly {
		flags |= ReadOnly
	}
	return &File{cont: f.cont, arr: a, flags: flags}, nil
}

// decodeHandle decodes what Handle writes.
func decodeHandle(b []byte) (object.Array, Flags, error) {
	if len(b) != handleLen || string(b[:4]) != handleMagic || b[4] != handleVersion {
		return object.Array{}, 0, fmt.Errorf("decode file handle of %d bytes: %w (want %d bytes from Handle, version %d)", len(b), object.ErrInvalid, handleLen, handleVersion)
	}
	flags := Flags(b[5])
	if flags&^(Excl|Trunc|ReadOnly|Direct|DSync) != 0 {
		return object.Array{}, 0, fmt.Errorf("decode file handle: flags %#x: %w", b[5], object.ErrInvalid)
	}
	a := object.Array{
		OID:       object.OID{Hi: binary.LittleEndian.Uint64(b[6:]), Lo: binary.LittleEndian.Uint64(b[14:])},
		ChunkSize: int64(binary.LittleEndian.Uint64(b[22:])),
	}
	if !a.OID.Class().Valid() {
		return object.Array{}, 0, fmt.Errorf("decode file handle: object %v: %w (no valid class)", a.OID, object.ErrInvalid)
	}
	if err := object.CheckChunkSize(a.ChunkSize); err != nil {
		return object.Array{}, 0, fmt.Errorf("decode file handle: %w", err)
	}
	return a, flags, nil
}
