package imb

import (
	"encoding/binary"
	"math"
)

// The data every send buffer holds, so that every received or reduced
// buffer has one known right content (-check). IMB fills its buffers with
// BUF_VALUE(rank, i); these differ in form but serve the same purpose:
// every byte depends on the sending rank, the message size and its
// position, so a block from the wrong rank, at the wrong offset or of an
// earlier size is caught.

// patternByte is byte i of the data rank sends at message size size.
func patternByte(rank, size, i int) byte {
	x := uint64(i)*0x9E3779B97F4A7C15 + uint64(rank+1)*0xBF58476D1CE4E5B9 + uint64(size)*0x94D049BB133111EB
	x ^= x >> 29
	return byte(x >> 56)
}

// fillPattern fills b with rank's data at size, starting at index from.
func fillPattern(b []byte, rank, size, from int) {
	for i := range b {
		b[i] = patternByte(rank, size, from+i)
	}
}

// elemValue is float32 element e of rank's reduction input. The values are
// small integers, so sums over up to a million ranks are exact in float32
// whatever the order of additions, and a reduced buffer can be compared
// bit for bit.
func elemValue(rank, e int) float32 {
	return float32(1 + (rank+e)%13 + rank%7)
}

// fillElems fills b (a whole number of float32s) with rank's reduction
// input.
func fillElems(b []byte, rank int) {
	for e := 0; e+4 <= len(b); e += 4 {
		binary.LittleEndian.PutUint32(b[e:], math.Float32bits(elemValue(rank, e/4)))
	}
}

// fillSum fills b with the sum over ranks 0..np-1 of their reduction input.
func fillSum(b []byte, np int) {
	for e := 0; e+4 <= len(b); e += 4 {
		var sum float32
		for r := range np {
			sum += elemValue(r, e/4)
		}
		binary.LittleEndian.PutUint32(b[e:], math.Float32bits(sum))
	}
}

// fillSend fills this rank's send buffer for benchmark b at size.
func fillSend(b benchmark, send []byte, rank, size int) {
	if b.reduction {
		fillElems(send, rank)
		return
	}
	fillPattern(send, rank, size, 0)
}

// wantFunc writes into want (as long as x.recv) what x.recv must hold after
// a repetition whose root is root, and reports whether this rank has a
// result to check at all (a Gather's non-root has none).
type wantFunc func(x *sizeRun, root int, want []byte) bool

// wantNothing is for Barrier, which moves no data.
func wantNothing(*sizeRun, int, []byte) bool { return false }

// wantPeer: PingPong and PingPing receive the other rank's data.
func wantPeer(x *sizeRun, _ int, want []byte) bool {
	fillPattern(want, 1-x.rank, x.size, 0)
	return true
}

// wantLeft: Sendrecv receives from the rank on its left.
func wantLeft(x *sizeRun, _ int, want []byte) bool {
	fillPattern(want, (x.rank+x.np-1)%x.np, x.size, 0)
	return true
}

// wantExchange: the first half comes from the left neighbour (the half it
// sent right), the second from the right neighbour (the half it sent left).
func wantExchange(x *sizeRun, _ int, want []byte) bool {
	left, right := (x.rank+x.np-1)%x.np, (x.rank+1)%x.np
	fillPattern(want[:x.size], left, x.size, 0)
	fillPattern(want[x.size:], right, x.size, x.size)
	return true
}

// wantSum: the element-wise sum of every rank's input, at the root only for
// Reduce.
func wantSum(rooted bool) wantFunc {
	return func(x *sizeRun, root int, want []byte) bool {
		if rooted && x.rank != root {
			return false
		}
		fillSum(want, x.np)
		return true
	}
}

// wantGathered: block j comes from rank j; at the root only for Gather.
func wantGathered(rooted bool) wantFunc {
	return func(x *sizeRun, root int, want []byte) bool {
		if rooted && x.rank != root {
			return false
		}
		for j := range x.np {
			fillPattern(want[j*x.size:(j+1)*x.size], j, x.size, 0)
		}
		return true
	}
}

// wantScattered: this rank's block of the root's buffer.
func wantScattered(x *sizeRun, root int, want []byte) bool {
	fillPattern(want, root, x.size, x.rank*x.size)
	return true
}

// wantAlltoall: block j is the block rank j addressed to this rank.
func wantAlltoall(x *sizeRun, _ int, want []byte) bool {
	for j := range x.np {
		fillPattern(want[j*x.size:(j+1)*x.size], j, x.size, x.rank*x.size)
	}
	return true
}

// wantBcast: the root's data, everywhere but at the root (whose buffer is
// its send buffer).
func wantBcast(x *sizeRun, root int, want []byte) bool {
	if x.rank == root {
		return false
	}
	fillPattern(want, root, x.size, 0)
	return true
}
