package fabrictest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// connCases are TestConnPair's cases, in the order they run.
var connCases = []struct {
	name string
	fn   func(e *env)
}{
	{"Ordering", testOrdering},
	{"TagMatching", testTagMatching},
	{"ZeroLength", testZeroLength},
	{"Sizes", testSizes},
	{"Truncated", testTruncated},
	{"ConcurrentSendRecv", testConcurrentSendRecv},
	{"RecvDeadline", testRecvDeadline},
	{"RecvDeadlineRetry", testRecvDeadlineRetry},
	{"RecvCancel", testRecvCancel},
	{"CloseUnblocksRecv", testCloseUnblocksRecv},
	{"CloseUnblocksSend", testCloseUnblocksSend},
	{"UseAfterClose", testUseAfterClose},
	{"PeerCloseRecv", testPeerCloseRecv},
	{"PeerCloseSend", testPeerCloseSend},
	{"SendDeadline", testSendDeadline},
	{"RecvLong", testRecvLong},
}

// testOrdering sends 1000 numbered messages each way and checks that they
// arrive in order.
func testOrdering(e *env) {
	const n = 1000
	for _, dir := range [][2]*end{{e.a, e.b}, {e.b, e.a}} {
		from, to := dir[0], dir[1]
		msgs := make([]msg, n)
		for i := range msgs {
			msgs[i] = msg{1, binary.LittleEndian.AppendUint64(nil, uint64(i))}
		}
		done := e.sendAsync(from, msgs...)
		buf := e.buf(16)
		for i := range n {
			k, err := to.c.Recv(e.ctx, 1, buf)
			if err != nil {
				e.t.Fatalf("%s.Recv of message %d of %d: %v", to.name, i, n, err)
			}
			if got := binary.LittleEndian.Uint64(buf); k != 8 || got != uint64(i) {
				e.t.Fatalf("%s.Recv: message %d is %d bytes holding %d; want 8 bytes holding %d", to.name, i, k, got, i)
			}
		}
		e.wait(done)
	}
}

// testTagMatching checks that Recv(tag) takes the oldest message with that
// tag and keeps the others, in order, for later Recvs.
func testTagMatching(e *env) {
	done := e.sendAsync(e.a, msg{1, []byte("first")}, msg{2, []byte("second")}, msg{1, []byte("third")})
	e.recvString(e.b, 2, "second")
	e.recvString(e.b, 1, "first")
	e.recvString(e.b, 1, "third")
	e.wait(done)

	// Interleaved tags, including 0 and the largest, taken one tag at a time
	// in the reverse of the order they were sent.
	tags := []uint32{0, 1<<32 - 1, 5}
	const per = 20
	body := func(tag uint32, i int) []byte {
		return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint32(nil, tag), uint64(i))
	}
	var msgs []msg
	for i := range per {
		for _, tag := range tags {
			msgs = append(msgs, msg{tag, body(tag, i)})
		}
	}
	done = e.sendAsync(e.b, msgs...)
	for k := len(tags) - 1; k >= 0; k-- {
		for i := range per {
			e.recvWant(e.a, tags[k], 64, body(tags[k], i))
		}
	}
	e.wait(done)
}

// testZeroLength checks that empty messages are messages, queued or not.
func testZeroLength(e *env) {
	done := e.sendAsync(e.a,
		msg{5, nil}, msg{5, []byte{}}, msg{5, []byte("x")}, msg{6, nil}, msg{5, nil})
	e.recvWant(e.b, 6, 0, nil) // the tag-5 messages before it are queued
	e.recvWant(e.b, 5, 16, nil)
	e.recvWant(e.b, 5, 0, nil)
	e.recvWant(e.b, 5, 16, []byte("x"))
	e.recvWant(e.b, 5, 16, nil)
	e.wait(done)

	done = e.sendAsync(e.b, msg{7, nil}, msg{7, []byte("y")})
	e.recvWant(e.a, 7, 16, nil)
	e.recvWant(e.a, 7, 16, []byte("y"))
	e.wait(done)
}

