package fabtest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// runEnds runs the initiator with o and the responder expecting test
// over an in-process pipe, and returns both ends' rows and errors.
func runEnds(t *testing.T, o Options, test string, a, b fabric.Conn) (ri, rr []Row, ei, er error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var out Outcome
		out, er = Run(ctx, Peer{Link: ConnLink{Conn: b, Tag: 1}, Name: "initiator", Timeout: 5 * time.Second}, Options{Test: test})
		rr = out.Rows
		if er == nil && out.Options.Test != o.Test {
			t.Errorf("the responder ran %q", out.Options.Test)
		}
	}()
	out, ei := Run(ctx, Peer{Link: ConnLink{Conn: a, Tag: 1}, Initiator: true, Name: "responder", Timeout: 5 * time.Second}, o)
	ri = out.Rows
	wg.Wait()
	return
}

func TestRunCounts(t *testing.T) {
	for _, tc := range []struct {
		name             string
		o                Options
		sent, xfers, tot int64
	}{
		{"pingpong", Options{Test: PingPong, Sizes: []int{0, 64, 4096}, Iters: 100, Warmup: 3, Window: 64, Check: true}, 100, 200, 200},
		{"bw whole windows", Options{Test: BW, Sizes: []int{1, 1000}, Iters: 128, Warmup: 10, Window: 16, Check: true}, 128, 128, 128},
		{"bw partial window", Options{Test: BW, Sizes: []int{8}, Iters: 100, Window: 64}, 100, 100, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := pipe.Pair()
			defer a.Close()
			defer b.Close()
			ri, rr, ei, er := runEnds(t, tc.o, tc.o.Test, a, b)
			if ei != nil || er != nil {
				t.Fatalf("initiator: %v; responder: %v", ei, er)
			}
			if len(ri) != len(tc.o.Sizes) || len(rr) != len(ri) {
				t.Fatalf("rows: initiator %d, responder %d, want %d", len(ri), len(rr), len(tc.o.Sizes))
			}
			for i, r := range ri {
				if r.Size != tc.o.Sizes[i] || r.Sent != tc.sent || r.Acked != tc.sent || r.Xfers != tc.xfers {
					t.Errorf("row %d: size %d sent %d acked %d xfers %d, want %d %d %d %d", i, r.Size, r.Sent, r.Acked, r.Xfers, tc.o.Sizes[i], tc.sent, tc.sent, tc.xfers)
				}
				if r.Bytes != tc.tot*int64(r.Size) {
					t.Errorf("row %d: bytes %d, want %d", i, r.Bytes, tc.tot*int64(r.Size))
				}
				if !(r.Seconds > 0) || !(r.P50 > 0 && r.P50 <= r.P99 && r.P99 <= r.Max) {
					t.Errorf("row %d: seconds %g p50 %g p99 %g max %g: want positive and ordered", i, r.Seconds, r.P50, r.P99, r.Max)
				}
				if r.Defects != 0 {
					t.Errorf("row %d: %d defects", i, r.Defects)
				}
				if rr[i].Sent != r.Sent || rr[i].Seconds != r.Seconds {
					t.Errorf("row %d: the responder's row differs: %+v vs %+v", i, rr[i], r)
				}
			}
		})
	}
}

func TestRunDuration(t *testing.T) {
	a, b := pipe.Pair()
	defer a.Close()
	defer b.Close()
	o := Options{Test: BW, Sizes: []int{1024}, Window: 8, Duration: 300 * time.Millisecond, Interval: 50 * time.Millisecond}
	ri, _, ei, er := runEnds(t, o, BW, a, b)
	if ei != nil || er != nil {
		t.Fatalf("initiator: %v; responder: %v", ei, er)
	}
	r := ri[0]
	if r.Sent == 0 || r.Acked != r.Sent {
		t.Fatalf("sent %d acked %d", r.Sent, r.Acked)
	}
	if r.Seconds < 0.299 || r.Seconds > 2 { // the clock reads a few ns short of -D at times
		t.Errorf("seconds %g: want about 0.3", r.Seconds)
	}
	if n := len(r.Intervals); n != 6 {
		t.Errorf("%d intervals of 50 ms in 300 ms, want 6 (the last one too)", n)
	}
	if m := r.MinMBps(); !(m > 0 && m <= r.MBps()*1.5) {
		t.Errorf("min MB/s %g against mean %g", m, r.MBps())
	}
}

