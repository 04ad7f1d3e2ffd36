package pattern

import (
	"encoding/binary"
	"fmt"
)

// Key domains of the pseudo-random types: ASCII "hpcb\x00inc" and
// "hpcb\x00ran" read big-endian. They are part of the file format.
const (
	DomainIncompressible uint64 = 0x6870636200696e63
	DomainRandom         uint64 = 0x687063620072616e
)

// StampInterval is the distance in bytes between two position stamps of
// the Offset and Incompressible types: the stamps are words 0, 512, 1024,
// ... of a transfer.
const StampInterval = 4096

// PoisonByte is the value Poison writes into every byte of a receive
// buffer.
const PoisonByte = 0xa5

const (
	wordSize         = 8
	golden    uint64 = 0x9e3779b97f4a7c15                          // splitmix64's increment
	stepWords uint64 = (wordSize * 0x9e3779b97f4a7c15) % (1 << 64) // stream input step from one word to the next
)

// mix is splitmix64's finalizer (Stafford's variant 13), a bijection on
// uint64 with full avalanche.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// key is the stream key of domain d for signature sig and rank.
func key(d, sig uint64, rank int) uint64 { return mix(mix(sig^d) + uint64(rank)) }

// stampWord is the position stamp of the word at file byte offset pos.
func stampWord(rank int, pos uint64) uint64 { return pos ^ uint64(rank)<<48 }

// tsHigh is the high half of a timestamp word.
func tsHigh(rank int) uint64 { return uint64(uint32(rank)) << 32 }

// Word returns word i of a buffer of type t for pretendRank, signature and
// the transfer at file offset offset, as the package documentation defines
// it. It is the slow reference for one word; Fill and Verify compute the
// same values in bulk. An invalid t panics.
func Word(t Type, pretendRank int, signature uint64, offset int64, i int) uint64 {
	pos := uint64(offset) + wordSize*uint64(i)
	switch t {
	case Timestamp, Offset:
		if t == Offset && i%(StampInterval/wordSize) == 0 {
			return stampWord(pretendRank, pos)
		}
		return tsHigh(pretendRank) | uint64(uint32(signature)+uint32(i))
	case Incompressible:
		if i%(StampInterval/wordSize) == 0 {
			return stampWord(pretendRank, pos)
		}
		return mix(key(DomainIncompressible, signature, pretendRank) + pos*golden)
	case Random:
		return mix(key(DomainRandom, signature, pretendRank) + pos*golden)
	}
	panic(fmt.Sprintf("pattern: invalid data packet type %d", int(t)))
}

// Fill writes the whole content of type t into buf: the transfer at file
// offset offset of pretendRank's data under signature. Any length is
// allowed; a partial last word gets the low-order bytes of its word. An
// invalid t panics. Fill does not allocate.
func Fill(buf []byte, t Type, pretendRank int, signature uint64, offset int64) {
	switch t {
	case Timestamp:
		fillTimestamp(buf, pretendRank, signature)
	case Offset:
		fillTimestamp(buf, pretendRank, signature)
		stamps(buf, pretendRank, offset)
	case Incompressible, Random:
		Stamp(buf, t, pretendRank, signature, offset)
	default:
		panic(fmt.Sprintf("pattern: invalid data packet type %d", int(t)))
	}
}

// Stamp turns a buffer that Fill (or Stamp) prepared with the same t,
// pretendRank and signature, for any offset, into the content for offset,
// doing only the work that depends on the offset: nothing for Timestamp,
// the stamps (one word in 512) for Offset, and every word for
// Incompressible and Random (for those Stamp equals Fill). An invalid t
// panics. Stamp does not allocate.
func Stamp(buf []byte, t Type, pretendRank int, signature uint64, offset int64) {
	switch t {
	case Timestamp:
	case Offset:
		stamps(buf, pretendRank, offset)
	case Incompressible:
		fillStream(buf, key(DomainIncompressible, signature, pretendRank), offset)
		stamps(buf, pretendRank, offset)
	case Random:
		fillStream(buf, key(DomainRandom, signature, pretendRank), offset)
	default:
		panic(fmt.Sprintf("pattern: invalid data packet type %d", int(t)))
	}
}

// putPartial stores the low-order len(b) (< 8) bytes of w into b.
func putPartial(b []byte, w uint64) {
	for k := range b {
		b[k] = byte(w)
		w >>= 8
	}
}

