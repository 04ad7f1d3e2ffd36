package collectives

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// bruteForce computes rank's expected result of pattern pat by applying
// the collective's definition to every rank's Fill output, with n bytes
// per block or vector. It returns nil where the rank has no result.
func bruteForce(t *testing.T, pat Pattern, rank, n int) []byte {
	t.Helper()
	p := pat.Size
	input := func(r, size int) []byte {
		b := make([]byte, size)
		if err := pat.Fill(b, r); err != nil {
			t.Fatal(err)
		}
		return b
	}
	switch pat.Coll {
	case "bcast":
		return input(pat.Root, n)
	case "scatter":
		return block(input(pat.Root, p*n), rank, n)
	case "gather", "allgather":
		if pat.Coll == "gather" && rank != pat.Root {
			return nil
		}
		out := []byte{}
		for r := range p {
			out = append(out, input(r, n)...)
		}
		return out
	case "alltoall":
		out := []byte{}
		for r := range p {
			out = append(out, block(input(r, p*n), rank, n)...)
		}
		return out
	case "reduce", "allreduce":
		if pat.Coll == "reduce" && rank != pat.Root {
			return nil
		}
		acc := input(0, n)
		for r := 1; r < p; r++ {
			naive(pat.Datatype, pat.Op, acc, input(r, n))
		}
		return acc
	}
	return nil
}

// TestPatternExpected checks Expected's closed forms against brute force.
func TestPatternExpected(t *testing.T) {
	for p := 1; p <= 9; p++ {
		for _, coll := range []string{"bcast", "scatter", "gather", "allgather", "alltoall"} {
			for _, n := range []int{0, 1, 7, 13, 64} {
				pat := Pattern{Coll: coll, Size: p, Root: (n + 1) % p, Seed: uint64(n)}
				checkExpected(t, pat, n)
			}
		}
		for _, coll := range []string{"reduce", "allreduce"} {
			for _, dt := range Datatypes() {
				for _, op := range Ops() {
					for _, count := range []int{0, 1, 7, 50} {
						pat := Pattern{Coll: coll, Size: p, Root: p - 1, Datatype: dt, Op: op, Seed: uint64(count)}
						checkExpected(t, pat, count*dt.Size())
					}
				}
			}
		}
	}
	// Many ranks: the product's sign parity and exactness of float sums.
	for _, p := range []int{33, 1000} {
		for _, dt := range []Datatype{Float32, Int32, Uint64} {
			for _, op := range Ops() {
				checkExpected(t, Pattern{Coll: "allreduce", Size: p, Datatype: dt, Op: op, Seed: 7}, 20*dt.Size(), 0)
			}
		}
	}
}

// checkExpected compares Expected with brute force on the given ranks, or
// on every rank if none are given.
func checkExpected(t *testing.T, pat Pattern, n int, ranks ...int) {
	t.Helper()
	if ranks == nil {
		for r := range pat.Size {
			ranks = append(ranks, r)
		}
	}
	for _, r := range ranks {
		want := bruteForce(t, pat, r, n)
		if want == nil {
			if pat.HasResult(r) {
				t.Errorf("%+v: HasResult(%d) but no result by definition", pat, r)
			}
			continue
		}
		got := make([]byte, len(want))
		if err := pat.Expected(got, r); err != nil {
			t.Fatalf("%+v rank %d: %v", pat, r, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%+v rank %d n=%d: Expected = %x; brute force = %x", pat, r, n, got, want)
		}
		if err := pat.Verify(want, r); err != nil {
			t.Fatalf("%+v rank %d: Verify of the right result: %v", pat, r, err)
		}
	}
}

// TestPatternVerify corrupts one byte anywhere, including beyond Verify's
// first chunk, and expects the error to name it.
func TestPatternVerify(t *testing.T) {
	for _, tc := range []struct {
		pat  Pattern
		n    int // result bytes
		want string
	}{
		{Pattern{Coll: "alltoall", Size: 3, Seed: 1}, 3 * 40001, "alltoall on rank 1 of 3 (seed 1): byte %d of 120003"},
		{Pattern{Coll: "allreduce", Size: 4, Datatype: Float64, Op: Sum}, 8 * 9000, "allreduce float64 sum on rank 1 of 4 (seed 0): element %d (byte %d)"},
	} {
		good := make([]byte, tc.n)
		if err := tc.pat.Expected(good, 1); err != nil {
			t.Fatal(err)
		}
		for _, at := range []int{0, 1, 40000, 40001, tc.n - 1} {
			bad := append([]byte(nil), good...)
			bad[at] ^= 0x10
			err := tc.pat.Verify(bad, 1)
			var want string
			if tc.pat.Datatype != 0 {
				want = fmt.Sprintf(tc.want, at/8, at)
			} else {
				want = fmt.Sprintf(tc.want, at)
			}
			if !errors.Is(err, ErrWrongResult) || !contains(err.Error(), want) {
				t.Errorf("byte %d flipped: %v; want ErrWrongResult mentioning %q", at, err, want)
			}
		}
	}
	// Ranks without a result accept anything.
	if err := (Pattern{Coll: "gather", Size: 2}).Verify([]byte{1}, 1); err != nil {
		t.Errorf("gather non-root: %v", err)
	}
}

func TestPatternErrors(t *testing.T) {
	for _, tc := range []struct {
		pat  Pattern
		n    int
		want string
	}{
		{Pattern{Coll: "scan", Size: 2}, 4, `unknown collective "scan"`},
		{Pattern{Coll: "bcast", Size: 2, Root: 2}, 4, "root 2 out of range [0, 2)"},
		{Pattern{Coll: "allreduce", Size: 2, Datatype: Int64, Op: Sum}, 4, "not a whole number of 8-byte elements"},
		{Pattern{Coll: "allreduce", Size: 2}, 4, "invalid datatype"},
		{Pattern{Coll: "allgather", Size: 3}, 4, "recv of 4 bytes is not 3 equal blocks"},
	} {
		err := tc.pat.Expected(make([]byte, tc.n), 0)
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("%+v: Expected: %v; want %q", tc.pat, err, tc.want)
		}
	}
	if err := (Pattern{Coll: "bcast", Size: 2}).Fill(nil, 2); err == nil {
		t.Error("Fill for rank 2 of 2 accepted")
	}
}

// BenchmarkPattern measures the verification helpers on 4 MiB.
func BenchmarkPattern(b *testing.B) {
	const n = 4 << 20
	buf := make([]byte, n)
	for _, pat := range []Pattern{
		{Coll: "allgather", Size: 4},
		{Coll: "allreduce", Size: 4, Datatype: Float32, Op: Sum},
		{Coll: "allreduce", Size: 4, Datatype: Float64, Op: Prod},
	} {
		name := pat.Coll
		if pat.Datatype != 0 {
			name += "/" + pat.Datatype.String() + "/" + pat.Op.String()
		}
		b.Run(name+"/Expected", func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				pat.Expected(buf, 0)
			}
		})
		b.Run(name+"/Verify", func(b *testing.B) {
			pat.Expected(buf, 0)
			b.SetBytes(n)
			for b.Loop() {
				if err := pat.Verify(buf, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
