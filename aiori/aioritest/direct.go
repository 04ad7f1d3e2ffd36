package aioritest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
	"golang.org/x/sys/unix"
)

// ProbeDirect reports whether files in dir can be written and read with
// O_DIRECT: nil when they can, otherwise an error saying why, naming the
// file system type (tmpfs before Linux 6.6 refuses O_DIRECT with EINVAL).
// It creates and removes one file of aiori.Align bytes in dir.
func ProbeDirect(dir string) error {
	f, err := os.CreateTemp(dir, ".aioritest-direct-*")
	if err != nil {
		return fmt.Errorf("O_DIRECT probe in %s: %w", dir, err)
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)

	fd, err := unix.Open(path, unix.O_RDWR|unix.O_DIRECT|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("O_DIRECT is refused in %s (%s): open: %w", dir, fsType(dir), err)
	}
	defer unix.Close(fd)
	buf := aiori.AlignedBuffer(aiori.Align)
	if n, err := unix.Pwrite(fd, buf, 0); err != nil || n != len(buf) {
		return fmt.Errorf("O_DIRECT is refused in %s (%s): write of %d aligned bytes = %d, %w", dir, fsType(dir), len(buf), n, orShort(err))
	}
	if n, err := unix.Pread(fd, buf, 0); err != nil || n != len(buf) {
		return fmt.Errorf("O_DIRECT is refused in %s (%s): read of %d aligned bytes = %d, %w", dir, fsType(dir), len(buf), n, orShort(err))
	}
	return nil
}

// orShort returns err, or an error saying the transfer was short.
func orShort(err error) error {
	if err == nil {
		return errors.New("short transfer")
	}
	return err
}

// fsType names the type of the file system holding dir, for messages.
func fsType(dir string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return "file system type unknown"
	}
	switch uint32(st.Type) {
	case unix.TMPFS_MAGIC:
		return "tmpfs"
	case unix.OVERLAYFS_SUPER_MAGIC:
		return "overlayfs"
	case unix.EXT4_SUPER_MAGIC:
		return "ext4"
	case unix.XFS_SUPER_MAGIC:
		return "xfs"
	case unix.BTRFS_SUPER_MAGIC:
		return "btrfs"
	case unix.NFS_SUPER_MAGIC:
		return "nfs"
	case unix.FUSE_SUPER_MAGIC:
		return "fuse"
	}
	return fmt.Sprintf("file system type %#x", st.Type)
}

// TempDir returns a new directory under parent, removed with its contents
// when t ends. Use it where t.TempDir's location ($TMPDIR) is the wrong
// file system, such as a tmpfs /tmp for O_DIRECT cases.
func TempDir(t testing.TB, parent string) string {
	t.Helper()
	dir, err := os.MkdirTemp(parent, "aioritest-")
	if err != nil {
		t.Fatalf("temporary directory in %s: %v", parent, err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing %s: %v", dir, err)
		}
	})
	return filepath.Clean(dir)
}
