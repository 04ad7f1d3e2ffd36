package tcp

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
)

// rmaPair returns a connected pair as this package's conns.
func rmaPair(t *testing.T) (a, b *conn) {
	t.Helper()
	x, y := fabrictest.Pair(t, newTransport(t, Options{}))
	return x.(*conn), y.(*conn)
}

// TestRMAAbandonedRead: a Read whose context ends before the peer answers
// returns the context's error, and its late answer neither lands in its
// buffer nor passes for the next Read's.
func TestRMAAbandonedRead(t *testing.T) {
	a, b := rmaPair(t)
	region := bytes.Repeat([]byte("abcd"), 1024)
	key, release, err := b.Expose(region)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	stale := make([]byte, 8)
	if err := a.Read(ctx, key, 0, stale); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Read with no one answering = %v; want context.DeadlineExceeded", err)
	}
	// b answers both requests now: the stale one first.
	answered := make(chan error, 1)
	go func() {
		var err error
		for range 2 {
			if err = b.Progress(t.Context()); err != nil {
				break
			}
		}
		answered <- err
	}()
	fresh := make([]byte, 8)
	if err := a.Read(t.Context(), key, 4, fresh); err != nil {
		t.Fatalf("Read after the abandoned one: %v", err)
	}
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	if string(fresh) != "abcdabcd" {
		t.Errorf("the second Read got %q; want the bytes at offset 4", fresh)
	}
	if !bytes.Equal(stale, make([]byte, 8)) {
		t.Errorf("the abandoned Read's buffer was written after it returned: %q", stale)
	}
}

// TestRMAReleased: a Read of a released region is refused with a reason,
// a Write into one is dropped, and the connection goes on.
func TestRMAReleased(t *testing.T) {
	a, b := rmaPair(t)
	ctx := t.Context()
	region := make([]byte, 64)
	key, release, err := b.Expose(region)
	if err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	answered := make(chan error, 1)
	go func() { answered <- b.Progress(ctx) }()
	err = a.Read(ctx, key, 0, make([]byte, 8))
	if err == nil || !strings.Contains(err.Error(), "the peer refused it: region 1 is not exposed") {
		t.Errorf("Read of a released region = %v; want the peer's refusal", err)
	}
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	if err := a.Write(ctx, key, 0, []byte("lost")); err != nil {
		t.Fatalf("Write into a released region: %v (it is dropped there, not refused here)", err)
	}
	if err := a.Send(ctx, 9, []byte("after")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if n, err := b.Recv(ctx, 9, buf); err != nil || string(buf[:n]) != "after" {
		t.Fatalf("Recv after the dropped write = %q, %v", buf[:n], err)
	}
	if !bytes.Equal(region, make([]byte, 64)) {
		t.Errorf("a write into a released region landed: %q", region)
	}
}

// TestRMAWriteInterleaved: writes and messages interleave on the stream
// while the target waits for a message of a tag that comes last; the
// messages before it are kept for their Recvs and every write lands.
func TestRMAWriteInterleaved(t *testing.T) {
	a, b := rmaPair(t)
	ctx := t.Context()
	region := make([]byte, 1<<20)
	key, release, err := b.Expose(region)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 8)
		_, err := b.Recv(ctx, 100, buf)
		done <- err
	}()
	want := make([]byte, len(region))
	for i := range 16 {
		chunk := bytes.Repeat([]byte{byte(i + 1)}, 64<<10)
		copy(want[i*len(chunk):], chunk)
		if err := a.Write(ctx, key, i*len(chunk), chunk); err != nil {
			t.Fatal(err)
		}
		if err := a.Send(ctx, uint32(i), binary.LittleEndian.AppendUint32(nil, uint32(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Send(ctx, 100, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(region, want) {
		t.Fatal("a write did not land where it was aimed")
	}
	for i := range 16 {
		buf := make([]byte, 4)
		if _, err := b.Recv(ctx, uint32(i), buf); err != nil || binary.LittleEndian.Uint32(buf) != uint32(i) {
			t.Fatalf("queued message %d: %x, %v", i, buf, err)
		}
	}
}

// TestRMAProtocolErrors: an RMA frame of an unknown kind, or a read request
// of the wrong length, breaks the read side with a protocol error.
func TestRMAProtocolErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		word uint64
		body []byte
		want string
	}{
		{"unknown kind", 9<<kindShift | 4, []byte{1, 2, 3, 4}, "a frame of unknown kind 9"},
		{"short read request", kindReadReq<<kindShift | 8, make([]byte, 8), "an RMA frame of kind 2 with 8 bytes"},
		{"long reason", kindReadResp<<kindShift | (readRespPreLen + maxReasonLen + 1), binary.LittleEndian.AppendUint64(make([]byte, 0, readRespPreLen+maxReasonLen+1), 1), "a read reply's reason of 4097 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := rmaPair(t)
			body := tc.body
			if len(body) < int(tc.word&lenMask) {
				body = append(body, make([]byte, int(tc.word&lenMask)-len(body))...)
			}
			a.wmu.Lock()
			err := a.writeFrame(t.Context(), frameOp{kind: tc.word >> kindShift}, 0, tc.word, nil, body)
			a.wmu.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.Recv(t.Context(), 1, make([]byte, 8))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Recv after a bad frame = %v; want %q", err, tc.want)
			}
		})
	}
}

// TestRMAReadPeerGone: a Read waiting for its answer while another
// goroutine's Recv reads the stream fails, naming the closed connection,
// when the peer goes away instead of answering; it does not hang.
func TestRMAReadPeerGone(t *testing.T) {
	a, b := rmaPair(t)
	key, release, err := b.Expose(make([]byte, 64))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	recvDone := make(chan error, 1)
	go func() {
		_, err := a.Recv(t.Context(), 1, make([]byte, 8))
		recvDone <- err
	}()
	time.Sleep(20 * time.Millisecond) // the Recv holds the read side
	readDone := make(chan error, 1)
	go func() { readDone <- a.Read(t.Context(), key, 0, make([]byte, 8)) }()
	time.Sleep(20 * time.Millisecond)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []chan error{recvDone, readDone} {
		select {
		case err := <-ch:
			if !errors.Is(err, fabric.ErrClosed) {
				t.Errorf("after the peer closed: %v; want an error wrapping fabric.ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a call still waits 5 s after the peer closed")
		}
	}
}
