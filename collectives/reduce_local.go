package collectives

import (
	"fmt"
	"unsafe"
)

// ReduceLocal computes inout[i] = inout[i] op in[i] for every element of
// type dt, in place. inout and in must have the same length, a multiple of
// dt.Size(); they may be the same slice but must not otherwise overlap.
//
// Integer Sum and Prod wrap around. Float Min and Max compare with < and >:
// a NaN in inout is kept and a NaN in in ignored, and of −0 and +0 the one
// in inout is kept, so only in those cases does the result depend on which
// operand is which (Allreduce keeps that order the same on every rank).
//
// The kernels reinterpret the bytes as a slice of the element type (no
// per-element calls or byte-order conversion), unrolled by eight: a 4 MiB
// float32 sum takes about 0.35 ms (12 GB/s) on the development VM, where a
// plain loop manages half that on cache-resident data. Buffers that are not
// aligned for the type are reduced through an aligned bounce buffer, about
// 30% slower.
func ReduceLocal(dt Datatype, op Op, inout, in []byte) error {
	if err := checkReduce(dt, op, len(inout)); err != nil {
		return err
	}
	if len(in) != len(inout) {
		return fmt.Errorf("collectives: reduce %s %s: operands of %d and %d bytes differ in length", dt, op, len(inout), len(in))
	}
	reduceLocal(dt, op, inout, in)
	return nil
}

// checkReduce validates a datatype, an op and a buffer length.
func checkReduce(dt Datatype, op Op, n int) error {
	if !dt.Valid() {
		return fmt.Errorf("collectives: reduce: invalid datatype %v", dt)
	}
	if !op.Valid() {
		return fmt.Errorf("collectives: reduce: invalid op %v", op)
	}
	if n%dt.Size() != 0 {
		return fmt.Errorf("collectives: reduce %s: buffer of %d bytes is not a whole number of %d-byte elements", dt, n, dt.Size())
	}
	return nil
}

// reduceLocal is ReduceLocal without the checks.
func reduceLocal(dt Datatype, op Op, inout, in []byte) { reduceOrdered(dt, op, inout, in, false) }

// reduceLocalRev computes inout[i] = in[i] op inout[i]: the same as
// reduceLocal except for the operand order, which matters only to Min and
// Max on floats (NaN and signed zeros, see the kernels). The collectives
// use it to put the lower rank's operand first without copying.
func reduceLocalRev(dt Datatype, op Op, inout, in []byte) { reduceOrdered(dt, op, inout, in, true) }

func reduceOrdered(dt Datatype, op Op, inout, in []byte, rev bool) {
	switch dt {
	case Byte:
		reduceAs[uint8](op, rev, inout, in)
	case Int32:
		reduceAs[int32](op, rev, inout, in)
	case Int64:
		reduceAs[int64](op, rev, inout, in)
	case Uint64:
		reduceAs[uint64](op, rev, inout, in)
	case Float32:
		reduceAs[float32](op, rev, inout, in)
	case Float64:
		reduceAs[float64](op, rev, inout, in)
	}
}

// number is the element types of the Datatypes.
type number interface {
	~uint8 | ~int32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// kernelFor returns the loop computing a = a op b, or a = b op a if rev.
// Sum and Prod are commutative for every type, IEEE floats included (the
// compiler may swap the operands of a float addition itself), so they have
// one kernel each.
func kernelFor[T number](op Op, rev bool) func(a, b []T) {
	switch {
	case op == Sum:
		return sumKernel[T]
	case op == Prod:
		return prodKernel[T]
	case op == Min && rev:
		return minKernelRev[T]
	case op == Min:
		return minKernel[T]
	case rev:
		return maxKernelRev[T]
	default:
		return maxKernel[T]
	}
}

// reduceAs reduces the bytes as elements of type T.
func reduceAs[T number](op Op, rev bool, inout, in []byte) {
	if len(inout) == 0 {
		return
	}
	k := kernelFor[T](op, rev)
	if aligned[T](inout) && aligned[T](in) {
		k(asSlice[T](inout), asSlice[T](in))
		return
	}
	// Bounce through aligned arrays, a chunk at a time.
	const chunk = 512
	var ta, tb [chunk]T
	size := int(unsafe.Sizeof(ta[0]))
	for len(inout) > 0 {
		n := min(len(inout)/size, chunk)
		ab, bb := asBytes(ta[:n]), asBytes(tb[:n])
		copy(ab, inout)
		copy(bb, in)
		k(ta[:n], tb[:n])
		copy(inout, ab)
		inout, in = inout[len(ab):], in[len(ab):]
	}
}

// aligned reports whether b's first byte is aligned for a T.
func aligned[T number](b []byte) bool {
	var zero T
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))%unsafe.Alignof(zero) == 0
}

