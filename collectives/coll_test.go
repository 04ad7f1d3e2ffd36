package collectives

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// The correctness matrix: every collective × every algorithm × 1 to 9
// ranks × the sizes below, each rank in its own goroutine over a pipe mesh,
// every result checked against Pattern (whose closed forms are checked
// against brute force in verify_test.go). Reductions cover every datatype
// and op at the small sizes and two pairs at the large one.
//
// The large size is 1 MiB + 3 bytes per block or vector. Under -short it
// shrinks to 64 KiB + 3 (still above the pipe's eager limit, so handed
// off); under -race without -short it runs for p = 2, 3, 5, 8 and 9 only,
// keeping the package under a minute on two cores. Run it fully with
// `go test ./collectives` (no -race).

// largeSize returns the large case's size and whether p runs it.
func largeSize(p int) (int, bool) {
	switch {
	case testing.Short():
		return 64<<10 + 3, true
	case raceEnabled:
		return 1<<20 + 3, p == 2 || p == 3 || p == 5 || p == 8 || p == 9
	}
	return 1<<20 + 3, true
}

// collCase is one collective call of the matrix.
type collCase struct {
	coll, alg string
	n         int // bytes: block or vector, as Comm.Algorithm takes them
	root      int
	dt        Datatype
	op        Op
	inPlace   bool // reduce at root and allreduce: send and recv the same slice
}

func (k collCase) String() string {
	s := fmt.Sprintf("%s/%s n=%d", k.coll, k.alg, k.n)
	switch k.coll {
	case "bcast", "scatter", "gather", "reduce":
		s += fmt.Sprintf(" root=%d", k.root)
	}
	if k.dt != 0 {
		s += fmt.Sprintf(" %s/%s", k.dt, k.op)
	}
	if k.inPlace {
		s += " in-place"
	}
	return s
}

// matrix returns the cases for p ranks, in the order every rank runs them.
func matrix(p int, sizes []int, reductions bool) []collCase {
	var cases []collCase
	large, withLarge := largeSize(p)
	if sizes == nil {
		sizes = []int{0, 1, 7, 4096}
		if withLarge {
			sizes = append(sizes, large)
		}
	}
	for _, coll := range Collectives() {
		for _, alg := range Algorithms(coll) {
			switch coll {
			case "barrier":
				cases = append(cases, collCase{coll: coll, alg: alg})
			case "reduce", "allreduce":
				if !reductions {
					continue
				}
				for _, dt := range Datatypes() {
					es := dt.Size()
					for _, op := range Ops() {
						for _, count := range []int{0, 1, 7, 4096 / es} {
							cases = append(cases, collCase{coll: coll, alg: alg, n: count * es, dt: dt, op: op})
						}
					}
				}
				if withLarge {
					cases = append(cases,
						collCase{coll: coll, alg: alg, n: large / 4 * 4, dt: Float32, op: Sum},
						collCase{coll: coll, alg: alg, n: large / 8 * 8, dt: Uint64, op: Prod, inPlace: true})
				}
				cases = append(cases, collCase{coll: coll, alg: alg, n: 40 * 8, dt: Float64, op: Max, inPlace: true})
			default:
				for _, n := range sizes {
					cases = append(cases, collCase{coll: coll, alg: alg, n: n})
				}
			}
		}
	}
	for i := range cases {
		cases[i].root = (i * 7) % p // vary the root
	}
	return cases
}

// rankBufs are one rank's buffers, reused across cases, from its Comm's
// allocator.
type rankBufs struct {
	c    *Comm
	a, b []byte
}

func (r *rankBufs) grow(b *[]byte, n int) []byte {
	if cap(*b) < n {
		r.c.Free(*b)
		*b = r.c.Alloc(n)
	}
	return (*b)[:n]
}

// free gives the buffers back.
func (r *rankBufs) free() {
	r.c.Free(r.a)
	r.c.Free(r.b)
}

// poison fills a result buffer with a value no correct result keeps
// everywhere.
func poison(b []byte) {
	for i := range b {
		b[i] = 0xa5
	}
}

