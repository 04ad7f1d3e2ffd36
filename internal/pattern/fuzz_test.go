package pattern_test

import (
	"testing"

	"github.com/hpcbench/hpcbench/internal/pattern"
)

// FuzzVerify: Verify never panics on any input, and a single changed byte
// of filled data, at any length (including lengths that are not a whole
// number of words), is always reported as exactly its word.
func FuzzVerify(f *testing.F) {
	f.Add([]byte("anything"), uint8(0), 0, uint64(0), int64(0), uint16(16), uint16(3), uint8(1))
	f.Add([]byte{}, uint8(1), 7, uint64(1600000000), int64(1<<30), uint16(4097), uint16(4096), uint8(0x80))
	f.Add([]byte{1, 2, 3}, uint8(2), 1<<20, uint64(1)<<63, int64(-8), uint16(13), uint16(12), uint8(0xff))
	f.Add([]byte{9}, uint8(3), -1, uint64(5), int64(1<<62), uint16(8200), uint16(8199), uint8(2))
	f.Fuzz(func(t *testing.T, raw []byte, ty uint8, rank int, sig uint64, off int64, n uint16, pos uint16, mask uint8) {
		typ := pattern.Type(ty % 4)
		// Arbitrary bytes: no panic, a sane count.
		bad, first := pattern.Verify(raw, typ, rank, sig, off)
		words := (len(raw) + 7) / 8
		if bad < 0 || bad > words || (bad == 0) != (first == -1) || first >= words {
			t.Fatalf("Verify(raw %d bytes) = %d, %d", len(raw), bad, first)
		}
		// Filled data verifies; one flipped byte is caught.
		buf := make([]byte, n)
		pattern.Fill(buf, typ, rank, sig, off)
		if bad, first := pattern.Verify(buf, typ, rank, sig, off); bad != 0 || first != -1 {
			t.Fatalf("%v n=%d: fresh fill has %d bad words (first %d)", typ, n, bad, first)
		}
		if n == 0 || mask == 0 {
			return
		}
		p := int(pos) % int(n)
		buf[p] ^= mask
		if bad, first := pattern.Verify(buf, typ, rank, sig, off); bad != 1 || first != p/8 {
			t.Fatalf("%v n=%d: flip %#x at %d: Verify = %d, %d; want 1, %d", typ, n, mask, p, bad, first, p/8)
		}
	})
}
