package aiori

import "unsafe"

// AlignedBuffer returns a zeroed buffer of n bytes whose first byte is
// aligned to Align, as Direct I/O needs. It allocates; call it outside any
// timed loop.
func AlignedBuffer(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	raw := make([]byte, n+Align)
	off := 0
	if rem := int(uintptr(unsafe.Pointer(&raw[0])) % Align); rem != 0 {
		off = Align - rem
	}
	return raw[off : off+n : off+n]
}
