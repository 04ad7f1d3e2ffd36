package pattern_test

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/pattern"
)

var allTypes = []pattern.Type{pattern.Timestamp, pattern.Offset, pattern.Incompressible, pattern.Random}

func TestParseType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want pattern.Type
	}{
		{"timestamp", pattern.Timestamp},
		{"t", pattern.Timestamp},
		{"offset", pattern.Offset},
		{"o", pattern.Offset},
		{"incompressible", pattern.Incompressible},
		{"i", pattern.Incompressible},
		{"random", pattern.Random},
		{"r", pattern.Random},
		{"Random", pattern.Random}, // case does not matter
		{"O", pattern.Offset},
	} {
		got, err := pattern.ParseType(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseType(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if got.String() != strings.ToLower(tc.in) && got.String()[:1] != strings.ToLower(tc.in) {
			t.Errorf("String() = %q does not match %q", got, tc.in)
		}
	}
	// IOR takes the first letter of anything; we reject what is not a
	// name or an initial.
	for _, in := range []string{"", "x", "olive", "ti", "timestamps", "g", " t"} {
		_, err := pattern.ParseType(in)
		if !errors.Is(err, pattern.ErrUnknownType) {
			t.Errorf("ParseType(%q) error = %v, want ErrUnknownType", in, err)
			continue
		}
		for _, want := range []string{fmt.Sprintf("%q", in), "timestamp", "offset", "incompressible", "random"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("ParseType(%q) error %q does not contain %q", in, err, want)
			}
		}
	}
}

func TestTypeStringAndText(t *testing.T) {
	t.Parallel()
	for _, ty := range allTypes {
		b, err := ty.MarshalText()
		if err != nil {
			t.Fatalf("%v.MarshalText: %v", ty, err)
		}
		var back pattern.Type
		if err := back.UnmarshalText(b); err != nil || back != ty {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", b, back, err, ty)
		}
	}
	if got, want := pattern.Type(7).String(), "Type(7)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if _, err := pattern.Type(-1).MarshalText(); !errors.Is(err, pattern.ErrUnknownType) {
		t.Errorf("MarshalText(-1) error = %v, want ErrUnknownType", err)
	}
	if pattern.Timestamp.PerTransfer() || !pattern.Offset.PerTransfer() || !pattern.Random.PerTransfer() || !pattern.Incompressible.PerTransfer() {
		t.Error("PerTransfer must be false for timestamp only")
	}
}

// TestGolden pins the file format: these values must never change, or files
// written by an earlier version stop verifying.
func TestGolden(t *testing.T) {
	t.Parallel()
	const sig = 0x5f5e1000 // 1600000000, a Unix time
	words := []struct {
		ty     pattern.Type
		rank   int
		offset int64
		i      int
		want   uint64
	}{
		// timestamp: rank<<32 | uint32(sig+i), the offset does not matter.
		{pattern.Timestamp, 3, 0, 0, 0x00000003_5f5e1000},
		{pattern.Timestamp, 3, 1 << 40, 5, 0x00000003_5f5e1005},
		{pattern.Timestamp, 0, 0, 1 << 20, 0x00000000_5f6e1000},
		// offset: stamps at i%512==0 are the word's file offset ^ rank<<48.
		{pattern.Offset, 3, 1 << 20, 0, 0x0003_0000_0010_0000},
		{pattern.Offset, 3, 1 << 20, 512, 0x0003_0000_0010_1000},
		{pattern.Offset, 3, 1 << 20, 1, 0x00000003_5f5e1001},
		{pattern.Incompressible, 2, 8192, 1024, 0x0002_0000_0000_4000},
		// The pseudo-random words, computed from the documented formula
		// by an independent (Python) implementation.
		{pattern.Incompressible, 2, 8192, 1, 0x9126882dd54f9c7b},
		{pattern.Random, 2, 8192, 0, 0x65f71b4c9d3b3d1b},
		{pattern.Random, 2, 8192, 1, 0x7afafca5944a9a13},
	}
	for _, w := range words {
		if got := pattern.Word(w.ty, w.rank, sig, w.offset, w.i); got != w.want {
			t.Errorf("Word(%v, rank %d, offset %d, %d) = %#016x, want %#016x", w.ty, w.rank, w.offset, w.i, got, w.want)
		}
	}
	// Whole buffers: 2 stamp intervals and a 5-byte tail, rank 7, offset
	// 3 GiB; the digests also come from the Python implementation.
	sums := map[pattern.Type]string{
		pattern.Timestamp:      "67788ed2a705305cbe9036471069f442dca59e8fa687e2e8a230cf2c0c872b23",
		pattern.Offset:         "8f08437a58d1e68869d0df6f827fffd9ecf0b1cf03b8f4bb4b1cd61675dc36a3",
		pattern.Incompressible: "61a898b3e41a7b8b8907629c0108a8441f32f9826e980b8eb8dfc706354065e2",
		pattern.Random:         "92c331195e2b25ce9764f2974785318baa34b54d0f5f607ba6b92573195afa4c",
	}
	for _, ty := range allTypes {
		buf := make([]byte, 2*pattern.StampInterval+5)
		pattern.Fill(buf, ty, 7, sig, 3<<30)
		sum := sha256.Sum256(buf)
		if got := hex.EncodeToString(sum[:]); got != sums[ty] {
			t.Errorf("sha256 of Fill(%v) = %s, want %s", ty, got, sums[ty])
		}
	}
}