// runCase runs case k (number i) on rank c.Rank() and verifies its result.
// A wrong result is returned as verr, leaving the ranks in step; err means
// the call failed and the Comm is gone.
func runCase(ctx context.Context, c *Comm, i int, k collCase, bufs *rankBufs) (verr, err error) {
	p, r := c.Size(), c.Rank()
	if err := c.SetOptions(Options{Algorithms: map[string]string{k.coll: k.alg}}); err != nil {
		return nil, err
	}
	want := k.alg
	if k.coll == "allgather" && k.alg == "recursive-doubling" && p&(p-1) != 0 {
		want = "bruck"
	}
	if got := c.Algorithm(k.coll, k.n); got != want {
		return fmt.Errorf("Algorithm(%q, %d) = %q, want %q", k.coll, k.n, got, want), nil
	}
	pat := Pattern{Coll: k.coll, Size: p, Root: k.root, Datatype: k.dt, Op: k.op, Seed: uint64(i)}
	var in, out []byte // the input Fill writes and the result Verify reads
	switch k.coll {
	case "barrier":
		return nil, c.Barrier(ctx)
	case "bcast":
		in = bufs.grow(&bufs.a, k.n)
		out = in
	case "scatter":
		if r == k.root {
			in = bufs.grow(&bufs.a, p*k.n)
		}
		out = bufs.grow(&bufs.b, k.n)
	case "gather":
		in = bufs.grow(&bufs.a, k.n)
		if r == k.root {
			out = bufs.grow(&bufs.b, p*k.n)
		}
	case "allgather":
		in, out = bufs.grow(&bufs.a, k.n), bufs.grow(&bufs.b, p*k.n)
	case "alltoall":
		in, out = bufs.grow(&bufs.a, p*k.n), bufs.grow(&bufs.b, p*k.n)
	case "reduce":
		in = bufs.grow(&bufs.a, k.n)
		if r == k.root {
			out = bufs.grow(&bufs.b, k.n)
		}
	case "allreduce":
		in, out = bufs.grow(&bufs.a, k.n), bufs.grow(&bufs.b, k.n)
	}
	if k.inPlace && out != nil {
		out = in
	}
	if k.coll != "bcast" && !k.inPlace {
		poison(out)
	}
	if in != nil {
		if err := pat.Fill(in, r); err != nil {
			return err, nil
		}
	}
	switch k.coll {
	case "bcast":
		err = c.Bcast(ctx, in, k.root)
	case "scatter":
		err = c.Scatter(ctx, in, out, k.root)
	case "gather":
		err = c.Gather(ctx, in, out, k.root)
	case "allgather":
		err = c.Allgather(ctx, in, out)
	case "alltoall":
		err = c.Alltoall(ctx, in, out)
	case "reduce":
		err = c.Reduce(ctx, in, out, k.dt, k.op, k.root)
	case "allreduce":
		err = c.Allreduce(ctx, in, out, k.dt, k.op)
	}
	if err != nil {
		return nil, err
	}
	if pat.HasResult(r) {
		return pat.Verify(out, r), nil
	}
	return nil, nil
}

// runMatrix runs cases on p ranks over a pipe mesh with options po.
func runMatrix(t *testing.T, p int, po pipe.Options, cases []collCase) {
	runMatrixOn(t, newComms(t, p, po, Options{}), cases)
}

// runMatrixOn runs cases on comms, one goroutine per rank, and reports
// every rank's failures.
func runMatrixOn(t *testing.T, comms []*Comm, cases []collCase) {
	errs := runRanks(comms, 5*time.Minute, func(ctx context.Context, c *Comm) error {
		bufs := rankBufs{c: c}
		defer bufs.free()
		var wrong []error
		for i, k := range cases {
			verr, err := runCase(ctx, c, i, k, &bufs)
			if err != nil {
				return fmt.Errorf("case %d %v: %w", i, k, err)
			}
			if verr != nil && len(wrong) < 5 {
				wrong = append(wrong, fmt.Errorf("case %d %v: %w", i, k, verr))
			}
		}
		return errors.Join(wrong...)
	})
	checkRanks(t, errs)
}

