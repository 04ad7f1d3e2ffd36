//go:build unix

package aiori

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// UnixFlags returns the open(2) flags of f: its access mode (O_RDWR when
// it names none), O_CREAT, O_EXCL and O_TRUNC, and O_CLOEXEC always. The
// Direct flag is left to the backend, which may have its own option for
// it. f naming more than one access mode is an error.
func (f OpenFlags) UnixFlags() (int, error) {
	var o int
	switch f & (ReadOnly | WriteOnly | ReadWrite) {
	case ReadOnly:
		o = unix.O_RDONLY
	case WriteOnly:
		o = unix.O_WRONLY
	case ReadWrite, 0:
		o = unix.O_RDWR
	default:
		return 0, fmt.Errorf("open flags %#x set more than one of ReadOnly, WriteOnly and ReadWrite", uint32(f))
	}
	o |= unix.O_CLOEXEC
	if f&Create != 0 {
		o |= unix.O_CREAT
	}
	if f&Excl != 0 {
		o |= unix.O_EXCL
	}
	if f&Trunc != 0 {
		o |= unix.O_TRUNC
	}
	return o, nil
}
