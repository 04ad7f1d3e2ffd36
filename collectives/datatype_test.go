package collectives

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

func TestDatatypeNames(t *testing.T) {
	for _, dt := range Datatypes() {
		got, err := ParseDatatype(dt.String())
		if err != nil || got != dt {
			t.Errorf("ParseDatatype(%q) = %v, %v", dt, got, err)
		}
	}
	if dt, err := ParseDatatype("FLOAT"); dt != Float32 || err != nil {
		t.Errorf("ParseDatatype(FLOAT) = %v, %v", dt, err)
	}
	if _, err := ParseDatatype("int16"); err == nil || !contains(err.Error(), "have byte, int32, int64, uint64, float32, float64") {
		t.Errorf("ParseDatatype(int16): %v", err)
	}
	if s := Datatype(0).String(); s != "Datatype(0)" {
		t.Errorf("Datatype(0) = %q", s)
	}
	if Datatype(9).Size() != 0 || Float64.Size() != 8 || Byte.Size() != 1 {
		t.Error("Size")
	}
	for _, op := range Ops() {
		if got, err := ParseOp(op.String()); err != nil || got != op {
			t.Errorf("ParseOp(%q) = %v, %v", op, got, err)
		}
	}
	if _, err := ParseOp("xor"); err == nil {
		t.Error("ParseOp(xor) accepted")
	}
	if s := Op(7).String(); s != "Op(7)" {
		t.Errorf("Op(7) = %q", s)
	}
}

// naive is the reference reduction, one element at a time through
// encoding/binary.
func naive(dt Datatype, op Op, a, b []byte) {
	ne := binary.NativeEndian
	for i := 0; i < len(a); i += dt.Size() {
		x, y := a[i:], b[i:]
		switch dt {
		case Byte:
			x[0] = naiveOp(op, x[0], y[0])
		case Int32:
			ne.PutUint32(x, uint32(naiveOp(op, int32(ne.Uint32(x)), int32(ne.Uint32(y)))))
		case Int64:
			ne.PutUint64(x, uint64(naiveOp(op, int64(ne.Uint64(x)), int64(ne.Uint64(y)))))
		case Uint64:
			ne.PutUint64(x, naiveOp(op, ne.Uint64(x), ne.Uint64(y)))
		case Float32:
			ne.PutUint32(x, math.Float32bits(naiveOp(op, math.Float32frombits(ne.Uint32(x)), math.Float32frombits(ne.Uint32(y)))))
		case Float64:
			ne.PutUint64(x, math.Float64bits(naiveOp(op, math.Float64frombits(ne.Uint64(x)), math.Float64frombits(ne.Uint64(y)))))
		}
	}
}

func naiveOp[T number](op Op, x, y T) T {
	switch op {
	case Sum:
		return x + y
	case Prod:
		return x * y
	case Min:
		if y < x {
			return y
		}
		return x
	}
	if y > x {
		return y
	}
	return x
}

// TestReduceLocal compares the kernels with the naive reduction on random
// bits (NaNs and infinities included for floats), aligned and not, for
// lengths around the unrolling and bounce-buffer boundaries.
func TestReduceLocal(t *testing.T) {
	for _, dt := range Datatypes() {
		for _, op := range Ops() {
			for _, count := range []int{0, 1, 7, 8, 9, 511, 512, 513, 1500} {
				for _, shift := range []int{0, 1, 3} {
					n := count * dt.Size()
					a := make([]byte, n+shift)[shift:]
					b := make([]byte, n+shift)[shift:]
					fillStream(a, uint64(count), 1, 0)
					fillStream(b, uint64(count), 2, 0)
					want := append([]byte(nil), a...)
					naive(dt, op, want, b)
					// The reversed order: b op a.
					wantRev := append([]byte(nil), b...)
					naive(dt, op, wantRev, a)
					rev := append([]byte(nil), a...)
					reduceLocalRev(dt, op, rev, b)
					if !bytes.Equal(rev, wantRev) {
						t.Errorf("%s %s count %d shift %d: reversed operands differ from naive", dt, op, count, shift)
					}
					if err := ReduceLocal(dt, op, a, b); err != nil {
						t.Fatal(err)
					}
					for i := range a {
						if a[i] != want[i] {
							e := i / dt.Size() * dt.Size()
							t.Errorf("%s %s count %d shift %d: element %d = %s, want %s", dt, op, count, shift, i/dt.Size(),
								formatElement(dt, a[e:e+dt.Size()]), formatElement(dt, want[e:e+dt.Size()]))
							break
						}
					}
				}
			}
		}
	}
}

func TestReduceLocalErrors(t *testing.T) {
	for _, tc := range []struct {
		dt     Datatype
		op     Op
		a, b   int
		substr string
	}{
		{0, Sum, 4, 4, "invalid datatype"},
		{Int32, 9, 4, 4, "invalid op Op(9)"},
		{Int64, Sum, 12, 12, "not a whole number of 8-byte elements"},
		{Int32, Sum, 8, 4, "operands of 8 and 4 bytes"},
	} {
		err := ReduceLocal(tc.dt, tc.op, make([]byte, tc.a), make([]byte, tc.b))
		if err == nil || !contains(err.Error(), tc.substr) {
			t.Errorf("ReduceLocal(%v, %v, %d, %d) = %v; want %q", tc.dt, tc.op, tc.a, tc.b, err, tc.substr)
		}
	}
}