// asSlice views the bytes of b, aligned for T, as a []T of len(b)/size
// elements.
func asSlice[T number](b []byte) []T {
	var zero T
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(zero)))
}

// asBytes views the memory of s as bytes.
func asBytes[T number](s []T) []byte {
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// The kernels, unrolled by 8 over array pointers so that the compiler
// drops the bounds checks and keeps eight independent operations in
// flight (twice as fast as a plain loop on cache-resident data; the same at
// memory speed). Min and Max compare with < and >, which compile to
// conditional moves, rather than calling the builtins, whose NaN and signed
// zero handling makes them twice as slow for floats. So for floats a NaN in
// a is kept and a NaN in b ignored, and of -0 and +0 the one in a is kept:
// the result depends on operand order only in those cases, and the
// collectives keep the order the same on every rank.

func sumKernel[T number](a, b []T) {
	b = b[:len(a)]
	for len(a) >= 8 {
		x, y := (*[8]T)(a), (*[8]T)(b)
		x[0] += y[0]
		x[1] += y[1]
		x[2] += y[2]
		x[3] += y[3]
		x[4] += y[4]
		x[5] += y[5]
		x[6] += y[6]
		x[7] += y[7]
		a, b = a[8:], b[8:]
	}
	b = b[:len(a)]
	for i := range a {
		a[i] += b[i]
	}
}

func prodKernel[T number](a, b []T) {
	b = b[:len(a)]
	for len(a) >= 8 {
		x, y := (*[8]T)(a), (*[8]T)(b)
		x[0] *= y[0]
		x[1] *= y[1]
		x[2] *= y[2]
		x[3] *= y[3]
		x[4] *= y[4]
		x[5] *= y[5]
		x[6] *= y[6]
		x[7] *= y[7]
		a, b = a[8:], b[8:]
	}
	b = b[:len(a)]
	for i := range a {
		a[i] *= b[i]
	}
}

// less2 returns y if y < x, else x.
func less2[T number](x, y T) T {
	if y < x {
		return y
	}
	return x
}

// more2 returns y if y > x, else x.
func more2[T number](x, y T) T {
	if y > x {
		return y
	}
	return x
}

func minKernel[T number](a, b []T) {
	b = b[:len(a)]
	for len(a) >= 8 {
		x, y := (*[8]T)(a), (*[8]T)(b)
		x[0] = less2(x[0], y[0])
		x[1] = less2(x[1], y[1])
		x[2] = less2(x[2], y[2])
		x[3] = less2(x[3], y[3])
		x[4] = less2(x[4], y[4])
		x[5] = less2(x[5], y[5])
		x[6] = less2(x[6], y[6])
		x[7] = less2(x[7], y[7])
		a, b = a[8:], b[8:]
	}
	b = b[:len(a)]
	for i := range a {
		a[i] = less2(a[i], b[i])
	}
}

func maxKernel[T number](a, b []T) {
	b = b[:len(a)]
	for len(a) >= 8 {
		x, y := (*[8]T)(a), (*[8]T)(b)
		x[0] = more2(x[0], y[0])
		x[1] = more2(x[1], y[1])
		x[2] = more2(x[2], y[2])
		x[3] = more2(x[3], y[3])
		x[4] = more2(x[4], y[4])
		x[5] = more2(x[5], y[5])
		x[6] = more2(x[6], y[6])
		x[7] = more2(x[7], y[7])
		a, b = a[8:], b[8:]
	}
	b = b[:len(a)]
	for i := range a {
		a[i] = more2(a[i], b[i])
	}
}

func minKernelRev[T number](a, b []T) {
	b = b[:len(a)]
	for len(a) >= 8 {
		x, y := (*[8]T)(a), (*[8]T)(b)
		x[0] = less2(y[0], x[0])
		x[1] = less2(y[1], x[1])
		x[2] = less2(y[2], x[2])
		x[3] = less2(y[3], x[3])
		x[4] = less2(y[4], x[4])
		x[5] = less2(y[5], x[5])
		x[6] = less2(y[6], x[6])
		x[7] = less2(y[7], x[7])
		a, b = a[8:], b[8:]
	}
	b = b[:len(a)]
	for i := range a {
		a[i] = less2(b[i], a[i])
	}
}

func maxKernelRev[T number](a, b []T) {
	b = b[:len(a)]
	for len(a) >= 8 {
		x, y := (*[8]T)(a), (*[8]T)(b)
		x[0] = more2(y[0], x[0])
		x[1] = more2(y[1], x[1])
		x[2] = more2(y[2], x[2])
		x[3] = more2(y[3], x[3])
		x[4] = more2(y[4], x[4])
		x[5] = more2(y[5], x[5])
		x[6] = more2(y[6], x[6])
		x[7] = more2(y[7], x[7])
		a, b = a[8:], b[8:]
	}
	b = b[:len(a)]
	for i := range a {
		a[i] = more2(b[i], a[i])
	}
}
