//go:build !(linux && (amd64 || arm64 || riscv64 || loong64 || ppc64le))

package posix

import "golang.org/x/sys/unix"

// pwrite is unix.Pwrite where the raw call of rawio.go is not written
// (32-bit platforms pass the offset in two registers).
func pwrite(fd int, p []byte, off int64) (int, error) { return unix.Pwrite(fd, p, off) }

// pread is unix.Pread where the raw call of rawio.go is not written.
func pread(fd int, p []byte, off int64) (int, error) { return unix.Pread(fd, p, off) }
