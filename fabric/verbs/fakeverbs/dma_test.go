package fakeverbs

import (
	"bytes"
	"testing"
)

// TestDMACopy: every length and alignment copies exactly, touching no
// byte outside dst.
func TestDMACopy(t *testing.T) {
	for off := 0; off < 4; off++ {
		for n := 0; n <= 17; n++ {
			region := bytes.Repeat([]byte{0xee}, 32)
			src := make([]byte, n)
			for i := range src {
				src[i] = byte(i + 1)
			}
			dmaCopy(region[off:off+n], src)
			want := bytes.Repeat([]byte{0xee}, 32)
			copy(want[off:], src)
			if !bytes.Equal(region, want) {
				t.Errorf("offset %d, %d bytes: %x, want %x", off, n, region, want)
			}
		}
	}
}
