package collectives

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// call runs one call of the named collective with n-byte blocks on c. The
// roots are chosen so that at p = 5 every algorithm uses the link between
// ranks 1 and 2, except the gather-release barrier, whose tree is rooted
// at rank 0 and has no such edge (see brokenLink).
func call(ctx context.Context, c *Comm, coll string, n int) error {
	p := c.Size()
	switch coll {
	case "barrier":
		return c.Barrier(ctx)
	case "bcast":
		return c.Bcast(ctx, make([]byte, n), 1)
	case "scatter":
		return c.Scatter(ctx, make([]byte, p*n), make([]byte, n), 1)
	case "gather":
		return c.Gather(ctx, make([]byte, n), make([]byte, p*n), 2%p)
	case "allgather":
		return c.Allgather(ctx, make([]byte, n), make([]byte, p*n))
	case "alltoall":
		return c.Alltoall(ctx, make([]byte, p*n), make([]byte, p*n))
	case "reduce":
		return c.Reduce(ctx, make([]byte, n), make([]byte, n), Float32, Sum, 1)
	case "allreduce":
		return c.Allreduce(ctx, make([]byte, n), make([]byte, n), Float32, Sum)
	}
	panic("unknown collective " + coll)
}

// TestCloseMidCollective breaks the job while five ranks run a collective
// in a loop, in two ways: a link the algorithm uses at p = 5 closes (see
// brokenLink), or rank 3 dies (all its connections close).
// Every rank's call must fail, promptly, with an error that says a
// connection closed: the ranks that see the failure abort their Comms,
// which closes their connections, so no rank waits for its deadline.
func TestCloseMidCollective(t *testing.T) {
	const p, deadline = 5, 20 * time.Second
	for _, coll := range Collectives() {
		for _, alg := range Algorithms(coll) {
			for _, n := range []int{64, 256 << 10} {
				for _, failure := range []string{"link", "rank"} {
					t.Run(fmt.Sprintf("%s/%s/n=%d/%s", coll, alg, n, failure), func(t *testing.T) {
						testCloseMidCollective(t, p, deadline, coll, alg, n, failure)
					})
				}
			}
		}
	}
}

func testCloseMidCollective(t *testing.T, p int, deadline time.Duration, coll, alg string, n int, failure string) {
	mesh := pipe.Mesh(p)
	comms := make([]*Comm, p)
	for r := range p {
		var err error
		if comms[r], err = New(r, p, mesh[r], Options{Algorithms: map[string]string{coll: alg}}); err != nil {
			t.Fatal(err)
		}
	}
	closed := make(chan time.Time, 1)
	go func() {
		time.Sleep(20 * time.Millisecond)
		closed <- time.Now()
		if failure == "link" {
			a, b := brokenLink(coll, alg)
			mesh[a][b].Close()
			return
		}
		for _, c := range mesh[3] {
			if c != nil {
				c.Close()
			}
		}
	}()
	calls := make([]int, p)
	errs := runRanks(comms, deadline, func(ctx context.Context, c *Comm) error {
		for {
			calls[c.Rank()]++
			if err := call(ctx, c, coll, n); err != nil {
				return err
			}
			// Without this, the ranks that only send in a rooted
			// collective run ahead of root without bound over eager
			// pipes, queueing gigabytes (IMB's loop has a barrier too).
			if calls[c.Rank()]%16 == 0 {
				if err := c.Barrier(ctx); err != nil {
					return err
				}
			}
		}
	})
	if took := time.Since(<-closed); took > deadline/4 {
		t.Errorf("ranks took %v after the close to fail", took)
	}
	for r, err := range errs {
		if !errors.Is(err, fabric.ErrClosed) {
			t.Errorf("rank %d after %d calls: %v; want an error wrapping fabric.ErrClosed", r, calls[r], err)
		}
	}
	for _, c := range comms {
		if err := c.Barrier(context.Background()); !errors.Is(err, ErrAborted) {
			t.Errorf("rank %d: call after failure: %v; want ErrAborted", c.Rank(), err)
		}
	}
}

// brokenLink returns the ranks whose link TestCloseMidCollective closes:
// 1 and 2, which call's roots make every algorithm use at p = 5, but 2 and
// 3 for the gather-release barrier, whose tree (edges 0–1, 0–2, 2–3, 0–4)
// does not join 1 and 2.
func brokenLink(coll, alg string) (int, int) {
	if coll == "barrier" && alg == "gather-release" {
		return 2, 3
	}
	return 1, 2
}

// TestOneRankCancelled cancels one rank's context: that rank fails with
// the context's error and the others fail promptly with ErrClosed, even
// though their own deadlines are far away.
func TestOneRankCancelled(t *testing.T) {
	const p = 4
	comms := newComms(t, p, pipe.Options{}, Options{})
	start := time.Now()
	errs := runRanks(comms, time.Minute, func(ctx context.Context, c *Comm) error {
		if c.Rank() == 2 {
			cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			<-cctx.Done()
			ctx = cctx
		}
		return c.Allreduce(ctx, make([]byte, 64<<10), make([]byte, 64<<10), Float64, Max)
	})
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v to fail", took)
	}
	if !errors.Is(errs[2], context.DeadlineExceeded) {
		t.Errorf("rank 2: %v; want DeadlineExceeded", errs[2])
	}
	for r, err := range errs {
		if r != 2 && !errors.Is(err, fabric.ErrClosed) {
			t.Errorf("rank %d: %v; want ErrClosed", r, err)
		}
	}
}

