package fakeverbs

import (
	"sync/atomic"
	"unsafe"
)

// dmaCopy copies src into dst (len(dst) == len(src)) as an adapter's DMA
// appears to a process polling the target: aligned 32-bit words stored
// atomically and in address order, so that a poller of the last byte
// with atomic loads (ib_write_lat's way of learning a write has landed)
// sees it only after every byte before it, and the race detector sees
// stores that such loads synchronise with. Bytes before dst's first
// aligned word, or in a last word that would reach past cap(dst), are
// copied plainly.
func dmaCopy(dst, src []byte) {
	n := len(src)
	full := dst[:cap(dst)]
	i := 0
	if mis := int(uintptr(unsafe.Pointer(unsafe.SliceData(dst))) & 3); mis != 0 {
		i = min(4-mis, n)
		copy(dst[:i], src[:i])
	}
	for ; i < n; i += 4 {
		if i+4 > len(full) {
			copy(dst[i:], src[i:])
			return
		}
		w := (*uint32)(unsafe.Pointer(&full[i]))
		for {
			old := atomic.LoadUint32(w)
			v := old
			for j := i; j < i+4 && j < n; j++ {
				sh := uint(j-i) * 8 // little-endian, as every RDMA host this fakes
				v = v&^(0xff<<sh) | uint32(src[j])<<sh
			}
			if atomic.CompareAndSwapUint32(w, old, v) {
				break
			}
		}
	}
}
