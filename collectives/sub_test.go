package collectives

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// TestSub makes a 3-rank communicator out of 5 and a 2-rank one out of
// that, and interleaves their collectives and point-to-point messages with
// the parent's: nothing mixes.
func TestSub(t *testing.T) {
	const p = 5
	comms := newComms(t, p, pipe.Options{}, Options{})
	errs := runRanks(comms, 30*time.Second, func(ctx context.Context, c *Comm) error {
		r := c.Rank()
		s3, err := c.Sub(ctx, 3)
		if err != nil {
			return err
		}
		if (s3 == nil) != (r >= 3) {
			return fmt.Errorf("Sub(3) on rank %d = %v", r, s3)
		}
		if s3 != nil {
			if s3.Rank() != r || s3.Size() != 3 {
				return fmt.Errorf("sub rank %d size %d", s3.Rank(), s3.Size())
			}
			// A user message on the parent, sent first, received last.
			if r == 0 {
				if err := c.Send(ctx, 1, []byte("parent")); err != nil {
					return err
				}
				if err := s3.Send(ctx, 1, []byte("sub")); err != nil {
					return err
				}
			}
			if err := checkAllreduce(ctx, s3, 1000, 1); err != nil {
				return fmt.Errorf("sub of 3: %w", err)
			}
			s2, err := s3.Sub(ctx, 2)
			if err != nil {
				return err
			}
			if s2 != nil {
				if s2.id == s3.id || s2.id == 0 {
					return fmt.Errorf("ids: sub of 2 has %d, sub of 3 %d", s2.id, s3.id)
				}
				if err := checkAllreduce(ctx, s2, 77, 2); err != nil {
					return fmt.Errorf("sub of 2: %w", err)
				}
				defer s2.Close()
			}
			if r == 1 {
				buf := make([]byte, 8)
				n, err := s3.Recv(ctx, 0, buf)
				if err != nil || string(buf[:n]) != "sub" {
					return fmt.Errorf("sub recv: %q, %v", buf[:n], err)
				}
				n, err = c.Recv(ctx, 0, buf)
				if err != nil || string(buf[:n]) != "parent" {
					return fmt.Errorf("parent recv: %q, %v", buf[:n], err)
				}
			}
			defer s3.Close()
		}
		// The parent still works, and agrees on its own sequence.
		return checkAllreduce(ctx, c, 333, 3)
	})
	checkRanks(t, errs)
}

// checkAllreduce runs a verified float64 sum allreduce of count elements.
func checkAllreduce(ctx context.Context, c *Comm, count int, seed uint64) error {
	pat := Pattern{Coll: "allreduce", Size: c.Size(), Datatype: Float64, Op: Sum, Seed: seed}
	send, recv := make([]byte, count*8), make([]byte, count*8)
	if err := pat.Fill(send, c.Rank()); err != nil {
		return err
	}
	if err := c.Allreduce(ctx, send, recv, Float64, Sum); err != nil {
		return err
	}
	return pat.Verify(recv, c.Rank())
}

// TestSubIDs checks that Close gives ids back (many Subs in turn) and that
// too many open at once fail cleanly.
func TestSubIDs(t *testing.T) {
	comms := newComms(t, 2, pipe.Options{}, Options{})
	errs := runRanks(comms, time.Minute, func(ctx context.Context, c *Comm) error {
		for range 2 * maxComms {
			s, err := c.Sub(ctx, 2)
			if err != nil {
				return err
			}
			if err := s.Barrier(ctx); err != nil {
				return err
			}
			s.Close()
		}
		var open []*Comm
		defer func() {
			for _, s := range open {
				s.Close()
			}
		}()
		for range maxComms - 1 {
			s, err := c.Sub(ctx, 1) // nil on rank 1
			if err != nil {
				return err
			}
			open = append(open, s)
		}
		_, err := c.Sub(ctx, 2)
		if err == nil || !contains(err.Error(), "all 256 communicator ids are in use") {
			return fmt.Errorf("Sub with every id taken: %v", err)
		}
		if _, err := c.Sub(ctx, 3); err == nil {
			return errors.New("Sub(3) of 2 ranks accepted")
		}
		return nil
	})
	checkRanks(t, errs)
}

// TestSubFailure fails a sub-communicator's collective while a rank left
// out waits in the parent: it must fail promptly too.
func TestSubFailure(t *testing.T) {
	comms := newComms(t, 3, pipe.Options{}, Options{})
	start := time.Now()
	errs := runRanks(comms, time.Minute, func(ctx context.Context, c *Comm) error {
		s, err := c.Sub(ctx, 2)
		if err != nil {
			return err
		}
		if s == nil {
			return c.Barrier(ctx) // rank 2 waits, as IMB's idle ranks do
		}
		if c.Rank() == 0 {
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			ctx = cctx
		}
		return s.Allreduce(ctx, make([]byte, 8), make([]byte, 8), Int64, Sum)
	})
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
	if !errors.Is(errs[0], context.Canceled) {
		t.Errorf("rank 0: %v; want Canceled", errs[0])
	}
	for r := 1; r < 3; r++ {
		if !errors.Is(errs[r], fabric.ErrClosed) {
			t.Errorf("rank %d: %v; want ErrClosed", r, errs[r])
		}
	}
}

// TestSubCrowded runs a crowded 6-rank communicator (every connection says
// it joins two ranks of a crowded host) and its Subs of 3 and 2: the 6 and
// the 3 pick the fewest-message algorithms and still reduce correctly, the
// 2 does not count as crowded, and all three share one set of scratch
// buffers, which a Sub's Close leaves to the parent.
func TestSubCrowded(t *testing.T) {
	const p = 6
	mesh := pipe.NewMesh(p, pipe.Options{})
	for _, conns := range mesh {
		for i, cn := range conns {
			if cn != nil {
				conns[i] = crowdedConnTest{sharedConn{cn}}
			}
		}
	}
	comms := commsOn(t, mesh, Options{})
	errs := runRanks(comms, 30*time.Second, func(ctx context.Context, c *Comm) error {
		if got := c.Algorithm("allreduce", 1<<20); got != "reduce-bcast" {
			return fmt.Errorf("crowded 6: allreduce %q", got)
		}
		if err := checkAllreduce(ctx, c, 1000, 1); err != nil {
			return fmt.Errorf("crowded 6: %w", err)
		}
		s3, err := c.Sub(ctx, 3)
		if err != nil || s3 == nil {
			return err
		}
		defer s3.Close()
		if got := s3.Algorithm("barrier", 0); got != "gather-release" {
			return fmt.Errorf("crowded sub of 3: barrier %q", got)
		}
		if err := checkAllreduce(ctx, s3, 4096, 2); err != nil {
			return fmt.Errorf("crowded sub of 3: %w", err)
		}
		if s3.scratch != c.scratch {
			return errors.New("the sub of 3 has its own scratch buffers")
		}
		s2, err := s3.Sub(ctx, 2)
		if err != nil || s2 == nil {
			return err
		}
		if got := s2.Algorithm("allreduce", 8); got != "recursive-doubling" {
			return fmt.Errorf("sub of 2: allreduce %q; two ranks are never crowded", got)
		}
		if c.Rank() == 0 && cap(c.scratch[1]) == 0 {
			return errors.New("rank 0 reduced without scratch")
		}
		s2.Close()
		if c.Rank() == 0 && cap(c.scratch[1]) == 0 {
			return errors.New("a sub's Close freed the parent's scratch")
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}
