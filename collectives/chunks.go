package collectives

// chunks splits a buffer of count elements of esize bytes into k
// contiguous parts of count/k or count/k+1 elements (some empty when count
// < k). Part i is bytes [off(i), off(i+1)), so parts lo to hi-1 together
// are [off(lo), off(hi)).
type chunks struct{ count, k, esize int }

// off returns the byte offset where part i starts (0 <= i <= k).
func (s chunks) off(i int) int { return s.count * i / s.k * s.esize }

// of returns parts lo to hi-1 of b.
func (s chunks) of(b []byte, lo, hi int) []byte { return b[s.off(lo):s.off(hi)] }

// block returns the i-th of the equal blocks of size n in b.
func block(b []byte, i, n int) []byte { return b[i*n : (i+1)*n] }

// blocks returns blocks lo to hi-1 of size n in b.
func blocks(b []byte, lo, hi, n int) []byte { return b[lo*n : hi*n] }

// rotateFrom copies the blocks of size n in src, which start with the block
// of rank first and continue in rank order modulo len(dst)/n, into rank
// order in dst: src's block i becomes dst's block (first+i) mod p.
func rotateFrom(dst, src []byte, first, n int) {
	if n == 0 {
		return
	}
	k := len(dst)/n - first
	copy(dst[first*n:], src[:k*n])
	copy(dst[:first*n], src[k*n:])
}

// rotateTo is rotateFrom's inverse: it copies the blocks of src, in rank
// order, into dst starting with the block of rank first.
func rotateTo(dst, src []byte, first, n int) {
	if n == 0 {
		return
	}
	k := len(src)/n - first
	copy(dst[:k*n], src[first*n:])
	copy(dst[k*n:], src[:first*n])
}

// sameMemory reports whether a and b start at the same address (an in-place
// call passing one buffer twice).
func sameMemory(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}
