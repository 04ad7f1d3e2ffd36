package rpc

import (
	"encoding/binary"
	"fmt"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// AppendStrings encodes ss as a u32 count and u32-length-prefixed strings.
func AppendStrings(b []byte, ss []string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ss)))
	for _, s := range ss {
		b = appendBytes(b, s)
	}
	return b
}

// DecodeStrings parses what AppendStrings writes.
func DecodeStrings(b []byte) ([]string, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: a list's count cut short", ErrMalformed)
	}
	n := binary.LittleEndian.Uint32(b)
	b = b[4:]
	if uint64(n) > uint64(len(b)/4) {
		return nil, fmt.Errorf("%w: a list of %d strings in %d bytes", ErrMalformed, n, len(b))
	}
	ss := make([]string, 0, n)
	for range n {
		f, rest, err := cutBytes(b)
		if err != nil {
			return nil, err
		}
		ss, b = append(ss, string(f)), rest
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after a list", ErrMalformed, len(b))
	}
	return ss, nil
}

// targetLen is a target's encoding without its path: index, total and
// free bytes, total and free inodes.
const targetLen = 4 + 4*8

// AppendTargets encodes a pool's targets: a u32 count, then each one's
// index (u32), total and free bytes and inodes (u64), path and file
// system id.
func AppendTargets(b []byte, ts []object.TargetInfo) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(len(ts)))
	for _, t := range ts {
		b = le.AppendUint32(b, uint32(t.Index))
		b = le.AppendUint64(b, t.TotalBytes)
		b = le.AppendUint64(b, t.FreeBytes)
		b = le.AppendUint64(b, t.TotalInodes)
		b = le.AppendUint64(b, t.FreeInodes)
		b = appendBytes(b, t.Path)
		b = appendBytes(b, t.FSID)
	}
	return b
}

// DecodeTargets parses what AppendTargets writes.
func DecodeTargets(b []byte) ([]object.TargetInfo, error) {
	le := binary.LittleEndian
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: a target list's count cut short", ErrMalformed)
	}
	n := le.Uint32(b)
	b = b[4:]
	if uint64(n) > uint64(len(b)/(targetLen+8)) {
		return nil, fmt.Errorf("%w: %d targets in %d bytes", ErrMalformed, n, len(b))
	}
	ts := make([]object.TargetInfo, 0, n)
	for range n {
		if len(b) < targetLen {
			return nil, fmt.Errorf("%w: a target cut short", ErrMalformed)
		}
		t := object.TargetInfo{Index: int(le.Uint32(b)), TotalBytes: le.Uint64(b[4:]), FreeBytes: le.Uint64(b[12:]),
			TotalInodes: le.Uint64(b[20:]), FreeInodes: le.Uint64(b[28:])}
		path, rest, err := cutBytes(b[targetLen:])
		if err != nil {
			return nil, err
		}
		fsid, rest, err := cutBytes(rest)
		if err != nil {
			return nil, err
		}
		t.Path, t.FSID, b = string(path), string(fsid), rest
		ts = append(ts, t)
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the targets", ErrMalformed, len(b))
	}
	return ts, nil
}
