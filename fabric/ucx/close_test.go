package ucx_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
)

// TestTransportCloseUnderway: closing the transport while a Recv waits
// ends it with fabric.ErrClosed, and the pair's calls fail afterwards
// instead of reaching a destroyed worker.
func TestTransportCloseUnderway(t *testing.T) {
	tr := newTransport(t, "posix,self")
	a, b := fabrictest.Pair(t, tr)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	got := make(chan error, 1)
	go func() {
		_, err := a.Recv(ctx, 1, make([]byte, 8))
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; !errors.Is(err, fabric.ErrClosed) {
		t.Errorf("Recv during the transport's Close: %v; want fabric.ErrClosed", err)
	}
	if err := b.Send(ctx, 1, []byte("late")); !errors.Is(err, fabric.ErrClosed) {
		t.Errorf("Send after the transport's Close: %v; want fabric.ErrClosed", err)
	}
	if _, err := b.Recv(ctx, 1, make([]byte, 8)); !errors.Is(err, fabric.ErrClosed) {
		t.Errorf("Recv after the transport's Close: %v; want fabric.ErrClosed", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("Close after the transport's Close: %v", err)
	}
}