// TestCollectives runs the matrix over pipes with the default eager limit:
// small messages eager, large ones handed off.
func TestCollectives(t *testing.T) {
	for p := 1; p <= 9; p++ {
		t.Run(fmt.Sprintf("p=%d", p), func(t *testing.T) {
			t.Parallel()
			runMatrix(t, p, pipe.Options{}, matrix(p, nil, true))
		})
	}
}

// TestCollectivesRendezvous runs the byte-moving collectives and a few
// reductions over pipes that hand off every message, so that every Send
// waits for its Recv: an algorithm that relies on the transport buffering
// a Send (MPI calls it unsafe) deadlocks here and fails at its deadline.
func TestCollectivesRendezvous(t *testing.T) {
	for p := 1; p <= 9; p++ {
		t.Run(fmt.Sprintf("p=%d", p), func(t *testing.T) {
			t.Parallel()
			cases := matrix(p, []int{0, 1, 7, 4096}, false)
			for _, coll := range []string{"reduce", "allreduce"} {
				for _, alg := range Algorithms(coll) {
					for _, count := range []int{0, 1, 7, 1000} {
						cases = append(cases, collCase{coll: coll, alg: alg, n: count * 8, dt: Float64, op: Sum, root: count % p})
					}
				}
			}
			runMatrix(t, p, pipe.Options{EagerLimit: -1}, cases)
		})
	}
}

// TestAllreduceIdenticalBits checks that every rank ends with the same
// bits, for every algorithm and p: sums and products of random floats of
// very different magnitudes (the order of operations changes the
// rounding), and minima and maxima of values that include +0, −0 and NaNs
// with different payloads (the operand order picks which one survives).
func TestAllreduceIdenticalBits(t *testing.T) {
	for _, dt := range []Datatype{Float32, Float64} {
		for _, op := range Ops() {
			for _, alg := range Algorithms("allreduce") {
				for _, p := range []int{2, 3, 5, 6, 7, 8} {
					comms := newComms(t, p, pipe.Options{}, Options{Algorithms: map[string]string{"allreduce": alg}})
					const count = 1001
					n := count * dt.Size()
					results := make([][]byte, p)
					errs := runRanks(comms, time.Minute, func(ctx context.Context, c *Comm) error {
						send, recv := make([]byte, n), make([]byte, n)
						fillRandomFloats(send, dt, uint64(c.Rank()), op == Min || op == Max)
						results[c.Rank()] = recv
						return c.Allreduce(ctx, send, recv, dt, op)
					})
					checkRanks(t, errs)
					for r := 1; r < p; r++ {
						if !bytes.Equal(results[r], results[0]) {
							t.Errorf("%s %s %s p=%d: rank %d's result differs from rank 0's", dt, op, alg, p, r)
						}
					}
				}
			}
		}
	}
}

// fillRandomFloats fills b with floats of very different magnitudes, so
// that sums round differently in different orders; with special, a
// quarter of them are +0, −0 or NaNs with rank-specific payloads.
func fillRandomFloats(b []byte, dt Datatype, seed uint64, special bool) {
	value := func(i int) float64 {
		h := mix(seed<<32 | uint64(i))
		if special {
			switch h % 8 {
			case 0:
				return 0
			case 1:
				return math.Copysign(0, -1)
			}
		}
		return float64(int64(h>>11)) / float64(uint64(1)<<(h%50))
	}
	switch dt {
	case Float32:
		s := asSlice[float32](b)
		for i := range s {
			s[i] = float32(value(i))
			if h := mix(seed<<32 | uint64(i)); special && h%8 == 2 {
				s[i] = math.Float32frombits(0x7fc00000 | uint32(seed+1))
			}
		}
	case Float64:
		s := asSlice[float64](b)
		for i := range s {
			s[i] = value(i)
			if h := mix(seed<<32 | uint64(i)); special && h%8 == 2 {
				s[i] = math.Float64frombits(0x7ff8000000000000 | (seed + 1))
			}
		}
	}
}