// getPartial loads len(b) (< 8) bytes of b as the low-order bytes of a
// word.
func getPartial(b []byte) uint64 {
	var w uint64
	for k := len(b) - 1; k >= 0; k-- {
		w = w<<8 | uint64(b[k])
	}
	return w
}

func fillTimestamp(buf []byte, rank int, sig uint64) {
	hi, lo := tsHigh(rank), uint32(sig)
	whole := len(buf) &^ (wordSize - 1)
	for w := buf[:whole]; len(w) >= wordSize; w = w[wordSize:] {
		binary.LittleEndian.PutUint64(w[:wordSize], hi|uint64(lo))
		lo++
	}
	putPartial(buf[whole:], hi|uint64(lo))
}

func fillStream(buf []byte, k uint64, offset int64) {
	x := k + uint64(offset)*golden
	whole := len(buf) &^ (wordSize - 1)
	step := stepWords // a variable, so that 2*step etc. wrap instead of overflowing a constant
	w := buf[:whole]
	for ; len(w) >= 4*wordSize; w = w[4*wordSize:] { // unrolled: the words are independent
		binary.LittleEndian.PutUint64(w[0:8], mix(x))
		binary.LittleEndian.PutUint64(w[8:16], mix(x+step))
		binary.LittleEndian.PutUint64(w[16:24], mix(x+2*step))
		binary.LittleEndian.PutUint64(w[24:32], mix(x+3*step))
		x += 4 * step
	}
	for ; len(w) >= wordSize; w = w[wordSize:] {
		binary.LittleEndian.PutUint64(w[:wordSize], mix(x))
		x += stepWords
	}
	putPartial(buf[whole:], mix(x))
}

// stamps writes the position stamps into words 0, 512, 1024, ... of buf.
func stamps(buf []byte, rank int, offset int64) {
	for b := 0; b < len(buf); b += StampInterval {
		s := stampWord(rank, uint64(offset)+uint64(b))
		if b+wordSize <= len(buf) {
			binary.LittleEndian.PutUint64(buf[b:b+wordSize], s)
		} else {
			putPartial(buf[b:], s)
		}
	}
}

// Poison overwrites buf with PoisonByte so that a read which delivers
// nothing, or less than asked, leaves bytes that fail Verify for every
// type (IOR flips only the first byte). It costs one memory-speed pass and
// does not allocate.
func Poison(buf []byte) {
	if len(buf) == 0 {
		return
	}
	buf[0] = PoisonByte
	for n := 1; n < len(buf); n *= 2 {
		copy(buf[n:], buf[:n])
	}
}

// Verify compares every word of buf with the content Fill would write for
// t, pretendRank, signature and offset. It returns how many words differ
// (a partial last word counts as one) and the index of the first one, or
// -1 when none does. IOR counts errors per transfer: the engine counts a
// transfer as corrupt when badWords > 0. An invalid t panics. Verify does
// not allocate.
func Verify(buf []byte, t Type, pretendRank int, signature uint64, offset int64) (badWords, firstBad int) {
	whole := len(buf) &^ (wordSize - 1)
	var r tally
	r.first = -1
	switch t {
	case Timestamp:
		r.add(cmpTimestamp(buf, 0, whole, pretendRank, signature))
	case Random:
		r.add(cmpStream(buf, 0, whole, key(DomainRandom, signature, pretendRank), offset))
	case Offset, Incompressible:
		k := key(DomainIncompressible, signature, pretendRank)
		for b := 0; b < whole; b += StampInterval {
			s := stampWord(pretendRank, uint64(offset)+uint64(b))
			if binary.LittleEndian.Uint64(buf[b:b+wordSize]) != s {
				r.add(1, b/wordSize)
			}
			end := min(b+StampInterval, whole)
			if t == Offset {
				r.add(cmpTimestamp(buf, b+wordSize, end, pretendRank, signature))
			} else {
				r.add(cmpStream(buf, b+wordSize, end, k, offset))
			}
		}
	default:
		panic(fmt.Sprintf("pattern: invalid data packet type %d", int(t)))
	}
	if whole < len(buf) {
		i := whole / wordSize
		tail := buf[whole:]
		want := Word(t, pretendRank, signature, offset, i) & (1<<(8*len(tail)) - 1)
		if getPartial(tail) != want {
			r.add(1, i)
		}
	}
	return r.bad, r.first
}

