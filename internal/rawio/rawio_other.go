//go:build !(linux && (amd64 || arm64 || riscv64 || loong64 || ppc64le))

package rawio

import "golang.org/x/sys/unix"

// Pwrite is unix.Pwrite where the raw call of rawio.go is not written
// (32-bit platforms pass the offset in two registers).
func Pwrite(fd int, p []byte, off int64) (int, error) { return unix.Pwrite(fd, p, off) }

// Pread is unix.Pread where the raw call of rawio.go is not written.
func Pread(fd int, p []byte, off int64) (int, error) { return unix.Pread(fd, p, off) }
