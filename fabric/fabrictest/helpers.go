package fabrictest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// prompt is how long after its trigger (a deadline, a cancel, a Close) a
// blocked call may take to return.
const prompt = time.Second

// msg is one message of a batch sent by sendAsync.
type msg struct {
	tag uint32
	b   []byte
}

// sendAsync sends msgs in order from a goroutine the case owns. Sends run
// concurrently with the case's Recvs because the contract lets Send wait for
// the peer; the returned channel reports the first failure, or nil.
func (e *env) sendAsync(from *end, msgs ...msg) <-chan error {
	return e.spawn(func() error {
		for i, m := range msgs {
			if err := from.c.Send(e.ctx, m.tag, m.b); err != nil {
				return fmt.Errorf("%s.Send(tag %d, %d bytes), message %d of %d: %w", from.name, m.tag, len(m.b), i+1, len(msgs), err)
			}
		}
		return nil
	})
}

// wait fails the case if a goroutine reported an error.
func (e *env) wait(ch <-chan error) {
	e.t.Helper()
	if err := <-ch; err != nil {
		e.t.Fatal(err)
	}
}

// recvWant receives a tag message on to into a buffer of bufLen bytes and
// checks that it equals want.
func (e *env) recvWant(to *end, tag uint32, bufLen int, want []byte) {
	e.t.Helper()
	buf := e.buf(bufLen)
	n, err := to.c.Recv(e.ctx, tag, buf)
	if err != nil {
		e.t.Fatalf("%s.Recv(tag %d, %d-byte buffer): %v", to.name, tag, bufLen, err)
	}
	if !bytes.Equal(buf[:n], want) {
		e.t.Fatalf("%s.Recv(tag %d) = %d bytes %s; want %d bytes %s", to.name, tag, n, show(buf[:n]), len(want), show(want))
	}
}

// recvString is recvWant for a short text message.
func (e *env) recvString(to *end, tag uint32, want string) {
	e.t.Helper()
	e.recvWant(to, tag, 64, []byte(want))
}

// show formats a message for an error: short ones in full.
func show(b []byte) string {
	if len(b) <= 32 {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q…", b[:32])
}

// wantErr fails the case unless err wraps target.
func (e *env) wantErr(what string, err, target error) {
	e.t.Helper()
	if !errors.Is(err, target) {
		e.t.Errorf("%s: got error %v; want one wrapping %v", what, err, target)
	}
}

// wantPrompt fails the case if more than prompt passed since trigger.
func (e *env) wantPrompt(what string, trigger time.Time) {
	e.t.Helper()
	if late := time.Since(trigger); late > prompt {
		e.t.Errorf("%s returned %v after it should have; want within %v", what, late.Round(time.Millisecond), prompt)
	}
}

// recvErr runs a Recv on c in a goroutine the case owns and reports its error
// (nil is a failure of the case when an error is expected).
func (e *env) recvErr(ctx context.Context, c *end, tag uint32) <-chan error {
	return e.spawn(func() error {
		n, err := c.c.Recv(ctx, tag, make([]byte, 64))
		if err == nil {
			return fmt.Errorf("%s.Recv(tag %d) returned a %d-byte message, unexpectedly", c.name, tag, n)
		}
		return err
	})
}

// closedErr is the assertion that err, from what, wraps fabric.ErrClosed.
func (e *env) closedErr(what string, err error) {
	e.t.Helper()
	e.wantErr(what, err, fabric.ErrClosed)
}
