package fabrictest

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
)

// rmaCases are the cases TestTransport adds for transports whose Conns are
// fabric.RMAConns, in the order they run.
var rmaCases = []struct {
	name string
	fn   func(e *env, a, b fabric.RMAConn)
}{
	{"WriteRead", testRMAWriteRead},
	{"OutOfBounds", testRMAOutOfBounds},
	{"BadKey", testRMABadKey},
	{"WriteThenMessage", testRMAWriteThenMessage},
	{"ReadWhileTargetReceives", testRMAReadWhileTargetReceives},
	{"ReadBothWays", testRMAReadBothWays},
	{"AfterClose", testRMAAfterClose},
}

// TestRMAPair runs the RMA cases against pairs made by mk, as TestConnPair
// runs the Conn cases. Where the Conns are fabric.Progressers, the target
// runs Progress for each Write to land and each Read to be answered, and
// the cases check that a Write lands before a message sent after it.
//
// The cases: writes and reads of 1 byte to a whole 1 MiB region at several
// offsets land exactly there and read back; transfers out of the region's
// bounds and keys Expose did not make are errors that move nothing and
// leave the connection usable; a message sent after a Write finds the
// bytes in place; a Read is answered while the target waits in Recv;
// 4 MiB reads both ways at once; Write and Read after Close fail with
// fabric.ErrClosed.
func TestRMAPair(t *testing.T, mk func(t *testing.T) (a, b fabric.RMAConn)) {
	for _, c := range rmaCases {
		t.Run(c.name, func(t *testing.T) {
			a, b := mk(t)
			run(t, a, b, nil, func(e *env) { c.fn(e, a, b) })
		})
	}
}

// testRMA runs the RMA cases through tr's pairs, when its Conns have RMA.
func testRMA(t *testing.T, tr fabric.Transport) {
	a, b := Pair(t, tr)
	_, okA := a.(fabric.RMAConn)
	_, okB := b.(fabric.RMAConn)
	_ = a.Close()
	_ = b.Close()
	if !okA || !okB {
		return
	}
	t.Run("RMA", func(t *testing.T) {
		TestRMAPair(t, func(t *testing.T) (fabric.RMAConn, fabric.RMAConn) {
			a, b := Pair(t, tr)
			return a.(fabric.RMAConn), b.(fabric.RMAConn)
		})
	})
}

// expose exposes region on c for the case, released when it ends.
func (e *env) expose(c fabric.RMAConn, region []byte) []byte {
	e.t.Helper()
	key, release, err := c.Expose(region)
	if err != nil {
		e.t.Fatalf("Expose(%d bytes): %v", len(region), err)
	}
	e.t.Cleanup(func() { _ = release() })
	return key
}

// progressAsync runs target's side of one one-sided operation: Progress
// once on a fabric.Progresser, nothing on others (their operations need no
// help from the target).
func (e *env) progressAsync(target fabric.RMAConn) <-chan error {
	p, ok := target.(fabric.Progresser)
	if !ok {
		ch := make(chan error, 1)
		ch <- nil
		return ch
	}
	return e.spawn(func() error {
		if err := p.Progress(e.ctx); err != nil {
			return fmt.Errorf("target Progress: %w", err)
		}
		return nil
	})
}

// rmaWrite writes src into key at off from a and waits for it to land in b's
// memory.
func (e *env) rmaWrite(a, b fabric.RMAConn, key []byte, off int, src []byte) {
	e.t.Helper()
	landed := e.progressAsync(b)
	if err := a.Write(e.ctx, key, off, src); err != nil {
		e.t.Fatalf("Write(off %d, %d bytes): %v", off, len(src), err)
	}
	e.wait(landed)
}

// recvStringAsync receives a tag message on c, which must be want, from a
// goroutine the case owns.
func (e *env) recvStringAsync(c fabric.Conn, tag uint32, want string) <-chan error {
	return e.spawn(func() error {
		buf := make([]byte, len(want)+8)
		n, err := c.Recv(e.ctx, tag, buf)
		if err != nil {
			return fmt.Errorf("Recv(tag %d): %w", tag, err)
		}
		if string(buf[:n]) != want {
			return fmt.Errorf("Recv(tag %d) = %q; want %q", tag, buf[:n], want)
		}
		return nil
	})
}

// rmaRead reads len(dst) bytes at off of key from a, b answering.
func (e *env) rmaRead(a, b fabric.RMAConn, key []byte, off int, dst []byte) {
	e.t.Helper()
	answered := e.progressAsync(b)
	if err := a.Read(e.ctx, key, off, dst); err != nil {
		e.t.Fatalf("Read(off %d, %d bytes): %v", off, len(dst), err)
	}
	e.wait(answered)
}

func testRMAWriteRead(e *env, a, b fabric.RMAConn) {
	region := make([]byte, 1<<20)
	key := e.expose(b, region)
	for _, tc := range []struct{ off, n int }{
		{0, 1}, {100, 7}, {len(region) - 1, 1}, {1000, 3000}, {0, len(region)}, {4096, 64 << 10},
	} {
		src := pattern(tc.n, byte(tc.off+tc.n))
		before := bytes.Clone(region)
		e.rmaWrite(a, b, key, tc.off, src)
		copy(before[tc.off:], src)
		if !bytes.Equal(region, before) {
			e.t.Fatalf("Write(off %d, %d bytes) did not land exactly there", tc.off, tc.n)
		}
		dst := make([]byte, tc.n)
		e.rmaRead(a, b, key, tc.off, dst)
		if !bytes.Equal(dst, src) {
			e.t.Fatalf("Read(off %d, %d bytes) = %s; want %s", tc.off, tc.n, show(dst), show(src))
		}
	}
	// A zero-length transfer at the end is in bounds and moves nothing.
	if err := a.Write(e.ctx, key, len(region), nil); err != nil {
		e.t.Errorf("Write of 0 bytes at the region's end: %v", err)
	}
}