// testSizes sends messages of sizes around the usual buffer and page
// boundaries, received directly and from the unexpected-message queue, and
// checks every byte.
func testSizes(e *env) {
	sizes := []int{1, 7, 4096, 65537, 8 << 20}
	for i, size := range sizes {
		seed := byte(i + 1)
		m := e.pattern(size, seed)
		// a → b into a larger buffer; b → a into one of exactly the size.
		for _, d := range []struct {
			from, to *end
			extra    int
		}{{e.a, e.b, 100}, {e.b, e.a, 0}} {
			done := e.sendAsync(d.from, msg{3, m})
			e.recvPattern(d.to, 3, size+d.extra, size, seed)
			e.wait(done)
		}
	}
	// Messages that arrive before their Recv is posted.
	for _, size := range []int{65537, 8 << 20} {
		done := e.sendAsync(e.a, msg{4, e.pattern(size, 9)}, msg{5, []byte("later tag")})
		e.recvString(e.b, 5, "later tag")
		e.recvPattern(e.b, 4, size, size, 9)
		e.wait(done)
	}
}

// recvPattern receives a tag message on to into a bufLen-byte buffer and
// checks that it is size bytes of the seed's pattern.
func (e *env) recvPattern(to *end, tag uint32, bufLen, size int, seed byte) {
	e.t.Helper()
	buf := e.buf(bufLen)
	n, err := to.c.Recv(e.ctx, tag, buf)
	if err != nil {
		e.t.Fatalf("%s.Recv(tag %d) of a %d-byte message into %d bytes: %v", to.name, tag, size, bufLen, err)
	}
	if n != size {
		e.t.Fatalf("%s.Recv(tag %d) = %d bytes; want %d", to.name, tag, n, size)
	}
	if err := checkPattern(buf[:n], seed); err != nil {
		e.t.Fatalf("%s.Recv(tag %d): %v", to.name, tag, err)
	}
}

// testTruncated checks that a message longer than the buffer fails with
// ErrTruncated, is consumed whole, and leaves the connection working.
func testTruncated(e *env) {
	truncated := func(to *end, tag uint32, bufLen int, seed byte) {
		e.t.Helper()
		buf := e.buf(bufLen)
		n, err := to.c.Recv(e.ctx, tag, buf)
		e.wantErr(fmt.Sprintf("%s.Recv(tag %d) into a %d-byte buffer", to.name, tag, bufLen), err, fabric.ErrTruncated)
		if n < 0 || n > bufLen {
			e.t.Fatalf("%s.Recv of a truncated message returned n = %d; want 0..%d", to.name, n, bufLen)
		}
		if err := checkPattern(buf[:n], seed); err != nil {
			e.t.Errorf("%s.Recv of a truncated message: the %d bytes it stored are not the message's start: %v", to.name, n, err)
		}
	}
	for _, size := range []int{100, 1 << 20} {
		done := e.sendAsync(e.a, msg{3, e.pattern(size, 1)}, msg{3, []byte("after")})
		truncated(e.b, 3, 10, 1)
		e.recvString(e.b, 3, "after") // the rest of the long message was skipped exactly
		e.wait(done)
	}
	// Truncation of a message taken from the unexpected-message queue.
	done := e.sendAsync(e.a, msg{4, e.pattern(100, 2)}, msg{5, []byte("x")}, msg{4, []byte("y")})
	e.recvString(e.b, 5, "x")
	truncated(e.b, 4, 10, 2)
	e.recvString(e.b, 4, "y")
	e.wait(done)
}

// testConcurrentSendRecv runs a Send and a Recv of 8 MiB on each side at
// once, three times over. A transport whose Send waits for the whole message
// to be received while holding what Recv needs deadlocks here.
func testConcurrentSendRecv(e *env) {
	const size, rounds = 8 << 20, 3
	send := func(from *end, seed byte) <-chan error {
		m := e.pattern(size, seed)
		ms := make([]msg, rounds)
		for i := range ms {
			ms[i] = msg{8, m}
		}
		return e.sendAsync(from, ms...)
	}
	recv := func(to *end, seed byte) <-chan error {
		return e.spawn(func() error {
			buf := e.buf(size)
			for r := range rounds {
				n, err := to.c.Recv(e.ctx, 8, buf)
				if err != nil {
					return fmt.Errorf("%s.Recv, round %d: %w", to.name, r, err)
				}
				if n != size {
					return fmt.Errorf("%s.Recv, round %d: got %d bytes, want %d", to.name, r, n, size)
				}
				if err := checkPattern(buf, seed); err != nil {
					return fmt.Errorf("%s.Recv, round %d: %w", to.name, r, err)
				}
				clear(buf)
			}
			return nil
		})
	}
	chs := []<-chan error{send(e.a, 0xA), send(e.b, 0xB), recv(e.a, 0xB), recv(e.b, 0xA)}
	for _, ch := range chs {
		e.wait(ch)
	}
}

