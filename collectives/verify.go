package collectives

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"unsafe"
)

// ErrWrongResult means a collective's result differs from Pattern's
// expectation; Pattern.Verify wraps it.
var ErrWrongResult = errors.New("collectives: result differs from the expected data")

// Pattern describes the deterministic data of one collective call, so that
// a benchmark can check every result (IMB's -check): Fill writes what a
// rank contributes, Expected what its result buffer must then hold, and
// Verify compares a result with that, naming the first difference. Each
// costs time proportional to the buffer it writes or reads, not to the
// number of ranks, so a benchmark can afford to check at scale; the cheapest
// way to check every repetition is to call Expected once per message size
// and compare each result with bytes.Equal.
//
// The buffers are the ones passed to the collective (n is one rank's block
// or vector, as in Comm.Algorithm):
//
//	coll       Fill(b, rank): b is         Expected/Verify(b, rank): b is
//	bcast      buf (only root's survives)   buf, every rank
//	scatter    send at root (Size×n)        recv (n), every rank
//	gather     send (n)                     recv at root (Size×n)
//	allgather  send (n)                     recv (Size×n), every rank
//	alltoall   send (Size×n)                recv (Size×n), every rank
//	reduce     send (n)                     recv at root
//	allreduce  send (n)                     recv, every rank
//	barrier    nothing                      nothing
//
// On a rank without a result (HasResult false) Expected and Verify do
// nothing. The byte-moving collectives fill rank r's buffer with a
// pseudo-random stream seeded by (Seed, r), so a block that arrives in the
// wrong place or from the wrong rank is caught. The reductions use small
// values that every op combines exactly in any order (Sum, Min and Max of
// a(i)+b(r); Prod of ±1 and one small factor per element), which holds for
// floats up to 50,000 ranks.
type Pattern struct {
	Coll     string   // the collective, as Collectives names it
	Size     int      // the number of ranks
	Root     int      // the root of bcast, scatter, gather and reduce
	Datatype Datatype // reduce and allreduce only
	Op       Op       // reduce and allreduce only
	Seed     uint64   // varies the data, for example per repetition
}

// HasResult reports whether rank's result buffer is defined after the
// call: false for the non-root ranks of gather and reduce, and for
// barrier.
func (p Pattern) HasResult(rank int) bool {
	switch p.Coll {
	case "gather", "reduce":
		return rank == p.Root
	case "barrier":
		return false
	}
	return true
}

// check validates p for rank and a buffer of n bytes.
func (p Pattern) check(rank, n int) (coll, error) {
	id, ok := lookupColl(p.Coll)
	if !ok {
		return 0, fmt.Errorf("collectives: pattern: unknown collective %q: have %s", p.Coll, strings.Join(collNames[:], ", "))
	}
	if p.Size < 1 || rank < 0 || rank >= p.Size {
		return 0, fmt.Errorf("collectives: pattern for %s: rank %d out of range [0, %d)", p.Coll, rank, p.Size)
	}
	if p.Root < 0 || p.Root >= p.Size {
		return 0, fmt.Errorf("collectives: pattern for %s: root %d out of range [0, %d)", p.Coll, p.Root, p.Size)
	}
	if id == collReduce || id == collAllreduce {
		if err := checkReduce(p.Datatype, p.Op, n); err != nil {
			return 0, fmt.Errorf("collectives: pattern: %w", err)
		}
	}
	return id, nil
}

// blockOf checks that n bytes are Size whole blocks and returns the block.
func (p Pattern) blockOf(what string, n int) (int, error) {
	if n%p.Size != 0 {
		return 0, fmt.Errorf("collectives: pattern for %s: %s of %d bytes is not %d equal blocks", p.Coll, what, n, p.Size)
	}
	return n / p.Size, nil
}

