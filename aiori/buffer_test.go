package aiori

import (
	"testing"
	"unsafe"
)

func TestAlignedBuffer(t *testing.T) {
	for _, n := range []int{0, 1, 511, Align - 1, Align, Align + 1, 3*Align + 7, 1 << 20} {
		b := AlignedBuffer(n)
		if b == nil {
			t.Errorf("AlignedBuffer(%d) = nil; want a non-nil slice", n)
			continue
		}
		if len(b) != n || cap(b) != n {
			t.Errorf("AlignedBuffer(%d): len %d, cap %d; want both %d", n, len(b), cap(b), n)
		}
		if n == 0 {
			continue
		}
		if addr := uintptr(unsafe.Pointer(&b[0])); addr%Align != 0 {
			t.Errorf("AlignedBuffer(%d) starts at %#x, which is %d bytes past a %d-byte boundary", n, addr, addr%Align, Align)
		}
		for i, c := range b {
			if c != 0 {
				t.Errorf("AlignedBuffer(%d)[%d] = %d; want 0", n, i, c)
				break
			}
		}
	}
}

func TestAlignedBufferAppendDoesNotShareTail(t *testing.T) {
	// cap == len, so an append copies instead of writing into the padding
	// that a later AlignedBuffer might be placed after.
	b := AlignedBuffer(Align)
	c := append(b, 1)
	if &b[0] == &c[0] {
		t.Error("append to an AlignedBuffer reused its backing array; want a copy (cap must equal len)")
	}
}