// testRecvDeadline checks that a Recv with no message returns
// context.DeadlineExceeded soon after ctx's deadline, and that the
// connection, and a message of another tag that was waiting, survive it.
func testRecvDeadline(e *env) {
	const d = 100 * time.Millisecond
	done := e.sendAsync(e.b, msg{10, []byte("other tag")})
	buf := e.buf(64)
	for range 2 {
		start := time.Now()
		ctx, cancel := context.WithTimeout(e.ctx, d)
		n, err := e.a.c.Recv(ctx, 9, buf)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			e.t.Fatalf("a.Recv with a %v deadline and no message = %d, %v; want context.DeadlineExceeded", d, n, err)
		}
		if took := time.Since(start); took < d*9/10 {
			e.t.Errorf("a.Recv returned DeadlineExceeded after %v, before its %v deadline", took, d)
		}
		e.wantPrompt("a.Recv past its deadline", start.Add(d))
	}
	e.wait(done)
	done = e.sendAsync(e.b, msg{9, []byte("ok")})
	e.recvString(e.a, 9, "ok")
	e.recvString(e.a, 10, "other tag")
	e.wait(done)
	done = e.sendAsync(e.a, msg{9, []byte("back")})
	e.recvString(e.b, 9, "back")
	e.wait(done)
}

// testRecvDeadlineRetry receives 8 MiB messages with deadlines so short that
// they expire while a message is half received, retrying each time, and
// receives the second tag first so that the first tag's messages are queued
// while interrupted. Every byte must arrive once, in place.
func testRecvDeadlineRetry(e *env) {
	const size, count = 8 << 20, 4
	msgs := make([]msg, count)
	for i := range msgs {
		msgs[i] = msg{uint32(1 + i%2), e.pattern(size, byte(i))}
	}
	done := e.sendAsync(e.a, msgs...)
	buf := e.buf(size)
	interrupted := 0
	for _, i := range []int{1, 3, 0, 2} { // tag 2 first
		tag := msgs[i].tag
		for try := 0; ; try++ {
			d := min(100*time.Microsecond<<min(try, 11), 200*time.Millisecond)
			ctx, cancel := context.WithTimeout(e.ctx, d)
			n, err := e.b.c.Recv(ctx, tag, buf)
			cancel()
			if errors.Is(err, context.DeadlineExceeded) {
				interrupted++
				continue
			}
			if err != nil {
				e.t.Fatalf("b.Recv(tag %d) of message %d after %d expired deadlines: %v", tag, i, try, err)
			}
			if n != size {
				e.t.Fatalf("b.Recv(tag %d) of message %d = %d bytes; want %d", tag, i, n, size)
			}
			if err := checkPattern(buf, byte(i)); err != nil {
				e.t.Fatalf("b.Recv(tag %d) of message %d after %d expired deadlines: %v", tag, i, try, err)
			}
			break
		}
		clear(buf)
	}
	e.wait(done)
	e.t.Logf("%d receive deadlines expired on the way", interrupted)
}

// testRecvCancel checks that cancelling ctx ends a blocked Recv with
// context.Canceled and leaves the connection usable.
func testRecvCancel(e *env) {
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	const after = 50 * time.Millisecond
	start := time.Now()
	timer := time.AfterFunc(after, cancel)
	defer timer.Stop()
	n, err := e.a.c.Recv(ctx, 9, e.buf(64))
	if !errors.Is(err, context.Canceled) {
		e.t.Fatalf("a.Recv with ctx cancelled after %v = %d, %v; want context.Canceled", after, n, err)
	}
	e.wantPrompt("a.Recv after cancel", start.Add(after))
	done := e.sendAsync(e.b, msg{9, []byte("ok")})
	e.recvString(e.a, 9, "ok")
	e.wait(done)
}

// testCloseUnblocksRecv closes a Conn while a Recv on it is blocked.
func testCloseUnblocksRecv(e *env) {
	got := e.recvErr(e.ctx, e.a, 9)
	time.Sleep(50 * time.Millisecond) // let the Recv block
	closed := time.Now()
	if err := e.a.c.Close(); err != nil {
		e.t.Errorf("a.Close: %v", err)
	}
	e.closedErr("a.Recv blocked during a.Close", <-got)
	e.wantPrompt("a.Recv blocked during a.Close", closed)
}