// tally accumulates mismatch counts in increasing word order.
type tally struct{ bad, first int }

func (r *tally) add(bad, first int) {
	if bad > 0 && r.bad == 0 {
		r.first = first
	}
	r.bad += bad
}

// cmpTimestamp compares the whole words in buf[from:to] with timestamp
// words and returns the mismatches and the first mismatching word index.
func cmpTimestamp(buf []byte, from, to int, rank int, sig uint64) (bad, first int) {
	hi, lo := tsHigh(rank), uint32(sig)+uint32(from/wordSize)
	i := from / wordSize
	w := buf[from:to]
	for ; len(w) >= 4*wordSize; w = w[4*wordSize:] { // unrolled like cmpStream
		d := binary.LittleEndian.Uint64(w[0:8]) ^ (hi | uint64(lo))
		d |= binary.LittleEndian.Uint64(w[8:16]) ^ (hi | uint64(lo+1))
		d |= binary.LittleEndian.Uint64(w[16:24]) ^ (hi | uint64(lo+2))
		d |= binary.LittleEndian.Uint64(w[24:32]) ^ (hi | uint64(lo+3))
		if d != 0 {
			for k := range uint32(4) {
				if binary.LittleEndian.Uint64(w[8*k:8*k+8]) != hi|uint64(lo+k) {
					if bad == 0 {
						first = i + int(k)
					}
					bad++
				}
			}
		}
		lo += 4
		i += 4
	}
	for ; len(w) >= wordSize; w = w[wordSize:] {
		if binary.LittleEndian.Uint64(w[:wordSize]) != hi|uint64(lo) {
			if bad == 0 {
				first = i
			}
			bad++
		}
		lo++
		i++
	}
	return bad, first
}

// cmpStream compares the whole words in buf[from:to] with the stream of
// key k.
func cmpStream(buf []byte, from, to int, k uint64, offset int64) (bad, first int) {
	x := k + (uint64(offset)+uint64(from))*golden
	i := from / wordSize
	step := stepWords
	w := buf[from:to]
	for ; len(w) >= 4*wordSize; w = w[4*wordSize:] { // unrolled: the words are independent
		d := binary.LittleEndian.Uint64(w[0:8]) ^ mix(x)
		d |= binary.LittleEndian.Uint64(w[8:16]) ^ mix(x+step)
		d |= binary.LittleEndian.Uint64(w[16:24]) ^ mix(x+2*step)
		d |= binary.LittleEndian.Uint64(w[24:32]) ^ mix(x+3*step)
		if d != 0 { // rare: find which of the four differ
			for k := range uint64(4) {
				if binary.LittleEndian.Uint64(w[8*k:8*k+8]) != mix(x+k*step) {
					if bad == 0 {
						first = i + int(k)
					}
					bad++
				}
			}
		}
		x += 4 * step
		i += 4
	}
	for ; len(w) >= wordSize; w = w[wordSize:] {
		if binary.LittleEndian.Uint64(w[:wordSize]) != mix(x) {
			if bad == 0 {
				first = i
			}
			bad++
		}
		x += stepWords
		i++
	}
	return bad, first
}

// Mismatch describes word i of buf against its expected value for -v
// output: "offset X word Y: want 0x… got 0x…", X being the transfer's file
// offset. A partial last word is printed with as many hex digits as it has
// bytes. An index outside buf is described as such. An invalid t panics.
func Mismatch(buf []byte, t Type, pretendRank int, signature uint64, offset int64, word int) string {
	if word < 0 || word >= (len(buf)+wordSize-1)/wordSize {
		return fmt.Sprintf("offset %d word %d: outside the %d-byte transfer", offset, word, len(buf))
	}
	want := Word(t, pretendRank, signature, offset, word)
	b := buf[wordSize*word : min(wordSize*word+wordSize, len(buf))]
	var got uint64
	if len(b) == wordSize {
		got = binary.LittleEndian.Uint64(b)
	} else {
		got = getPartial(b)
		want &= 1<<(8*len(b)) - 1
	}
	return fmt.Sprintf("offset %d word %d: want 0x%0*x got 0x%0*x", offset, word, 2*len(b), want, 2*len(b), got)
}
