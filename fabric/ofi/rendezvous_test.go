package ofi_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
)

// TestSendThenClose: messages a Send copied because no Recv was posted
// (a rendezvous whose CTS did not come within its grace) still arrive
// whole after the sender closes, in order, and then the receiver sees
// the connection closed; a short Recv buffer reports truncation and
// consumes the message.
func TestSendThenClose(t *testing.T) {
	for _, p := range []string{"shm", "tcp"} {
		t.Run(p, func(t *testing.T) {
			a, b := fabrictest.Pair(t, newTransport(t, p))
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			sizes := []int{64 << 10, 1 << 20, 3<<20 + 5}
			for i, n := range sizes {
				if err := a.Send(ctx, 7, bytes.Repeat([]byte{byte(i + 1)}, n)); err != nil {
					t.Fatalf("Send %d bytes: %v", n, err)
				}
			}
			if err := a.Send(ctx, 7, make([]byte, 1<<20)); err != nil {
				t.Fatalf("Send of the message to truncate: %v", err)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			for i, n := range sizes {
				buf := make([]byte, 4<<20)
				got, err := b.Recv(ctx, 7, buf)
				if err != nil || got != n || !bytes.Equal(buf[:got], bytes.Repeat([]byte{byte(i + 1)}, n)) {
					t.Fatalf("Recv of message %d (%d bytes) = %d, %v", i, n, got, err)
				}
			}
			if _, err := b.Recv(ctx, 7, make([]byte, 10)); !errors.Is(err, fabric.ErrTruncated) {
				t.Fatalf("Recv of 1 MiB into 10 bytes: %v; want ErrTruncated", err)
			}
			if _, err := b.Recv(ctx, 7, make([]byte, 10)); !errors.Is(err, fabric.ErrClosed) {
				t.Fatalf("Recv after every message: %v; want ErrClosed", err)
			}
		})
	}
}

// TestSendRacesPeerClose: a Send whose message the peer receives, and
// then closes, before the Send returns reports success: the message went.
// Another goroutine polls the same endpoint all along (in a job, the
// mesh's accept loop does), so the peer's close note can be taken between
// the post and Send's return. Copied (4 KiB) and rendezvous (128 KiB)
// messages both.
func TestSendRacesPeerClose(t *testing.T) {
	for _, p := range []string{"shm", "tcp"} {
		t.Run(p, func(t *testing.T) {
			tr := newTransport(t, p)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			_, poller := fabrictest.Pair(t, tr)
			pctx, stopPoll := context.WithCancel(ctx)
			var polls sync.WaitGroup
			polls.Go(func() {
				buf := make([]byte, 8)
				for pctx.Err() == nil {
					_, _ = poller.Recv(pctx, 9, buf)
				}
			})
			defer polls.Wait()
			defer stopPoll()
			for i := range 200 {
				n := 4 << 10
				if i%2 == 1 {
					n = 128 << 10
				}
				a, b := fabrictest.Pair(t, tr)
				var recvErr error
				var peer sync.WaitGroup
				peer.Go(func() {
					_, recvErr = b.Recv(ctx, 7, make([]byte, n))
					_ = b.Close()
				})
				err := a.Send(ctx, 7, make([]byte, n))
				peer.Wait()
				if recvErr != nil {
					t.Fatalf("round %d: Recv of %d bytes: %v", i, n, recvErr)
				}
				if err != nil {
					t.Fatalf("round %d: Send of %d bytes the peer received: %v", i, n, err)
				}
				_ = a.Close()
			}
		})
	}
}
