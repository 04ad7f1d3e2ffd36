package ofi

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
)

// TestMsgPeerShutdown: a MSG peer that goes without its close note (its
// endpoint shut down, as a dying process's is) ends the Conn's calls with
// fabric.ErrClosed once the messages it sent before are received, through
// the FI_SHUTDOWN event.
func TestMsgPeerShutdown(t *testing.T) {
	tr, err := New(Options{Provider: "tcp", Endpoint: EndpointMsg})
	if errors.Is(err, ErrNoLibrary) {
		t.Skipf("%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	a, b := fabrictest.Pair(t, tr)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	msgs := [][]byte{[]byte("one"), bytes.Repeat([]byte{2}, 5000), bytes.Repeat([]byte{3}, msgEager-1)}
	for _, m := range msgs {
		if err := b.Send(ctx, 4, m); err != nil {
			t.Fatalf("Send: %v", err)
		}
	}
	pb := b.(*msgConn)
	// Wait for the copies to go, then shut down without a note.
	if err := pb.wait(ctx, func() bool { return pb.sending == 0 }, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	pb.mu.Lock()
	pb.shutdownLocked()
	pb.mu.Unlock()
	for i, m := range msgs {
		buf := make([]byte, msgEager)
		n, err := a.Recv(ctx, 4, buf)
		if err != nil || !bytes.Equal(buf[:n], m) {
			t.Fatalf("Recv of message %d: %d bytes, %v", i, n, err)
		}
	}
	start := time.Now()
	if _, err := a.Recv(ctx, 4, make([]byte, 8)); !errors.Is(err, fabric.ErrClosed) {
		t.Fatalf("Recv after the peer's shutdown: %v; want ErrClosed", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the shutdown took %v to be noticed", d)
	}
	if err := a.Send(ctx, 4, []byte("x")); !errors.Is(err, fabric.ErrClosed) {
		t.Errorf("Send after the peer's shutdown: %v; want ErrClosed", err)
	}
}