// Fill writes rank's input for the call into b; see Pattern.
func (p Pattern) Fill(b []byte, rank int) error {
	id, err := p.check(rank, len(b))
	if err != nil {
		return err
	}
	switch id {
	case collBarrier:
	case collReduce, collAllreduce:
		p.reduction().fill(b, rank)
	default:
		fillStream(b, p.Seed, rank, 0)
	}
	return nil
}

// Expected writes into b what rank's result buffer must hold after the
// call (nothing on a rank without a result); see Pattern.
func (p Pattern) Expected(b []byte, rank int) error {
	return p.expect(b, rank, 0, len(b))
}

// expect writes bytes [off, off+len(b)) of rank's expected result, of
// total bytes, into b.
func (p Pattern) expect(b []byte, rank, off, total int) error {
	id, err := p.check(rank, total)
	if err != nil || !p.HasResult(rank) {
		return err
	}
	switch id {
	case collBcast:
		fillStream(b, p.Seed, p.Root, off)
	case collScatter:
		// recv holds block rank of root's stream.
		fillStream(b, p.Seed, p.Root, rank*total+off)
	case collGather, collAllgather, collAlltoall:
		n, err := p.blockOf("recv", total)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		// Block j comes from rank j: its whole stream (gather,
		// allgather), or its block for this rank (alltoall).
		for len(b) > 0 {
			j, k := off/n, off%n
			if id == collAlltoall {
				k += rank * n
			}
			m := min(n-off%n, len(b))
			fillStream(b[:m], p.Seed, j, k)
			b, off = b[m:], off+m
		}
	case collReduce, collAllreduce:
		r := p.reduction()
		es := p.Datatype.Size()
		if off%es != 0 || len(b)%es != 0 {
			return fmt.Errorf("collectives: pattern for %s: range [%d, %d) is not whole %s elements", p.Coll, off, off+len(b), p.Datatype)
		}
		r.expected(b, off/es)
	}
	return nil
}

// Verify compares rank's result buffer got with Expected and returns an
// error wrapping ErrWrongResult naming the first differing byte (and element,
// for reductions). It allocates nothing, comparing a few KiB at a time.
func (p Pattern) Verify(got []byte, rank int) error {
	if _, err := p.check(rank, len(got)); err != nil || !p.HasResult(rank) {
		return err
	}
	var chunk [4096]uint64 // 32 KiB, aligned for every datatype
	want := unsafe.Slice((*byte)(unsafe.Pointer(&chunk[0])), len(chunk)*8)
	for off := 0; off < len(got); off += len(want) {
		g := got[off:min(off+len(want), len(got))]
		w := want[:len(g)]
		if err := p.expect(w, rank, off, len(got)); err != nil {
			return err
		}
		if bytes.Equal(g, w) {
			continue
		}
		i := 0
		for g[i] == w[i] {
			i++
		}
		if p.Coll == "reduce" || p.Coll == "allreduce" {
			es := p.Datatype.Size()
			e := i / es * es
			return fmt.Errorf("%w: %s %s %s on rank %d of %d (seed %d): element %d (byte %d) is %s, want %s",
				ErrWrongResult, p.Coll, p.Datatype, p.Op, rank, p.Size, p.Seed, (off+e)/es, off+i,
				formatElement(p.Datatype, g[e:e+es]), formatElement(p.Datatype, w[e:e+es]))
		}
		return fmt.Errorf("%w: %s on rank %d of %d (seed %d): byte %d of %d is %#02x, want %#02x",
			ErrWrongResult, p.Coll, rank, p.Size, p.Seed, off+i, len(got), g[i], w[i])
	}
	return nil
}

// formatElement formats one native-order element of type dt.
func formatElement(dt Datatype, b []byte) string {
	switch dt {
	case Byte:
		return fmt.Sprint(b[0])
	case Int32:
		return fmt.Sprint(int32(binary.NativeEndian.Uint32(b)))
	case Int64:
		return fmt.Sprint(int64(binary.NativeEndian.Uint64(b)))
	case Uint64:
		return fmt.Sprint(binary.NativeEndian.Uint64(b))
	case Float32:
		return fmt.Sprint(math.Float32frombits(binary.NativeEndian.Uint32(b)))
	default:
		return fmt.Sprint(math.Float64frombits(binary.NativeEndian.Uint64(b)))
	}
}