// TestBadArguments checks the local argument errors, and that one rank's
// bad argument fails every rank instead of leaving them waiting.
func TestBadArguments(t *testing.T) {
	const p = 3
	for _, tc := range []struct {
		name string
		f    func(ctx context.Context, c *Comm) error
		want string // in rank 0's error
	}{
		{"bcast root", func(ctx context.Context, c *Comm) error { return c.Bcast(ctx, make([]byte, 8), p) }, "root 3 out of range [0, 3)"},
		{"scatter send", func(ctx context.Context, c *Comm) error {
			return c.Scatter(ctx, make([]byte, 10), make([]byte, 4), 0)
		}, "send is 10 bytes; want 3 ranks × 4-byte recv = 12"},
		{"gather recv", func(ctx context.Context, c *Comm) error { return c.Gather(ctx, make([]byte, 4), nil, 0) }, "recv is 0 bytes"},
		{"allgather recv", func(ctx context.Context, c *Comm) error {
			return c.Allgather(ctx, make([]byte, 4), make([]byte, 4))
		}, "recv is 4 bytes"},
		{"alltoall send", func(ctx context.Context, c *Comm) error {
			return c.Alltoall(ctx, make([]byte, 10), make([]byte, 10))
		}, "send is 10 bytes; want 3 ranks × 3-byte block = 9"},
		{"reduce datatype", func(ctx context.Context, c *Comm) error {
			return c.Reduce(ctx, make([]byte, 6), make([]byte, 6), Float32, Sum, 0)
		}, "buffer of 6 bytes is not a whole number of 4-byte elements"},
		{"allreduce op", func(ctx context.Context, c *Comm) error {
			return c.Allreduce(ctx, make([]byte, 8), make([]byte, 8), Float32, 0)
		}, "invalid op Op(0)"},
		{"allreduce recv", func(ctx context.Context, c *Comm) error {
			return c.Allreduce(ctx, make([]byte, 8), make([]byte, 4), Int32, Sum)
		}, "recv is 4 bytes; want 8 like send"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			comms := newComms(t, p, pipe.Options{}, Options{})
			errs := runRanks(comms, 10*time.Second, tc.f)
			if errs[0] == nil || !contains(errs[0].Error(), tc.want) {
				t.Errorf("rank 0: %v; want it to mention %q", errs[0], tc.want)
			}
			// The other ranks fail too (or, in gather, finish their part
			// before root fails), instead of waiting for the deadline.
			for r, err := range errs {
				if err == nil && tc.name != "gather recv" {
					t.Errorf("rank %d: no error", r)
				}
			}
		})
	}
	// Only rank 1 passes a bad buffer: the others must still fail.
	comms := newComms(t, p, pipe.Options{}, Options{})
	errs := runRanks(comms, 10*time.Second, func(ctx context.Context, c *Comm) error {
		recv := make([]byte, 3*8)
		if c.Rank() == 1 {
			recv = recv[:5]
		}
		return c.Allgather(ctx, make([]byte, 8), recv)
	})
	for r, err := range errs {
		if err == nil || (r != 1 && !errors.Is(err, fabric.ErrClosed)) {
			t.Errorf("rank %d: %v; want an error (ErrClosed unless rank 1)", r, err)
		}
	}
}

// TestSizeMismatch passes different buffer sizes on different ranks.
func TestSizeMismatch(t *testing.T) {
	comms := newComms(t, 2, pipe.Options{}, Options{})
	errs := runRanks(comms, 10*time.Second, func(ctx context.Context, c *Comm) error {
		return c.Bcast(ctx, make([]byte, 8+c.Rank()*8), 0)
	})
	if !errors.Is(errs[1], ErrSizeMismatch) {
		t.Errorf("rank 1: %v; want ErrSizeMismatch", errs[1])
	}
}

func TestNew(t *testing.T) {
	mesh := pipe.Mesh(3)
	for _, tc := range []struct {
		rank, size int
		conns      []fabric.Conn
		o          Options
		want       string
	}{
		{0, 0, nil, Options{}, "size 0 must be at least 1"},
		{3, 3, mesh[0], Options{}, "rank 3 out of range [0, 3)"},
		{0, 3, mesh[0][:2], Options{}, "2 connections for 3 ranks"},
		{1, 3, mesh[0], Options{}, "conns[0] is nil"},
		{0, 3, []fabric.Conn{mesh[1][0], mesh[0][1], mesh[0][2]}, Options{}, "conns[0] is rank 0's own and must be nil"},
		{0, 3, mesh[0], Options{Algorithms: map[string]string{"allreduce": "tree"}}, `unknown allreduce algorithm "tree": have auto, recursive-doubling, rabenseifner, ring`},
		{0, 3, mesh[0], Options{Algorithms: map[string]string{"reduce_scatter": "ring"}}, `unknown collective "reduce_scatter"`},
	} {
		_, err := New(tc.rank, tc.size, tc.conns, tc.o)
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("New(%d, %d, %d conns, %v): %v; want it to mention %q", tc.rank, tc.size, len(tc.conns), tc.o, err, tc.want)
		}
	}
	c, err := New(0, 1, []fabric.Conn{nil}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Rank() != 0 || c.Size() != 1 {
		t.Errorf("Rank, Size = %d, %d", c.Rank(), c.Size())
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := c.Barrier(context.Background()); !errors.Is(err, ErrAborted) {
		t.Errorf("Barrier after Close: %v; want ErrAborted", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
