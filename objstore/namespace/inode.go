package namespace

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"time"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// inodeVersion is the first byte of every encoded inode.
const inodeVersion = 1

// inodeFixed is the length of an encoded inode without its link target.
const inodeFixed = 57

// maxTarget is the longest symbolic link target (PATH_MAX less its NUL).
const maxTarget = 4095

// POSIX file type and permission bits, as the inode stores its mode.
const (
	sIFMT  = 0o170000
	sIFDIR = 0o040000
	sIFREG = 0o100000
	sIFLNK = 0o120000
	sISUID = 0o4000
	sISGID = 0o2000
	sISVTX = 0o1000
)

// Inode is a directory entry's record: what the entry is and where its
// object is. It is stored under akey DFS_INODE of the entry's dkey.
type Inode struct {
	// Mode is the entry's type (fs.ModeDir, fs.ModeSymlink or none for a
	// regular file) and permission bits.
	Mode fs.FileMode
	// OID is the entry's object (zero for a symbolic link).
	OID object.OID
	// Atime, Mtime and Ctime are the access, modification and change
	// times, to the nanosecond.
	Atime, Mtime, Ctime time.Time
	// ChunkSize is a regular file's chunk size, 0 for other entries.
	ChunkSize int64
	// OClass is the class of the entry's object (OID's class), 0 for a
	// symbolic link.
	OClass object.Class
	// Target is a symbolic link's target, empty for other entries.
	Target string
}

// IsDir reports whether the inode is a directory's.
func (in Inode) IsDir() bool { return in.Mode.IsDir() }

// encode returns the inode as the package doc's table lays it out, or an
// error for an inode decodeInode would refuse.
func (in Inode) encode() ([]byte, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	b := make([]byte, inodeFixed+len(in.Target))
	b[0] = inodeVersion
	le := binary.LittleEndian
	le.PutUint32(b[1:], posixMode(in.Mode))
	le.PutUint64(b[5:], in.OID.Hi)
	le.PutUint64(b[13:], in.OID.Lo)
	le.PutUint64(b[21:], uint64(in.Atime.UnixNano()))
	le.PutUint64(b[29:], uint64(in.Mtime.UnixNano()))
	le.PutUint64(b[37:], uint64(in.Ctime.UnixNano()))
	le.PutUint64(b[45:], uint64(in.ChunkSize))
	le.PutUint16(b[53:], uint16(in.OClass))
	le.PutUint16(b[55:], uint16(len(in.Target)))
	copy(b[inodeFixed:], in.Target)
	return b, nil
}

// decodeInode decodes what encode writes. The bytes come from
// storage, so every field is checked: a decoded inode re-encodes to b.
func decodeInode(b []byte) (Inode, error) {
	if len(b) < inodeFixed {
		return Inode{}, fmt.Errorf("decode inode: %d bytes: %w (want at least %d)", len(b), object.ErrInvalid, inodeFixed)
	}
	if b[0] != inodeVersion {
		return Inode{}, fmt.Errorf("decode inode: version %d: %w (want %d)", b[0], object.ErrInvalid, inodeVersion)
	}
	le := binary.LittleEndian
	mode, err := fileMode(le.Uint32(b[1:]))
	if err != nil {
		return Inode{}, fmt.Errorf("decode inode: %w", err)
	}
	n := int(le.Uint16(b[55:]))
	if len(b) != inodeFixed+n {
		return Inode{}, fmt.Errorf("decode inode: %d bytes with a %d-byte target: %w", len(b), n, object.ErrInvalid)
	}
	in := Inode{
		Mode:      mode,
		OID:       object.OID{Hi: le.Uint64(b[5:]), Lo: le.Uint64(b[13:])},
		Atime:     time.Unix(0, int64(le.Uint64(b[21:]))),
		Mtime:     time.Unix(0, int64(le.Uint64(b[29:]))),
		Ctime:     time.Unix(0, int64(le.Uint64(b[37:]))),
		ChunkSize: int64(le.Uint64(b[45:])),
		OClass:    object.Class(le.Uint16(b[53:])),
		Target:    string(b[inodeFixed:]),
	}
	if err := in.check(); err != nil {
		return Inode{}, fmt.Errorf("decode inode: %w", err)
	}
	return in, nil
}

// check says whether the inode's fields agree with its type.
func (in Inode) check() error {
	const allowed = fs.ModeDir | fs.ModeSymlink | fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	if in.Mode&^allowed != 0 || in.Mode&(fs.ModeDir|fs.ModeSymlink) == fs.ModeDir|fs.ModeSymlink {
		return fmt.Errorf("inode mode %v: %w", in.Mode, object.ErrInvalid)
	}
	link := in.Mode&fs.ModeSymlink != 0
	switch {
	case link && (in.OID != object.OID{} || in.OClass != 0 || in.ChunkSize != 0):
		return fmt.Errorf("symbolic link inode with object %v class %d chunk size %d: %w", in.OID, in.OClass, in.ChunkSize, object.ErrInvalid)
	case link && (in.Target == "" || len(in.Target) > maxTarget):
		return fmt.Errorf("symbolic link target of %d bytes: %w (want 1 to %d)", len(in.Target), object.ErrInvalid, maxTarget)
	case link:
		return nil
	case in.Target != "":
		return fmt.Errorf("inode of mode %v with a link target: %w", in.Mode, object.ErrInvalid)
	case !in.OClass.Valid() || in.OID.Class() != in.OClass:
		return fmt.Errorf("inode object %v of class %d: %w (want a valid class the id carries)", in.OID, in.OClass, object.ErrInvalid)
	case in.IsDir() && in.ChunkSize != 0:
		return fmt.Errorf("directory inode with chunk size %d: %w", in.ChunkSize, object.ErrInvalid)
	case in.IsDir():
		return nil
	}
	return object.CheckChunkSize(in.ChunkSize)
}

// posixMode returns m as a POSIX mode_t.
func posixMode(m fs.FileMode) uint32 {
	p := uint32(m.Perm())
	switch {
	case m&fs.ModeDir != 0:
		p |= sIFDIR
	case m&fs.ModeSymlink != 0:
		p |= sIFLNK
	case m&fs.ModeType == 0:
		p |= sIFREG
	}
	for _, b := range modeBits() {
		if m&b.fs != 0 {
			p |= b.posix
		}
	}
	return p
}

// modeBit is one of the special permission bits in fs's and POSIX's terms.
type modeBit struct {
	fs    fs.FileMode
	posix uint32
}

// modeBits returns the setuid, setgid and sticky bits.
func modeBits() [3]modeBit {
	return [3]modeBit{{fs.ModeSetuid, sISUID}, {fs.ModeSetgid, sISGID}, {fs.ModeSticky, sISVTX}}
}

// fileMode returns the fs.FileMode of a POSIX mode of a directory, a
// regular file or a symbolic link.
func fileMode(p uint32) (fs.FileMode, error) {
	if p&^uint32(sIFMT|0o7777) != 0 {
		return 0, fmt.Errorf("mode %#o: %w (unknown bits)", p, object.ErrInvalid)
	}
	m := fs.FileMode(p & 0o777)
	switch p & sIFMT {
	case sIFDIR:
		m |= fs.ModeDir
	case sIFLNK:
		m |= fs.ModeSymlink
	case sIFREG:
	default:
		return 0, fmt.Errorf("mode %#o: %w (want a directory, a regular file or a symbolic link)", p, object.ErrInvalid)
	}
	for _, b := range modeBits() {
		if p&b.posix != 0 {
			m |= b.fs
		}
	}
	return m, nil
}