func testRMAOutOfBounds(e *env, a, b fabric.RMAConn) {
	region := make([]byte, 100)
	key := e.expose(b, region)
	for _, tc := range []struct {
		name   string
		off, n int
	}{{"past the end", 90, 11}, {"offset past the end", 101, 0}, {"negative offset", -1, 1}, {"too long", 0, 101}} {
		if err := a.Write(e.ctx, key, tc.off, bytes.Repeat([]byte{7}, tc.n)); err == nil {
			e.t.Errorf("Write %s (off %d, %d bytes) succeeded", tc.name, tc.off, tc.n)
		}
		if err := a.Read(e.ctx, key, tc.off, make([]byte, tc.n)); err == nil {
			e.t.Errorf("Read %s (off %d, %d bytes) succeeded", tc.name, tc.off, tc.n)
		}
	}
	if !bytes.Equal(region, make([]byte, len(region))) {
		e.t.Fatal("a refused write moved bytes")
	}
	e.rmaWrite(a, b, key, 0, []byte("ok"))
	if string(region[:2]) != "ok" {
		e.t.Fatalf("the write after the refused ones left %q", region[:2])
	}
}

func testRMABadKey(e *env, a, b fabric.RMAConn) {
	region := make([]byte, 64)
	key := e.expose(b, region)
	forged := append([]byte{^key[0], ^key[1], ^key[2], ^key[3]}, key[4:]...)
	for _, bad := range [][]byte{nil, key[:len(key)-1], forged} {
		if err := a.Write(e.ctx, bad, 0, []byte{1}); err == nil {
			e.t.Errorf("Write with key %x succeeded", bad)
		}
	}
	if !bytes.Equal(region, make([]byte, len(region))) {
		e.t.Fatal("a write with a bad key moved bytes")
	}
	e.rmaWrite(a, b, key, 0, []byte{1})
}

// testRMAWriteThenMessage: the target waits in Recv for a message that
// the initiator sends after its writes (fabtest's rma_bw, the object
// store's replies), and must find the bytes in place when it comes,
// without any Progress of its own.
func testRMAWriteThenMessage(e *env, a, b fabric.RMAConn) {
	region := make([]byte, 8<<20)
	key := e.expose(b, region)
	src := pattern(len(region), 3)
	got := e.recvStringAsync(b, 5, "written")
	chunk := len(region) / 8
	for i := range 8 {
		if err := a.Write(e.ctx, key, i*chunk, src[i*chunk:(i+1)*chunk]); err != nil {
			e.t.Fatalf("Write %d: %v", i, err)
		}
	}
	if err := a.Send(e.ctx, 5, []byte("written")); err != nil {
		e.t.Fatal(err)
	}
	e.wait(got)
	if !bytes.Equal(region, src) {
		e.t.Fatal("the message came before the writes it followed had landed")
	}
}

// testRMAReadWhileTargetReceives: the target is in Recv, waiting for a
// message the initiator sends only after its Read is answered.
func testRMAReadWhileTargetReceives(e *env, a, b fabric.RMAConn) {
	region := pattern(4<<20, 9)
	key := e.expose(b, region)
	got := e.recvStringAsync(b, 1, "read")
	dst := make([]byte, len(region))
	if err := a.Read(e.ctx, key, 0, dst); err != nil {
		e.t.Fatalf("Read while the target receives: %v", err)
	}
	if !bytes.Equal(dst, region) {
		e.t.Fatal("Read brought back other bytes")
	}
	if err := a.Send(e.ctx, 1, []byte("read")); err != nil {
		e.t.Fatal(err)
	}
	e.wait(got)
}

// testRMAReadBothWays: each side reads the other's 4 MiB at once, each
// answering the other's read while it waits for its own answer.
func testRMAReadBothWays(e *env, a, b fabric.RMAConn) {
	ra, rb := pattern(4<<20, 1), pattern(4<<20, 2)
	ka, kb := e.expose(a, ra), e.expose(b, rb)
	da, db := make([]byte, len(rb)), make([]byte, len(ra))
	fromB := e.spawn(func() error { return b.Read(e.ctx, ka, 0, db) })
	if err := a.Read(e.ctx, kb, 0, da); err != nil {
		e.t.Fatalf("a.Read: %v", err)
	}
	// a's read is done; b's may still need a's side to answer it.
	if p, ok := a.(fabric.Progresser); ok {
		ctx, cancel := context.WithCancel(e.ctx)
		defer cancel() // before run waits for the case's goroutines
		e.spawn(func() error {
			for ctx.Err() == nil {
				_ = p.Progress(ctx)
			}
			return nil
		})
	}
	if err := <-fromB; err != nil {
		e.t.Fatalf("b.Read: %v", err)
	}
	if !bytes.Equal(da, rb) || !bytes.Equal(db, ra) {
		e.t.Fatal("a read both ways brought back other bytes")
	}
}

func testRMAAfterClose(e *env, a, b fabric.RMAConn) {
	key := e.expose(b, make([]byte, 64))
	if err := a.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.wantErr("Write after Close", a.Write(e.ctx, key, 0, []byte{1}), fabric.ErrClosed)
	e.wantErr("Read after Close", a.Read(e.ctx, key, 0, make([]byte, 1)), fabric.ErrClosed)
}