func TestRunRefusals(t *testing.T) {
	a, b := pipe.Pair()
	defer a.Close()
	defer b.Close()
	o := Options{Test: BW, Sizes: []int{8}, Iters: 10, Window: 4}
	_, _, ei, er := runEnds(t, o, PingPong, a, b)
	if ei == nil || !strings.Contains(ei.Error(), "refused the test: it runs bw and this end pingpong") {
		t.Errorf("initiator: %v", ei)
	}
	if er == nil || !strings.Contains(er.Error(), "asked for a test this end will not run") {
		t.Errorf("responder: %v", er)
	}
	bad := o
	bad.Window = 0
	if _, err := Run(context.Background(), Peer{Link: ConnLink{Conn: a}, Initiator: true}, bad); err == nil || !strings.Contains(err.Error(), "-W 0") {
		t.Errorf("window 0: %v", err)
	}
}

// corrupt is a Conn that flips a byte of every 16-byte message it sends.
type corrupt struct{ fabric.Conn }

func (c corrupt) Send(ctx context.Context, tag uint32, b []byte) error {
	if len(b) == 16 {
		x := append([]byte(nil), b...)
		x[1] ^= 0xff
		b = x
	}
	return c.Conn.Send(ctx, tag, b)
}

func TestRunCheckFindsCorruption(t *testing.T) {
	a, b := pipe.Pair()
	defer a.Close()
	defer b.Close()
	o := Options{Test: PingPong, Sizes: []int{16}, Iters: 20, Check: true, Window: 1}
	ri, _, ei, _ := runEnds(t, o, PingPong, a, corrupt{b})
	if !errors.Is(ei, ErrCheck) {
		t.Fatalf("initiator: %v, want ErrCheck", ei)
	}
	if len(ri) != 1 || ri[0].Defects != 20 {
		t.Errorf("rows %+v: want 20 defects", ri)
	}
}

// silent is a Conn whose Recv never returns until ctx ends.
type silent struct{ fabric.Conn }

func (silent) Recv(ctx context.Context, _ uint32, _ []byte) (int, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func TestRunTimeoutNamesPeer(t *testing.T) {
	a, b := pipe.Pair()
	defer a.Close()
	defer b.Close()
	start := time.Now()
	_, err := Run(context.Background(), Peer{Link: ConnLink{Conn: silent{a}}, Initiator: true, Name: "server 10.0.0.9:47592", Timeout: 200 * time.Millisecond},
		Options{Test: PingPong, Sizes: []int{8}, Iters: 10, Window: 1})
	if err == nil || !strings.Contains(err.Error(), "no message from server 10.0.0.9:47592 for 200ms") {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestRunPeerGone(t *testing.T) {
	a, b := pipe.Pair()
	defer a.Close()
	b.Close()
	_, err := Run(context.Background(), Peer{Link: ConnLink{Conn: a}, Initiator: true, Name: "rank 1", Timeout: time.Second},
		Options{Test: PingPong, Sizes: []int{8}, Iters: 10, Window: 1})
	if !errors.Is(err, fabric.ErrClosed) || !strings.Contains(err.Error(), "rank 1") {
		t.Fatalf("err %v: want ErrClosed naming rank 1", err)
	}
}

func TestAllSizes(t *testing.T) {
	s := AllSizes(1 << 20)
	if len(s) != 21 || s[0] != 1 || s[20] != 1<<20 {
		t.Errorf("AllSizes(1 MiB) = %v", s)
	}
	for _, tc := range []struct {
		test string
		size int
		want int64
	}{{PingPong, 64, 10000}, {PingPong, 64 << 10, 1000}, {PingPong, 1 << 20, 100}, {BW, 8, 20000}} {
		if got := DefaultIters(tc.test, tc.size); got != tc.want {
			t.Errorf("DefaultIters(%s, %d) = %d, want %d", tc.test, tc.size, got, tc.want)
		}
	}
}