// testCloseUnblocksSend closes a Conn while a Send on it is blocked because
// the peer does not receive. Transports that buffer 64 MiB without blocking
// skip it.
func testCloseUnblocksSend(e *env) {
	const mib, limit = 1 << 20, 64
	errNeverBlocked := errors.New("never blocked")
	got := e.spawn(func() error {
		m := e.buf(mib)
		for range limit {
			if err := e.a.c.Send(e.ctx, 9, m); err != nil {
				return err
			}
		}
		return errNeverBlocked
	})
	time.Sleep(200 * time.Millisecond) // let the peer's buffers fill
	closed := time.Now()
	if err := e.a.c.Close(); err != nil {
		e.t.Errorf("a.Close: %v", err)
	}
	err := <-got
	if errors.Is(err, errNeverBlocked) {
		e.t.Skipf("a.Send buffered %d MiB without blocking: nothing to unblock", limit)
	}
	e.closedErr("a.Send blocked during a.Close", err)
	e.wantPrompt("a.Send blocked during a.Close", closed)
}

// testUseAfterClose checks that Send and Recv fail at once after Close, and
// that the peer sees the connection closed.
func testUseAfterClose(e *env) {
	if err := e.a.c.Close(); err != nil {
		e.t.Errorf("a.Close: %v", err)
	}
	e.closedErr("a.Send after a.Close", e.a.c.Send(e.ctx, 9, []byte("late")))
	_, err := e.a.c.Recv(e.ctx, 9, e.buf(64))
	e.closedErr("a.Recv after a.Close", err)
	_, err = e.b.c.Recv(e.ctx, 9, e.buf(64))
	e.closedErr("b.Recv after a.Close", err)
}

// testPeerCloseRecv checks that the peer's Close ends a blocked Recv, and
// fails a Recv started afterwards, with an error wrapping ErrClosed.
func testPeerCloseRecv(e *env) {
	got := e.recvErr(e.ctx, e.a, 9)
	time.Sleep(50 * time.Millisecond) // let the Recv block
	closed := time.Now()
	if err := e.b.c.Close(); err != nil {
		e.t.Errorf("b.Close: %v", err)
	}
	e.closedErr("a.Recv blocked during b.Close", <-got)
	e.wantPrompt("a.Recv blocked during b.Close", closed)
	_, err := e.a.c.Recv(e.ctx, 9, e.buf(64))
	e.closedErr("a.Recv after b.Close", err)
}

// testPeerCloseSend checks that Sends to a closed peer start failing, with
// an error wrapping ErrClosed, within 1000 messages or 5 seconds (TCP accepts
// the first write after the peer's close and fails the next).
func testPeerCloseSend(e *env) {
	if err := e.b.c.Close(); err != nil {
		e.t.Errorf("b.Close: %v", err)
	}
	m := e.buf(64 << 10)
	stop := time.Now().Add(5 * time.Second)
	var err error
	sent := 0
	for ; sent < 1000 && time.Now().Before(stop); sent++ {
		if err = e.a.c.Send(e.ctx, 9, m); err != nil {
			break
		}
	}
	if err == nil {
		e.t.Fatalf("a.Send succeeded %d times after b.Close; want an error wrapping fabric.ErrClosed", sent)
	}
	e.closedErr(fmt.Sprintf("a.Send after b.Close (after %d successful sends)", sent), err)
}

