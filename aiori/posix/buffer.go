package posix

import "github.com/hpcbench/hpcbench/aiori"

// AllocBuffer gives IOR its transfer buffer: with O_DIRECT, and for n of
// aiori.HugeBufferMin or more, in transparent huge pages (aiori.HugeBuffer:
// an O_DIRECT transfer's pages are pinned and handed to the device one
// physically contiguous run at a time), unless --posix.basepages; else, or
// when the mapping fails, an aiori.AlignedBuffer, as IOR's. One buffer at a
// time: FreeBuffer releases it.
func (b *Backend) AllocBuffer(n int) []byte {
	if !b.hugeBuffer(n) {
		return aiori.AlignedBuffer(n)
	}
	buf, free, err := aiori.HugeBuffer(n)
	if err != nil {
		return aiori.AlignedBuffer(n)
	}
	b.freeBuf, b.huge = free, true
	return buf
}

// Describe says, for the run record, that IOR's transfer buffer was in
// huge pages when it was: a figure that differs from IOR's for that reason
// should say so. Otherwise the buffer is IOR's, and it says nothing.
func (b *Backend) Describe() map[string]string {
	if !b.huge {
		return nil
	}
	return map[string]string{"posix.buffer": "transparent huge pages (O_DIRECT; --posix.basepages for IOR's base pages)"}
}

// FreeBuffer releases what AllocBuffer mapped; an AlignedBuffer is the
// garbage collector's.
func (b *Backend) FreeBuffer([]byte) {
	if b.freeBuf != nil {
		b.freeBuf()
		b.freeBuf = nil
	}
}

// hugeBuffer reports whether AllocBuffer(n) places the buffer in huge pages.
func (b *Backend) hugeBuffer(n int) bool {
	return b.opts.ODirect && !b.opts.BasePages && n >= aiori.HugeBufferMin
}
