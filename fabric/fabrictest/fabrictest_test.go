package fabrictest

import "testing"

// TestPattern checks that the content check catches the corruptions a
// transport makes: a flipped byte, a chunk lost or repeated at a multiple of
// 256 bytes (a buffer boundary), and another message's bytes.
func TestPattern(t *testing.T) {
	const size = 1 << 20
	good := pattern(size, 3)
	if err := checkPattern(good, 3); err != nil {
		t.Fatalf("checkPattern of an intact message: %v", err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"flipped byte", func() []byte { b := pattern(size, 3); b[size/2] ^= 1; return b }()},
		{"lost 4 KiB chunk", append(pattern(size, 3)[:8192], pattern(size, 3)[12288:]...)},
		{"repeated 256 B chunk", append(pattern(size, 3)[:512], pattern(size, 3)[256:]...)},
		{"repeated 64 KiB chunk", append(pattern(size, 3)[:1<<17], pattern(size, 3)[1<<16:]...)},
		{"another seed", pattern(size, 4)},
	} {
		if err := checkPattern(tc.b, 3); err == nil {
			t.Errorf("checkPattern missed a %s", tc.name)
		}
	}
}

func TestSizeName(t *testing.T) {
	for size, want := range map[int]string{
		8: "8B", 1000: "1000B", 1 << 10: "1KiB", 64 << 10: "64KiB",
		65537: "65537B", 1 << 20: "1MiB", 4 << 20: "4MiB", 1536 << 10: "1536KiB",
	} {
		if got := sizeName(size); got != want {
			t.Errorf("sizeName(%d) = %q; want %q", size, got, want)
		}
	}
}
