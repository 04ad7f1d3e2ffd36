package fabrictest

import "fmt"

// patternByte is byte i of the test message with the given seed. It depends
// on the higher bits of i too, so a block shifted by a multiple of 256 bytes
// (a lost or repeated chunk) does not match.
func patternByte(i int, seed byte) byte {
	return byte(i) ^ byte(i>>8)*7 ^ byte(i>>16)*13 ^ byte(i>>24)*31 ^ seed
}

// pattern returns a new size-byte message filled with the seed's pattern.
func pattern(size int, seed byte) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = patternByte(i, seed)
	}
	return b
}

// checkPattern reports the first byte of b that differs from the seed's
// pattern.
func checkPattern(b []byte, seed byte) error {
	for i, v := range b {
		if want := patternByte(i, seed); v != want {
			return fmt.Errorf("byte %d of %d is %#02x, want %#02x (pattern seed %d)", i, len(b), v, want, seed)
		}
	}
	return nil
}