// TestWordMatchesFill checks Fill and Verify against the slow reference
// Word, for every type and for lengths around the stamp interval.
func TestWordMatchesFill(t *testing.T) {
	t.Parallel()
	for _, ty := range allTypes {
		for _, n := range []int{0, 1, 7, 8, 9, 4095, 4096, 4097, 4103, 4104, 3*4096 + 13} {
			for _, off := range []int64{0, 8, 4096, 1<<33 + 24, -8} {
				buf := make([]byte, n)
				pattern.Fill(buf, ty, 5, 1234567, off)
				for i := 0; 8*i < n; i++ {
					want := pattern.Word(ty, 5, 1234567, off, i)
					var got uint64
					for k := 7; k >= 0; k-- {
						got <<= 8
						if 8*i+k < n {
							got |= uint64(buf[8*i+k])
						} else {
							want &^= 0xff << (8 * k)
						}
					}
					if got != want {
						t.Fatalf("%v n=%d off=%d word %d = %#x, Word = %#x", ty, n, off, i, got, want)
					}
				}
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, ty := range allTypes {
		for _, n := range []int{0, 3, 8, 4096, 4100, 1 << 16, 1<<16 + 8} {
			for _, off := range []int64{0, 1 << 16, 5 << 40} {
				buf := make([]byte, n)
				pattern.Fill(buf, ty, 9, 42, off)
				if bad, first := pattern.Verify(buf, ty, 9, 42, off); bad != 0 || first != -1 {
					t.Errorf("%v n=%d off=%d: Verify = %d, %d; want 0, -1", ty, n, off, bad, first)
				}
			}
		}
	}
}

// TestStamp checks the engine's fast path: Fill once, then Stamp per
// transfer, gives what Fill gives for that transfer.
func TestStamp(t *testing.T) {
	t.Parallel()
	for _, ty := range allTypes {
		for _, n := range []int{5, 4096, 3*4096 + 3, 1 << 16} {
			buf := make([]byte, n)
			want := make([]byte, n)
			pattern.Fill(buf, ty, 1, 99, 0)
			for _, off := range []int64{int64(n), 7 * int64(n), 1 << 41, 0} {
				pattern.Stamp(buf, ty, 1, 99, off)
				pattern.Fill(want, ty, 1, 99, off)
				if !bytes.Equal(buf, want) {
					t.Fatalf("%v n=%d: Stamp(offset %d) differs from Fill", ty, n, off)
				}
			}
		}
	}
}

// TestFlipDetected flips every byte of a buffer, one at a time, and
// expects Verify to report exactly that word.
func TestFlipDetected(t *testing.T) {
	t.Parallel()
	const n = 2*pattern.StampInterval + 21 // stamps at words 0 and 512, a 5-byte tail
	for _, ty := range allTypes {
		buf := make([]byte, n)
		pattern.Fill(buf, ty, 4, 77, 1<<30)
		for pos := range n {
			for _, mask := range []byte{0x01, 0x80, 0xff} {
				buf[pos] ^= mask
				bad, first := pattern.Verify(buf, ty, 4, 77, 1<<30)
				buf[pos] ^= mask
				if bad != 1 || first != pos/8 {
					t.Fatalf("%v: flipping byte %d with %#x: Verify = %d, %d; want 1, %d", ty, pos, mask, bad, first, pos/8)
				}
			}
		}
	}
}

// TestDistinct: the wrong rank, offset or signature fails verification
// wherever the type depends on it.
func TestDistinct(t *testing.T) {
	t.Parallel()
	const n = 3 * pattern.StampInterval
	type params struct {
		rank int
		sig  uint64
		off  int64
	}
	base := params{3, 1000, 1 << 20}
	for _, ty := range allTypes {
		buf := make([]byte, n)
		pattern.Fill(buf, ty, base.rank, base.sig, base.off)
		for _, tc := range []struct {
			name   string
			p      params
			passes bool // the variant still verifies
		}{
			{"other rank", params{4, base.sig, base.off}, false},
			{"rank+65536", params{3 + 1<<16, base.sig, base.off}, false},
			{"other signature", params{base.rank, base.sig + 1, base.off}, false},
			{"other offset", params{base.rank, base.sig, base.off + n}, ty == pattern.Timestamp},
			{"offset+8", params{base.rank, base.sig, base.off + 8}, ty == pattern.Timestamp},
			{"offset+4G", params{base.rank, base.sig, base.off + 1<<32}, ty == pattern.Timestamp},
		} {
			bad, _ := pattern.Verify(buf, ty, tc.p.rank, tc.p.sig, tc.p.off)
			if tc.passes && bad != 0 {
				t.Errorf("%v, %s: %d bad words, want 0", ty, tc.name, bad)
			}
			if !tc.passes && bad == 0 {
				t.Errorf("%v, %s: verifies, want a mismatch", ty, tc.name)
			}
			// The offset and incompressible stamps alone must tell
			// positions apart: count only stamp words.
			if (ty == pattern.Offset || ty == pattern.Incompressible) && strings.HasPrefix(tc.name, "offset") {
				for i := 0; i < n/8; i += pattern.StampInterval / 8 {
					if pattern.Word(ty, base.rank, base.sig, base.off, i) == pattern.Word(ty, tc.p.rank, tc.p.sig, tc.p.off, i) {
						t.Errorf("%v, %s: stamp word %d is the same", ty, tc.name, i)
					}
				}
			}
		}
	}
}

// TestRandomIndependentOfTransferSize: random data written with one
// transfer size verifies with another.
func TestRandomIndependentOfTransferSize(t *testing.T) {
	t.Parallel()
	big := make([]byte, 1<<16)
	pattern.Fill(big, pattern.Random, 2, 5, 1<<20)
	for off := 0; off < len(big); off += 1 << 12 {
		if bad, _ := pattern.Verify(big[off:off+1<<12], pattern.Random, 2, 5, 1<<20+int64(off)); bad != 0 {
			t.Fatalf("4 KiB piece at %d: %d bad words", off, bad)
		}
	}
}

func TestPoison(t *testing.T) {
	t.Parallel()
	for _, ty := range allTypes {
		for _, n := range []int{1, 8, 13, 4096, 1 << 16} {
			buf := make([]byte, n)
			pattern.Fill(buf, ty, 1, 2, 0)
			pattern.Poison(buf)
			for i, b := range buf {
				if b != pattern.PoisonByte {
					t.Fatalf("Poison left byte %d = %#x", i, b)
				}
			}
			if bad, first := pattern.Verify(buf, ty, 1, 2, 0); bad != (n+7)/8 || first != 0 {
				t.Errorf("%v n=%d poisoned: Verify = %d, %d; want every word bad", ty, n, bad, first)
			}
		}
	}
	pattern.Poison(nil) // must not panic
}

func TestCompressibility(t *testing.T) {
	t.Parallel()
	const n = 1 << 20
	for _, tc := range []struct {
		ty       pattern.Type
		minRatio float64 // compressed/original must be at least this
		maxRatio float64 // and at most this
	}{
		{pattern.Incompressible, 0.99, 2},
		{pattern.Random, 0.99, 2},
		{pattern.Timestamp, 0, 0.5},
		{pattern.Offset, 0, 0.5},
	} {
		buf := make([]byte, n)
		pattern.Fill(buf, tc.ty, 3, 1600000000, 1<<30)
		var out bytes.Buffer
		w, err := flate.NewWriter(&out, flate.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(buf); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		ratio := float64(out.Len()) / n
		t.Logf("%v: 1 MiB deflates to %d bytes (%.4f)", tc.ty, out.Len(), ratio)
		if ratio < tc.minRatio || ratio > tc.maxRatio {
			t.Errorf("%v: compression ratio %.4f, want within [%.2f, %.2f]", tc.ty, ratio, tc.minRatio, tc.maxRatio)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	buf := make([]byte, 1<<16+3)
	for _, ty := range allTypes {
		for name, f := range map[string]func(){
			"Fill":   func() { pattern.Fill(buf, ty, 1, 2, 4096) },
			"Stamp":  func() { pattern.Stamp(buf, ty, 1, 2, 8192) },
			"Verify": func() { pattern.Verify(buf, ty, 1, 2, 8192) },
			"Poison": func() { pattern.Poison(buf) },
		} {
			if a := testing.AllocsPerRun(10, f); a != 0 {
				t.Errorf("%s(%v) allocates %.1f times", name, ty, a)
			}
		}
	}
}

func TestMismatch(t *testing.T) {
	t.Parallel()
	buf := make([]byte, 8*3+2)
	pattern.Fill(buf, pattern.Timestamp, 1, 16, 4096)
	buf[8] ^= 0xff
	buf[24] ^= 0x01
	for _, tc := range []struct {
		word int
		want string
	}{
		{1, "offset 4096 word 1: want 0x0000000100000011 got 0x00000001000000ee"},
		{3, "offset 4096 word 3: want 0x0013 got 0x0012"}, // a 2-byte tail
		{0, "offset 4096 word 0: want 0x0000000100000010 got 0x0000000100000010"},
		{4, "offset 4096 word 4: outside the 26-byte transfer"},
		{-1, "offset 4096 word -1: outside the 26-byte transfer"},
	} {
		if got := pattern.Mismatch(buf, pattern.Timestamp, 1, 16, 4096, tc.word); got != tc.want {
			t.Errorf("Mismatch(word %d) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestInvalidTypePanics(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(){
		"Fill":   func() { pattern.Fill(make([]byte, 8), 9, 0, 0, 0) },
		"Stamp":  func() { pattern.Stamp(make([]byte, 8), 9, 0, 0, 0) },
		"Verify": func() { pattern.Verify(make([]byte, 8), 9, 0, 0, 0) },
		"Word":   func() { pattern.Word(9, 0, 0, 0, 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s with an invalid type did not panic", name)
				}
			}()
			f()
		}()
	}
}

// TestTypeJSON checks the type as the run record carries it: by name.
func TestTypeJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(struct{ T pattern.Type }{pattern.Offset})
	if err != nil || string(b) != `{"T":"offset"}` {
		t.Errorf("JSON = %s, %v", b, err)
	}
	var back struct{ T pattern.Type }
	if err := json.Unmarshal([]byte(`{"T":"random"}`), &back); err != nil || back.T != pattern.Random {
		t.Errorf("JSON back = %v, %v", back.T, err)
	}
	if err := json.Unmarshal([]byte(`{"T":"nope"}`), &back); err == nil {
		t.Error("unmarshal of an unknown type succeeded")
	}
	if _, err := json.Marshal(pattern.Type(9)); err == nil {
		t.Error("marshalled an unknown type")
	}
	if _, err := pattern.ParseType("x"); err == nil || err.Error() != `unknown data packet type "x": want timestamp, offset, incompressible or random (or t, o, i, r)` {
		t.Errorf("ParseType(x) error %v", err)
	}
}
