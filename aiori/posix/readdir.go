package posix

import (
	"encoding/binary"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// direntBuf is the buffer getdents64 fills: entries of a directory of
// millions of names come 1,000 at a time or so.
const direntBuf = 64 << 10

// ReadDir lists directory path (aiori.Lister) with getdents64, each
// entry's kind from the directory itself (d_type; an lstat only where the
// file system does not say), its name handed to fn in the buffer: no
// allocation per entry, so a find counts a directory of a million files
// at the rate the kernel lists them.
func (b *Backend) ReadDir(path string, fn func(name []byte, dir bool)) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("posix: readdir %s: %w", path, &os.PathError{Op: "open", Path: path, Err: err})
	}
	defer unix.Close(fd)
	buf := make([]byte, direntBuf)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("posix: readdir %s: %w", path, err)
		}
		if n <= 0 {
			return nil
		}
		if err := parseDirents(buf[:n], func(name []byte, typ uint8) error {
			dir := typ == unix.DT_DIR
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				if err := unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					return fmt.Errorf("posix: readdir %s: lstat %s: %w", path, name, err)
				}
				dir = st.Mode&unix.S_IFMT == unix.S_IFDIR
			}
			fn(name, dir)
			return nil
		}); err != nil {
			return err
		}
	}
}

// parseDirents calls fn with the name and type of every linux_dirent64 in
// b but "." and "..": d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1),
// then the name, NUL-terminated, padded to d_reclen.
func parseDirents(b []byte, fn func(name []byte, typ uint8) error) error {
	const hdr = 19
	for len(b) > 0 {
		if len(b) < hdr {
			return fmt.Errorf("posix: readdir: a dirent of %d bytes", len(b))
		}
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < hdr || reclen > len(b) {
			return fmt.Errorf("posix: readdir: a dirent of length %d in %d bytes", reclen, len(b))
		}
		name := b[hdr:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if !(len(name) == 1 && name[0] == '.') && !(len(name) == 2 && name[0] == '.' && name[1] == '.') {
			if err := fn(name, b[18]); err != nil {
				return err
			}
		}
		b = b[reclen:]
	}
	return nil
}
