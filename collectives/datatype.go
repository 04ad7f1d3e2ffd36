package collectives

import (
	"fmt"
	"strings"
)

// Datatype is the element type of a reduction buffer. Buffers are byte
// slices holding elements in the machine's native byte order (as MPI
// buffers do), len(buf) a multiple of Size. The zero value is invalid.
type Datatype uint8

// The datatypes.
const (
	Byte    Datatype = iota + 1 // 8-bit unsigned; reductions wrap around
	Int32                       // 32-bit two's complement; Sum and Prod wrap
	Int64                       // 64-bit two's complement; Sum and Prod wrap
	Uint64                      // 64-bit unsigned; Sum and Prod wrap
	Float32                     // IEEE 754 binary32
	Float64                     // IEEE 754 binary64
)

// datatypeNames, datatypeSizes and opNames are read-only tables.
var datatypeNames = [...]string{Byte: "byte", Int32: "int32", Int64: "int64", Uint64: "uint64", Float32: "float32", Float64: "float64"}

var datatypeSizes = [...]int{Byte: 1, Int32: 4, Int64: 8, Uint64: 8, Float32: 4, Float64: 8}

// Datatypes lists the valid datatypes in order.
func Datatypes() []Datatype { return []Datatype{Byte, Int32, Int64, Uint64, Float32, Float64} }

// Valid reports whether dt is one of the defined datatypes.
func (dt Datatype) Valid() bool { return dt >= Byte && dt <= Float64 }

// Size returns the size of one element in bytes, or 0 for an invalid
// datatype.
func (dt Datatype) Size() int {
	if !dt.Valid() {
		return 0
	}
	return datatypeSizes[dt]
}

// String returns the datatype's name as ParseDatatype accepts it
// ("float32"), or "Datatype(N)" for an invalid one.
func (dt Datatype) String() string {
	if !dt.Valid() {
		return fmt.Sprintf("Datatype(%d)", uint8(dt))
	}
	return datatypeNames[dt]
}

// ParseDatatype returns the datatype named s (case-insensitive); "float"
// and "double" are accepted for Float32 and Float64, as IMB names them.
func ParseDatatype(s string) (Datatype, error) {
	switch l := strings.ToLower(s); l {
	case "float":
		return Float32, nil
	case "double":
		return Float64, nil
	default:
		for _, dt := range Datatypes() {
			if l == dt.String() {
				return dt, nil
			}
		}
	}
	return 0, fmt.Errorf("collectives: unknown datatype %q: have %s", s, joinStrings(Datatypes()))
}

// Op is a reduction operation. Every Op is commutative and associative
// (floating-point Sum and Prod only up to rounding: see Allreduce for
// how results are kept identical on every rank). The zero value is invalid.
type Op uint8

// The reduction operations.
const (
	Sum  Op = iota + 1 // a + b
	Prod               // a * b
	Min                // the smaller (floats: see ReduceLocal for NaN and -0)
	Max                // the larger (floats: see ReduceLocal for NaN and -0)
)

var opNames = [...]string{Sum: "sum", Prod: "prod", Min: "min", Max: "max"}

// Ops lists the valid operations in order.
func Ops() []Op { return []Op{Sum, Prod, Min, Max} }

// Valid reports whether op is one of the defined operations.
func (op Op) Valid() bool { return op >= Sum && op <= Max }

// String returns the operation's name as ParseOp accepts it ("sum"), or
// "Op(N)" for an invalid one.
func (op Op) String() string {
	if !op.Valid() {
		return fmt.Sprintf("Op(%d)", uint8(op))
	}
	return opNames[op]
}

// ParseOp returns the operation named s (case-insensitive).
func ParseOp(s string) (Op, error) {
	l := strings.ToLower(s)
	for _, op := range Ops() {
		if l == op.String() {
			return op, nil
		}
	}
	return 0, fmt.Errorf("collectives: unknown reduction op %q: have %s", s, joinStrings(Ops()))
}

// joinStrings joins the String forms of xs with ", ".
func joinStrings[T fmt.Stringer](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = x.String()
	}
	return strings.Join(s, ", ")
}
