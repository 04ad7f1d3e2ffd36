package ucx_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/fabric/ucx"
)

// TestEagerNeverWaits: Sends of up to EagerLimit bytes return before the
// peer posts any Recv, also when UCX must keep the buffer (UCX_RNDV_THRESH=0
// sends every message by rendezvous, so each is copied and queued), and
// the peer then receives every message whole, in order, and sees the
// close after them. With UCX's eager protocol the sender closes before
// the peer receives; a rendezvous needs the sender's endpoint until the
// peer has received, so there the sender closes after.
func TestEagerNeverWaits(t *testing.T) {
	sizes := []int{0, 1, 8, 1000, ucx.EagerLimit - 1, ucx.EagerLimit}
	for _, rndv := range []string{"", "0"} {
		for _, tls := range tlsVariants {
			t.Run("UCX_TLS="+tls+"/UCX_RNDV_THRESH="+rndv, func(t *testing.T) {
				if rndv != "" {
					t.Setenv("UCX_RNDV_THRESH", rndv)
				}
				a, b := fabrictest.Pair(t, newTransport(t, tls))
				if got := a.(interface{ EagerLimit() int }).EagerLimit(); got != ucx.EagerLimit {
					t.Fatalf("EagerLimit() = %d, want %d", got, ucx.EagerLimit)
				}
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				const rounds = 10
				for i := range rounds * len(sizes) {
					msg := bytes.Repeat([]byte{byte(i + 1)}, sizes[i%len(sizes)])
					sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
					err := a.Send(sctx, 3, msg)
					scancel()
					if err != nil {
						t.Fatalf("Send %d (%d bytes) before any Recv: %v", i, len(msg), err)
					}
				}
				closeA := func() {
					if err := a.Close(); err != nil {
						t.Fatalf("Close: %v", err)
					}
				}
				if rndv == "" {
					closeA()
				}
				buf := make([]byte, ucx.EagerLimit)
				for i := range rounds * len(sizes) {
					want := bytes.Repeat([]byte{byte(i + 1)}, sizes[i%len(sizes)])
					n, err := b.Recv(ctx, 3, buf)
					if err != nil || !bytes.Equal(buf[:n], want) {
						t.Fatalf("Recv %d = %d bytes, %v; want %d bytes of %d", i, n, err, len(want), i+1)
					}
				}
				if rndv != "" {
					closeA()
				}
				if _, err := b.Recv(ctx, 3, buf); !errors.Is(err, fabric.ErrClosed) {
					t.Fatalf("Recv after the last message: %v, want ErrClosed", err)
				}
			})
		}
	}
}