// mix is SplitMix64's output function: a cheap, well-mixed hash.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// streamWord returns word w (bytes 8w to 8w+7) of id's stream.
func streamWord(seed uint64, id, w int) uint64 {
	return mix(seed ^ uint64(id)*0xd1b54a32d192ed03 ^ mix(uint64(w)))
}

// fillStream writes bytes [off, off+len(dst)) of id's pseudo-random stream
// into dst. The stream is defined in little-endian words, the same on
// every machine.
func fillStream(dst []byte, seed uint64, id, off int) {
	if k := off % 8; k != 0 && len(dst) > 0 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], streamWord(seed, id, off/8))
		c := copy(dst, w[k:])
		dst, off = dst[c:], off+c
	}
	w := off / 8
	for ; len(dst) >= 8; w++ {
		binary.LittleEndian.PutUint64(dst, streamWord(seed, id, w))
		dst = dst[8:]
	}
	if len(dst) > 0 {
		var t [8]byte
		binary.LittleEndian.PutUint64(t[:], streamWord(seed, id, w))
		copy(dst, t[:])
	}
}

// reduction computes the values of a reduce or allreduce pattern in
// "units": integers that are the element itself for integer types
// (wrapping to the type's width) and for float products, and four times it
// for other float ops, so that every value and partial result is exact.
//
// Sum, Min and Max inputs are a(i) + b(k) for element i on rank k. Integer
// sums use the full width (wrapping is exact); everything else stays small
// so that nothing overflows and floats stay exact (|a+b| ≤ 80, in
// quarters). Prod inputs are ±1 except on one rank per element, which holds
// a factor of 2 to 9, and the sign of rank k's element i is the parity of
// the bits of k in a per-element mask.
type reduction struct {
	Pattern
	unit  float64 // a float element is units/unit; 0 for integer types
	aMod  uint64  // a(i) = hash % aMod − aOff, or the full hash when aMod is 0
	aOff  int64
	bMod  uint64 // b(k) likewise
	bOff  int64
	aSeed uint64 // per-element and per-rank hash seeds
	bSeed uint64
}

func (p Pattern) reduction() reduction {
	r := reduction{Pattern: p, aSeed: mix(p.Seed ^ 0x5eed), bSeed: mix(p.Seed ^ 0xa11)}
	float := p.Datatype == Float32 || p.Datatype == Float64
	switch {
	case float:
		r.unit = 4
		if p.Op == Prod {
			r.unit = 1
		}
		r.aMod, r.aOff, r.bMod, r.bOff = 513, 256, 129, 64
	case p.Op == Sum:
		// full width
	case p.Datatype == Byte:
		r.aMod, r.bMod = 128, 128
	case p.Datatype == Uint64:
		r.aMod, r.bMod = 1<<40, 128
	default:
		r.aMod, r.aOff, r.bMod, r.bOff = 1<<21, 1<<20, 2049, 1024
	}
	return r
}

// elemHash is element i's hash.
func (r *reduction) elemHash(i int) uint64 { return mix(r.aSeed ^ uint64(i)*0x9e3779b97f4a7c15) }

// a returns element i's part of a Sum, Min or Max input.
func (r *reduction) a(i int) int64 {
	h := r.elemHash(i)
	if r.aMod == 0 {
		return int64(h)
	}
	return int64(h%r.aMod) - r.aOff
}

// b returns rank k's part of a Sum, Min or Max input.
func (r *reduction) b(k int) int64 {
	h := mix(r.bSeed ^ uint64(k)*0xd1b54a32d192ed03)
	if r.bMod == 0 {
		return int64(h)
	}
	return int64(h%r.bMod) - r.bOff
}

