package ofi

import "math/bits"

// Buffered sends copy their message into a buffer of the endpoint's pool,
// sized by powers of two, and give it back when the send completes.
const (
	poolMinShift = 12 // 4 KiB, the smallest class
	poolClasses  = 20 // up to 2 GiB
	poolKeep     = 8  // free buffers kept per class
)

// bufPool holds free buffers by size class; guarded by its owner's mu.
type bufPool [poolClasses][][]byte

// class is the size class of an n-byte buffer: the smallest power of two
// from 4 KiB that holds n.
func class(n int) int {
	if n <= 1<<poolMinShift {
		return 0
	}
	return bits.Len(uint(n-1)) - poolMinShift
}

// getBufLocked returns an n-byte buffer from the pool, or a new one.
func (p *bufPool) getBufLocked(n int) []byte {
	c := class(n)
	if c >= poolClasses {
		return make([]byte, n)
	}
	if q := p[c]; len(q) > 0 {
		b := q[len(q)-1]
		p[c] = q[:len(q)-1]
		return b[:n]
	}
	return make([]byte, n, 1<<(c+poolMinShift))
}

// putBufLocked gives b back to the pool, which keeps a few per class.
func (p *bufPool) putBufLocked(b []byte) {
	c := class(cap(b))
	if c >= poolClasses || cap(b) != 1<<(c+poolMinShift) || len(p[c]) >= poolKeep {
		return
	}
	p[c] = append(p[c], b[:0])
}

// getBufLocked and putBufLocked are the endpoint's pool's, with its mu
// held.
func (e *endpoint) getBufLocked(n int) []byte { return e.pool.getBufLocked(n) }

func (e *endpoint) putBufLocked(b []byte) { e.pool.putBufLocked(b) }
