package pipe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// eagerCases are the option sets every behaviour test runs under: the
// default (small messages eager) and every message handed off.
var eagerCases = []struct {
	name string
	o    Options
}{
	{"default", Options{}},
	{"handoff", Options{EagerLimit: -1}},
	{"eager", Options{EagerLimit: 1 << 30}},
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// goSend sends in a new goroutine and returns a channel with its error, for
// hand-off sends that wait for the receiver.
func goSend(ctx context.Context, c fabric.Conn, tag uint32, b []byte) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- c.Send(ctx, tag, b) }()
	return ch
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range eagerCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			a, b := NewPair(tc.o)
			for _, size := range []int{0, 1, 7, DefaultEagerLimit, DefaultEagerLimit + 1, 1 << 20} {
				msg := bytes.Repeat([]byte{byte(size)}, size)
				done := goSend(ctx, a, 5, msg)
				buf := make([]byte, size+3)
				n, err := b.Recv(ctx, 5, buf)
				if err != nil || n != size || !bytes.Equal(buf[:n], msg) {
					t.Fatalf("size %d: got n=%d err=%v, want %d bytes", size, n, err, size)
				}
				if err := <-done; err != nil {
					t.Fatalf("size %d: send: %v", size, err)
				}
				// The other direction too.
				done = goSend(ctx, b, 6, msg)
				if n, err := a.Recv(ctx, 6, buf); err != nil || n != size {
					t.Fatalf("size %d back: n=%d err=%v", size, n, err)
				}
				if err := <-done; err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestSendCopies checks that an eager Send copies its buffer: changing it
// after Send returns does not change what is received.
func TestSendCopies(t *testing.T) {
	ctx := testCtx(t)
	a, b := Pair()
	msg := []byte("hello")
	if err := a.Send(ctx, 1, msg); err != nil {
		t.Fatal(err)
	}
	copy(msg, "xxxxx")
	buf := make([]byte, 5)
	if _, err := b.Recv(ctx, 1, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("got %q, %v; want hello", buf, err)
	}
}

// TestTagMatching sends interleaved tags and receives them in another
// order: each Recv gets the oldest message with its tag.
func TestTagMatching(t *testing.T) {
	ctx := testCtx(t)
	a, b := NewPair(Options{EagerLimit: 1 << 20})
	sends := []struct {
		tag uint32
		msg string
	}{{1, "a1"}, {2, "b1"}, {1, "a2"}, {3, ""}, {2, "b2"}, {1, "a3"}}
	for _, s := range sends {
		if err := a.Send(ctx, s.tag, []byte(s.msg)); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []struct {
		tag uint32
		msg string
	}{{2, "b1"}, {3, ""}, {1, "a1"}, {2, "b2"}, {1, "a2"}, {1, "a3"}} {
		buf := make([]byte, 8)
		n, err := b.Recv(ctx, want.tag, buf)
		if err != nil || string(buf[:n]) != want.msg {
			t.Fatalf("recv tag %d: got %q, %v; want %q", want.tag, buf[:n], err, want.msg)
		}
	}
}

// TestHandoffOrder checks that a hand-off waits in the tag queue behind
// and in front of eager messages in order.
func TestHandoffOrder(t *testing.T) {
	ctx := testCtx(t)
	a, b := NewPair(Options{EagerLimit: 4})
	big := bytes.Repeat([]byte("B"), 100)
	errc := make(chan error, 1)
	go func() {
		for _, m := range [][]byte{[]byte("s1"), big, []byte("s2")} {
			if err := a.Send(ctx, 9, m); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	buf := make([]byte, 200)
	for _, want := range [][]byte{[]byte("s1"), big, []byte("s2")} {
		n, err := b.Recv(ctx, 9, buf)
		if err != nil || !bytes.Equal(buf[:n], want) {
			t.Fatalf("got %q, %v; want %q", buf[:n], err, want)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestTruncated(t *testing.T) {
	for _, tc := range eagerCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			a, b := NewPair(tc.o)
			done := goSend(ctx, a, 1, []byte("too long"))
			buf := make([]byte, 3)
			n, err := b.Recv(ctx, 1, buf)
			if !errors.Is(err, fabric.ErrTruncated) || n != 3 || string(buf) != "too" {
				t.Fatalf("got n=%d %q err=%v; want 3 \"too\" ErrTruncated", n, buf, err)
			}
			if err := <-done; err != nil {
				t.Fatalf("send: %v", err)
			}
			// The message was consumed: the next one is received intact.
			done = goSend(ctx, a, 1, []byte("ok"))
			if n, err := b.Recv(ctx, 1, buf); err != nil || string(buf[:n]) != "ok" {
				t.Fatalf("after truncation got %q, %v", buf[:n], err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestRecvContext(t *testing.T) {
	a, b := Pair()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := b.Recv(ctx, 1, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want DeadlineExceeded", err)
	}
	// The pair still works after a cancelled Recv.
	ctx = testCtx(t)
	if err := a.Send(ctx, 1, []byte("x")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	if n, err := b.Recv(ctx, 1, buf); err != nil || n != 1 {
		t.Fatalf("got %d, %v", n, err)
	}
}

// TestSendContext cancels a hand-off nobody receives: Send fails with the
// context's error and the message is withdrawn.
func TestSendContext(t *testing.T) {
	a, b := NewPair(Options{EagerLimit: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := a.Send(ctx, 1, []byte("lost")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want DeadlineExceeded", err)
	}
	ctx = testCtx(t)
	done := goSend(ctx, a, 1, []byte("kept"))
	buf := make([]byte, 8)
	if n, err := b.Recv(ctx, 1, buf); err != nil || string(buf[:n]) != "kept" {
		t.Fatalf("got %q, %v; want the second message only", buf[:n], err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestClose closes one end while the other is blocked in Recv and in a
// hand-off Send: both return ErrClosed, and every later call on either end
// fails with ErrClosed.
func TestClose(t *testing.T) {
	for _, closer := range []string{"self", "peer"} {
		t.Run(closer, func(t *testing.T) {
			ctx := testCtx(t)
			a, b := NewPair(Options{EagerLimit: -1})
			recvErr := make(chan error, 1)
			go func() {
				_, err := a.Recv(ctx, 1, make([]byte, 4))
				recvErr <- err
			}()
			sendErr := goSend(ctx, a, 2, []byte("wait"))
			time.Sleep(10 * time.Millisecond)
			if closer == "self" {
				a.Close()
			} else {
				b.Close()
			}
			for what, ch := range map[string]<-chan error{"recv": recvErr, "send": sendErr} {
				select {
				case err := <-ch:
					if !errors.Is(err, fabric.ErrClosed) {
						t.Errorf("blocked %s: got %v, want ErrClosed", what, err)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("blocked %s did not return after Close", what)
				}
			}
			for _, c := range []fabric.Conn{a, b} {
				if err := c.Send(ctx, 1, nil); !errors.Is(err, fabric.ErrClosed) {
					t.Errorf("send after close: %v", err)
				}
				if _, err := c.Recv(ctx, 1, nil); !errors.Is(err, fabric.ErrClosed) {
					t.Errorf("recv after close: %v", err)
				}
			}
			if err := a.Close(); err != nil {
				t.Errorf("second close: %v", err)
			}
		})
	}
}

// TestCloseKeepsSent checks that what was sent eagerly before the peer
// closed is still received.
func TestCloseKeepsSent(t *testing.T) {
	ctx := testCtx(t)
	a, b := Pair()
	if err := a.Send(ctx, 1, []byte("last")); err != nil {
		t.Fatal(err)
	}
	a.Close()
	buf := make([]byte, 4)
	if n, err := b.Recv(ctx, 1, buf); err != nil || n != 4 {
		t.Fatalf("got %d, %v; want the message sent before close", n, err)
	}
	if _, err := b.Recv(ctx, 1, buf); !errors.Is(err, fabric.ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
}

// TestConcurrentSendRecv runs one sender and one receiver on each end at
// once, both directions, many messages of mixed sizes and tags (run with
// -race).
func TestConcurrentSendRecv(t *testing.T) {
	for _, tc := range eagerCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			a, b := NewPair(tc.o)
			const count = 500
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for _, pair := range [][2]fabric.Conn{{a, b}, {b, a}} {
				tx, rx := pair[0], pair[1]
				wg.Go(func() {
					for i := range count {
						msg := bytes.Repeat([]byte{byte(i)}, i%300)
						if err := tx.Send(ctx, uint32(i%3), msg); err != nil {
							errs <- err
							return
						}
					}
				})
				wg.Go(func() {
					// Receive tag by tag in the order sent: per-tag order holds.
					buf := make([]byte, 300)
					for i := range count {
						n, err := rx.Recv(ctx, uint32(i%3), buf)
						if err != nil {
							errs <- err
							return
						}
						if n != i%300 || (n > 0 && buf[0] != byte(i)) {
							errs <- fmt.Errorf("message %d: got %d bytes starting %d", i, n, buf[0])
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

func TestMesh(t *testing.T) {
	ctx := testCtx(t)
	const n = 4
	m := Mesh(n)
	for i := range n {
		for j := range n {
			if (m[i][j] == nil) != (i == j) {
				t.Fatalf("conns[%d][%d] nil = %v", i, j, m[i][j] == nil)
			}
		}
	}
	for i := range n {
		for j := range n {
			if i != j {
				if err := m[i][j].Send(ctx, 0, []byte{byte(i), byte(j)}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			buf := make([]byte, 2)
			if _, err := m[j][i].Recv(ctx, 0, buf); err != nil || buf[0] != byte(i) || buf[1] != byte(j) {
				t.Fatalf("%d→%d: got %v, %v", i, j, buf, err)
			}
		}
	}
}

func TestEagerLimit(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want int
	}{{Options{}, DefaultEagerLimit}, {Options{EagerLimit: -5}, -1}, {Options{EagerLimit: 10}, 10}} {
		a, _ := NewPair(tc.o)
		if got := a.(interface{ EagerLimit() int }).EagerLimit(); got != tc.want {
			t.Errorf("EagerLimit with %+v = %d, want %d", tc.o, got, tc.want)
		}
	}
}

func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{8, 1024, 4096, 16384, 64 << 10, 4 << 20} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			ctx := context.Background()
			x, y := Pair()
			msg := make([]byte, size)
			b.SetBytes(int64(size))
			done := make(chan error, 1)
			go func() {
				buf := make([]byte, size)
				for range b.N {
					if _, err := y.Recv(ctx, 0, buf); err != nil {
						done <- err
						return
					}
					if err := y.Send(ctx, 0, buf); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			buf := make([]byte, size)
			b.ResetTimer()
			for range b.N {
				if err := x.Send(ctx, 0, msg); err != nil {
					b.Fatal(err)
				}
				if _, err := x.Recv(ctx, 0, buf); err != nil {
					b.Fatal(err)
				}
			}
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		})
	}
}