// testSendDeadline checks that a Send blocked by a peer that does not
// receive returns context.DeadlineExceeded soon after the deadline, and that
// the peer then receives only whole messages: after an interrupted Send the
// connection may be closed, but never corrupt. Transports that buffer 64 MiB
// without blocking skip it.
func testSendDeadline(e *env) {
	const mib, limit = 1 << 20, 64
	const d = 300 * time.Millisecond
	m := e.pattern(mib, 7)
	start := time.Now()
	ctx, cancel := context.WithTimeout(e.ctx, d)
	defer cancel()
	var err error
	sent := 0
	for ; sent < limit; sent++ {
		if err = e.a.c.Send(ctx, 9, m); err != nil {
			break
		}
	}
	if err == nil {
		e.t.Skipf("a.Send buffered %d MiB without blocking: no deadline to hit", limit)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		e.t.Fatalf("a.Send to a peer that does not receive, after %d MiB: %v; want context.DeadlineExceeded", sent, err)
	}
	e.wantPrompt("a.Send past its deadline", start.Add(d))

	buf := e.buf(mib)
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(e.ctx, 500*time.Millisecond)
		n, err := e.b.c.Recv(ctx, 9, buf)
		cancel()
		if errors.Is(err, fabric.ErrClosed) || errors.Is(err, context.DeadlineExceeded) {
			break // the stream ended cleanly, or is still open with nothing more to read
		}
		if err != nil {
			e.t.Fatalf("b.Recv of message %d after a.Send's deadline: %v", i, err)
		}
		if n != mib {
			e.t.Fatalf("b.Recv of message %d after a.Send's deadline = %d bytes; want %d", i, n, mib)
		}
		if err := checkPattern(buf, 7); err != nil {
			e.t.Fatalf("b.Recv of message %d after a.Send's deadline: %v", i, err)
		}
		if i > sent {
			e.t.Fatalf("b received %d messages; a sent at most %d", i+1, sent+1)
		}
	}
}

// testRecvLong checks fabric.RecvLong, which takes the Conn's RecvLong
// when it has one (fabric.LongReceiver) and its Recv otherwise: messages
// of every size sent while it already waits arrive whole, small ones
// promptly (on fabric/shm its waits sleep at once, so each is a wake-up,
// and a lost one would show), another
// tag's message waits for its own Recv, a cancel ends it promptly and
// leaves the Conn usable, and the peer's Close ends it with ErrClosed.
func testRecvLong(e *env) {
	const late = 20 * time.Millisecond
	sizes := []int{0, 1, 4 << 10, 256 << 10, 1 << 20}
	for i, n := range sizes {
		want := e.pattern(n, byte(i))
		done := e.spawn(func() error {
			time.Sleep(late) // RecvLong waits first
			if err := e.b.c.Send(e.ctx, 5, []byte("other")); err != nil {
				return fmt.Errorf("b.Send(tag 5): %w", err)
			}
			if err := e.b.c.Send(e.ctx, 4, want); err != nil {
				return fmt.Errorf("b.Send(tag 4, %d bytes): %w", n, err)
			}
			return nil
		})
		buf := e.buf(max(n, 1))
		start := time.Now()
		got, err := fabric.RecvLong(e.ctx, e.a.c, 4, buf)
		if err != nil {
			e.t.Fatalf("RecvLong(a, tag 4, %d-byte buffer): %v", len(buf), err)
		}
		if got != n || !bytes.Equal(buf[:got], want) {
			e.t.Fatalf("RecvLong(a, tag 4) = %d bytes %s; want %d bytes %s", got, show(buf[:got]), n, show(want))
		}
		if n <= 4<<10 { // a larger one's time is the transport's to move it
			e.wantPrompt(fmt.Sprintf("RecvLong(a) of %d bytes sent after %v", n, late), start.Add(late))
		}
		e.wait(done)
		e.recvString(e.a, 5, "other")
	}

	ctx, cancel := context.WithCancel(e.ctx)
	const after = 50 * time.Millisecond
	start := time.Now()
	timer := time.AfterFunc(after, cancel)
	_, err := fabric.RecvLong(ctx, e.a.c, 9, e.buf(64))
	timer.Stop()
	cancel()
	if !errors.Is(err, context.Canceled) {
		e.t.Fatalf("RecvLong(a) with ctx cancelled after %v: %v; want context.Canceled", after, err)
	}
	e.wantPrompt("RecvLong(a) after cancel", start.Add(after))
	done := e.sendAsync(e.b, msg{9, []byte("ok")})
	e.recvString(e.a, 9, "ok")
	e.wait(done)

	got := e.spawn(func() error {
		_, err := fabric.RecvLong(e.ctx, e.a.c, 9, e.buf(64))
		return err
	})
	time.Sleep(late) // let it sleep
	closed := time.Now()
	if err := e.b.c.Close(); err != nil {
		e.t.Errorf("b.Close: %v", err)
	}
	e.closedErr("RecvLong(a) blocked during b.Close", <-got)
	e.wantPrompt("RecvLong(a) blocked during b.Close", closed)
}
