package namespace

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Superblock is what a formatted container's superblock says.
type Superblock struct {
	// Version and Layout are the superblock and layout versions.
	Version, Layout uint16
	// ChunkSize is the default chunk size of files.
	ChunkSize int64
	// OClass and DirOClass are the default classes of files and
	// directories.
	OClass, DirOClass object.Class
}

// sbField is one akey of the superblock: its name and width in bytes.
type sbField struct {
	akey  string
	width int
}

// sbFields returns the superblock's akeys, the magic first; sbValues and
// Superblock.values hold their values in the same order.
func sbFields() [6]sbField {
	return [6]sbField{{akMagic, 8}, {akSBVersion, 2}, {akLayout, 2}, {akChunkSize, 8}, {akOClass, 2}, {akDirOClass, 2}}
}

// values returns the akeys' values, the magic first.
func (sb Superblock) values() [6]uint64 {
	return [6]uint64{Magic, uint64(sb.Version), uint64(sb.Layout), uint64(sb.ChunkSize), uint64(sb.OClass), uint64(sb.DirOClass)}
}

// writeSuperblock Puts sb's akeys, the magic last, so a superblock with a
// magic is whole.
func writeSuperblock(ctx context.Context, cont object.Container, sb Superblock) error {
	fields, vals := sbFields(), sb.values()
	for i := range fields {
		j := (i + 1) % len(fields) // 1, 2, ..., 0: the magic last
		b := make([]byte, 8)
		binary.LittleEndian.PutUint64(b, vals[j])
		if err := cont.Put(ctx, SuperblockOID(), sbDkey, fields[j].akey, b[:fields[j].width]); err != nil {
			return fmt.Errorf("write superblock akey %s: %w", fields[j].akey, err)
		}
	}
	return nil
}

// ErrNotFormatted says a container has no DFS superblock.
var ErrNotFormatted = errors.New("no superblock (the container is not formatted)")

// readSuperblock reads and checks the superblock: ErrNotFormatted when its
// magic is absent, a wrapped object.ErrInvalid when it is not ours.
func readSuperblock(ctx context.Context, cont object.Container) (Superblock, error) {
	var vals [6]uint64
	for i, f := range sbFields() { // the magic first: without it the rest may be half written
		b, err := cont.Get(ctx, SuperblockOID(), sbDkey, f.akey)
		if i == 0 && object.IsNotExist(err) {
			return Superblock{}, ErrNotFormatted
		}
		if err != nil {
			return Superblock{}, fmt.Errorf("read superblock akey %s: %w", f.akey, err)
		}
		if len(b) != f.width {
			return Superblock{}, fmt.Errorf("read superblock akey %s: %d bytes: %w (want %d)", f.akey, len(b), object.ErrInvalid, f.width)
		}
		var v [8]byte
		copy(v[:], b)
		vals[i] = binary.LittleEndian.Uint64(v[:])
		if i == 0 && vals[0] != Magic {
			break // checkSuperblock says so before reading what is not ours
		}
	}
	sb := Superblock{Version: uint16(vals[1]), Layout: uint16(vals[2]), ChunkSize: int64(vals[3]),
		OClass: object.Class(vals[4]), DirOClass: object.Class(vals[5])}
	return sb, checkSuperblock(vals[0], sb)
}

// checkSuperblock says whether a superblock with magic m is one this
// package reads.
func checkSuperblock(m uint64, sb Superblock) error {
	switch {
	case m != Magic:
		return fmt.Errorf("superblock magic %#x: %w (want %#x: not a DFS container)", m, object.ErrInvalid, Magic)
	case sb.Version != SBVersion:
		return fmt.Errorf("superblock version %d: %w (this build reads %d)", sb.Version, object.ErrInvalid, SBVersion)
	case sb.Layout != LayoutVersion:
		return fmt.Errorf("layout version %d: %w (this build reads %d)", sb.Layout, object.ErrInvalid, LayoutVersion)
	}
	p := object.ContProps{ChunkSize: sb.ChunkSize, OClass: sb.OClass, DirOClass: sb.DirOClass}
	if err := p.Check(); err != nil {
		return fmt.Errorf("superblock defaults: %w", err)
	}
	return nil
}
