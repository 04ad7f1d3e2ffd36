package ofi_test

import (
	"bytes"
	"context"
	"errors"
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
