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
	if rem := int(addrOf(raw) % Align); rem != 0 {
		off = Align - rem
	}
	return raw[off : off+n : off+n]
}

// addrOf is the address of b's first byte; b is not empty.
func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }
