package collectives

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// TestPointToPoint sends user messages around collectives: a message sent
// before a Bcast and received after it is not mistaken for the Bcast's.
func TestPointToPoint(t *testing.T) {
	for _, po := range []pipe.Options{{}, {EagerLimit: -1}} {
		comms := newComms(t, 3, po, Options{})
		errs := runRanks(comms, 10*time.Second, func(ctx context.Context, c *Comm) error {
			buf := make([]byte, 16)
			switch c.Rank() {
			case 0:
				// Sent before the Bcast, into a rank that receives after it.
				done := make(chan error, 1)
				go func() { done <- c.Send(ctx, 1, []byte("user hello")) }()
				if err := c.Bcast(ctx, []byte("collective data!"), 0); err != nil {
					return err
				}
				return <-done
			case 1:
				if err := c.Bcast(ctx, buf, 0); err != nil {
					return err
				}
				if string(buf) != "collective data!" {
					return errors.New("bcast got " + string(buf))
				}
				n, err := c.Recv(ctx, 0, buf)
				if err != nil {
					return err
				}
				if string(buf[:n]) != "user hello" {
					return errors.New("recv got " + string(buf[:n]))
				}
				return nil
			default:
				return c.Bcast(ctx, buf, 0)
			}
		})
		checkRanks(t, errs)
	}
}

// TestSendrecv exchanges large messages around a ring (every rank sends
// before it receives, which deadlocks unless the send runs concurrently)
// and small ones, and with itself.
func TestSendrecv(t *testing.T) {
	for _, po := range []pipe.Options{{}, {EagerLimit: -1}} {
		for _, size := range []int{0, 5, 1 << 20} {
			const p = 4
			comms := newComms(t, p, po, Options{})
			errs := runRanks(comms, 10*time.Second, func(ctx context.Context, c *Comm) error {
				r := c.Rank()
				sb := bytes.Repeat([]byte{byte(r)}, size)
				rb := make([]byte, size+1)
				n, err := c.Sendrecv(ctx, (r+1)%p, sb, (r+p-1)%p, rb)
				if err != nil {
					return err
				}
				if n != size || (size > 0 && rb[0] != byte((r+p-1)%p)) {
					return errors.New("wrong message")
				}
				n, err = c.Sendrecv(ctx, r, sb, r, rb)
				if err != nil || n != size {
					return errors.Join(err, errors.New("self sendrecv: wrong length"))
				}
				return nil
			})
			checkRanks(t, errs)
		}
	}
}

func TestPointToPointErrors(t *testing.T) {
	comms := newComms(t, 2, pipe.Options{}, Options{})
	ctx := context.Background()
	c := comms[0]
	if err := c.Send(ctx, 2, nil); err == nil || !contains(err.Error(), "rank 2: out of range [0, 2)") {
		t.Errorf("Send to 2: %v", err)
	}
	if _, err := c.Recv(ctx, 0, nil); err == nil || !contains(err.Error(), "itself") {
		t.Errorf("Recv from self: %v", err)
	}
	if _, err := c.Sendrecv(ctx, 0, nil, 1, nil); err == nil {
		t.Error("Sendrecv to self from 1: no error")
	}
	if _, err := c.Sendrecv(ctx, 0, []byte("long"), 0, make([]byte, 2)); !errors.Is(err, fabric.ErrTruncated) {
		t.Errorf("Sendrecv to self into a short buffer: %v; want ErrTruncated", err)
	}
	// A timed-out Recv does not abort the Comm.
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := c.Recv(short, 1, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Recv with nothing sent: %v; want DeadlineExceeded", err)
	}
	errs := runRanks(comms, 10*time.Second, func(ctx context.Context, c *Comm) error { return c.Barrier(ctx) })
	checkRanks(t, errs)
	// A truncated Recv reports ErrTruncated.
	if err := comms[1].Send(ctx, 0, []byte("too long")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Recv(ctx, 1, make([]byte, 3)); !errors.Is(err, fabric.ErrTruncated) {
		t.Errorf("Recv into a short buffer: %v; want ErrTruncated", err)
	}
}
