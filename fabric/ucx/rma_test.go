package ucx

import (
	"bytes"
	"testing"
)

func TestKeyRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		addr, length uint64
		rkey         []byte
	}{{0x7f0000001000, 1 << 20, []byte{1, 2, 3}}, {1, 1, []byte{0}}} {
		addr, length, rkey, err := parseKey(formatKey(tc.addr, tc.length, tc.rkey))
		if err != nil || addr != tc.addr || length != tc.length || !bytes.Equal(rkey, tc.rkey) {
			t.Errorf("parseKey(formatKey(%#x, %d, %x)) = %#x, %d, %x, %v", tc.addr, tc.length, tc.rkey, addr, length, rkey, err)
		}
	}
}

func TestParseKeyRefuses(t *testing.T) {
	good := formatKey(0x1000, 64, []byte("packed"))
	forged := append([]byte{^good[0]}, good[1:]...)
	moved := bytes.Clone(good)
	moved[5]++
	for _, tc := range []struct {
		name string
		key  []byte
	}{
		{"nil", nil},
		{"header only", good[:keyHeader]},
		{"truncated", good[:len(good)-1]},
		{"forged checksum", forged},
		{"moved address", moved},
		{"wraps", formatKey(1<<64-10, 64, []byte("x"))},
		{"long", formatKey(1, 1, make([]byte, maxPackedRkey+1))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, _, err := parseKey(tc.key); err == nil {
				t.Errorf("parseKey(%x) succeeded", tc.key)
			}
		})
	}
}

// FuzzParseKey: a remote key from a peer never panics the parser, and
// what it accepts formats back to the same bytes.
func FuzzParseKey(f *testing.F) {
	f.Add(formatKey(0x1000, 64, []byte("packed")))
	f.Add([]byte{})
	f.Add(make([]byte, keyHeader+1))
	f.Fuzz(func(t *testing.T, b []byte) {
		addr, length, rkey, err := parseKey(b)
		if err != nil {
			return
		}
		if got := formatKey(addr, length, rkey); !bytes.Equal(got, b) {
			t.Errorf("formatKey(parseKey(%x)) = %x", b, got)
		}
	})
}
