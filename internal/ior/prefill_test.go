package ior

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestRandomPrefill: --randomPrefill fills every block of the file with
// 0xff before the -z -z writes, so that blocks the random writes miss are
// 0xff and not holes; without it, those blocks read as zeros.
func TestRandomPrefill(t *testing.T) {
	const block = 16 << 10
	zeroBlocks := func(prefill string) (zero, ff int) {
		dir := t.TempDir()
		f := filepath.Join(dir, "f")
		j := runJob(t, 2, "-a POSIX -w -k -F -z -z --random-offset-seed=3 -b 16k -t 4k -s 8 -o "+f+prefill, false)
		noErrors(t, j)
		data, err := os.ReadFile(f + ".00000001")
		if err != nil {
			t.Fatal(err)
		}
		if len(data) != 8*block {
			t.Fatalf("file has %d bytes, want %d", len(data), 8*block)
		}
		for b := 0; b < len(data); b += block {
			switch {
			case bytes.Count(data[b:b+block], []byte{0}) == block:
				zero++
			case bytes.Count(data[b:b+block], []byte{0xff}) == block:
				ff++
			}
		}
		return zero, ff
	}
	zero, ff := zeroBlocks("")
	if zero == 0 || ff != 0 {
		t.Fatalf("without --randomPrefill: %d hole blocks, %d 0xff blocks; want some holes (pick another seed) and no 0xff", zero, ff)
	}
	if z, f := zeroBlocks(" --randomPrefill 4k"); z != 0 || f != zero {
		t.Errorf("with --randomPrefill: %d hole blocks, %d 0xff blocks; want 0 and %d", z, f, zero)
	}
}
