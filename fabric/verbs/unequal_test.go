package verbs_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/verbs"
	"github.com/hpcbench/hpcbench/fabric/verbs/fakeverbs"
)

// TestUnequalRings connects sides with different slot sizes and counts:
// chunks are the smaller slot's, credits each side's own ring.
func TestUnequalRings(t *testing.T) {
	f := fakeverbs.New()
	f.AddDevice(fakeverbs.Config{})
	small := verbs.DefaultOptions()
	small.Slots, small.SlotSize = verbs.MinSlots, 1024
	big := verbs.DefaultOptions()
	big.Slots, big.SlotSize = 32, 4096
	x, y, err := pair(t, newTr(t, small, f.Opener()), newTr(t, big, f.Opener()))
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{0, 1, 1007, 1008, 1009, 4080, 4081, 100000, 1 << 20}
	for _, dir := range [][2]fabric.Conn{{x, y}, {y, x}} {
		from, to := dir[0], dir[1]
		done := make(chan error, 1)
		go func() {
			for i, n := range sizes {
				// Tags alternate so that half the messages wait in the
				// unexpected queue.
				if err := from.Send(t.Context(), uint32(i%2), bytes.Repeat([]byte{byte(i)}, n)); err != nil {
					done <- fmt.Errorf("Send %d: %w", n, err)
					return
				}
			}
			done <- nil
		}()
		buf := make([]byte, 1<<20)
		for _, parity := range []int{1, 0} {
			for i, n := range sizes {
				if i%2 != parity {
					continue
				}
				got, err := to.Recv(t.Context(), uint32(parity), buf)
				if err != nil || got != n || !bytes.Equal(buf[:got], bytes.Repeat([]byte{byte(i)}, n)) {
					t.Fatalf("Recv of message %d (%d bytes) = %d, %v", i, n, got, err)
				}
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	// Closing one side: the other's Recv says the peer closed.
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := y.Recv(t.Context(), 0, make([]byte, 8)); !errors.Is(err, fabric.ErrClosed) || !bytes.Contains([]byte(err.Error()), []byte("by the peer")) {
		t.Fatalf("Recv after the peer's Close = %v", err)
	}
}