// prod returns element i's Prod parameters: the rank whose value carries
// the factor, the factor (2 to 9, sign random), and the sign mask.
func (r *reduction) prod(i int) (owner int, factor int64, mask uint64) {
	h := r.elemHash(i)
	owner = int(h % uint64(r.Size))
	factor = int64(h>>16%8) + 2
	if h>>19&1 != 0 {
		factor = -factor
	}
	return owner, factor, h >> 20
}

// fill writes rank k's input vector into b.
func (r reduction) fill(b []byte, k int) {
	if r.Op == Prod {
		r.store(b, 0, func(u []int64, first int) {
			for j := range u {
				owner, factor, mask := r.prod(first + j)
				v := int64(1)
				if owner == k {
					v = factor
				}
				if bits.OnesCount64(mask&uint64(k))&1 != 0 {
					v = -v
				}
				u[j] = v
			}
		})
		return
	}
	bk := r.b(k)
	r.store(b, 0, func(u []int64, first int) {
		for j := range u {
			u[j] = r.a(first+j) + bk
		}
	})
}

// expected writes elements first, first+1, … of the result into b.
func (r reduction) expected(b []byte, first int) {
	switch r.Op {
	case Prod:
		// The product of the signs is the parity of the mask bits that are
		// set in an odd number of the ranks 0 … Size−1.
		var odd uint64
		for j := range 63 {
			if onesBelow(r.Size, j)%2 == 1 {
				odd |= 1 << j
			}
		}
		r.store(b, first, func(u []int64, first int) {
			for j := range u {
				_, factor, mask := r.prod(first + j)
				if bits.OnesCount64(mask&odd)&1 != 0 {
					factor = -factor
				}
				u[j] = factor
			}
		})
	case Sum:
		var sum int64
		for k := range r.Size {
			sum += r.b(k)
		}
		size := int64(r.Size)
		r.store(b, first, func(u []int64, first int) {
			for j := range u {
				u[j] = size*r.a(first+j) + sum
			}
		})
	default:
		best := r.b(0)
		for k := 1; k < r.Size; k++ {
			if v := r.b(k); r.Op == Min && v < best || r.Op == Max && v > best {
				best = v
			}
		}
		r.store(b, first, func(u []int64, first int) {
			for j := range u {
				u[j] = r.a(first+j) + best
			}
		})
	}
}

// onesBelow counts the numbers in [0, n) with bit j set.
func onesBelow(n, j int) int {
	period := 1 << (j + 1)
	return n/period<<j + max(0, n%period-1<<j)
}

// store writes elements first, first+1, … into b: gen fills a chunk of
// units for the elements starting at its second argument, and store
// converts them to the datatype.
func (r reduction) store(b []byte, first int, gen func(u []int64, first int)) {
	switch r.Datatype {
	case Byte:
		storeAs[uint8](b, first, gen, 0)
	case Int32:
		storeAs[int32](b, first, gen, 0)
	case Int64:
		storeAs[int64](b, first, gen, 0)
	case Uint64:
		storeAs[uint64](b, first, gen, 0)
	case Float32:
		storeAs[float32](b, first, gen, r.unit)
	case Float64:
		storeAs[float64](b, first, gen, r.unit)
	}
}

// storeAs converts chunks of units to T, a float element being units/unit
// (unit 0 for integer types), through an aligned array so that b need not
// be aligned.
func storeAs[T number](b []byte, first int, gen func(u []int64, first int), unit float64) {
	var units [512]int64
	var chunk [512]T
	size := int(unsafe.Sizeof(chunk[0]))
	for len(b) > 0 {
		n := min(len(b)/size, len(chunk))
		u := units[:n]
		gen(u, first)
		c := chunk[:n]
		if unit != 0 {
			for i, v := range u {
				c[i] = T(float64(v) / unit)
			}
		} else {
			for i, v := range u {
				c[i] = T(v)
			}
		}
		b = b[copy(b, asBytes(c)):]
		first += n
	}
}
