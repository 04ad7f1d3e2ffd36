package fabtest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/fabric/verbs"
	"github.com/hpcbench/hpcbench/fabric/verbs/fakeverbs"
)

// TestRunOverVerbs: every test runs, checked, over the verbs transport on
// the fake device (the logic of -p verbs without hardware): messages
// through the slots, RMA by rkey.
func TestRunOverVerbs(t *testing.T) {
	f := fakeverbs.New()
	f.AddDevice(fakeverbs.Config{})
	tr, err := verbs.NewWithOpener(verbs.DefaultOptions(), f.Opener())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{
		{Test: PingPong, Sizes: []int{0, 64, 64 << 10}, Iters: 200, Warmup: 2, Window: 1, Check: true},
		{Test: BW, Sizes: []int{8, 100 << 10}, Iters: 64, Warmup: 2, Window: 16, Check: true},
		{Test: RMABW, Sizes: []int{1, 1 << 20}, Iters: 32, Warmup: 2, Window: 8, Check: true},
		{Test: RMAPingPong, Sizes: []int{1, 4096}, Iters: 100, Warmup: 2, Window: 1, Check: true},
	} {
		t.Run(o.Test, func(t *testing.T) {
			a, b := fabrictest.Pair(t, tr)
			ra, oka := a.(fabric.RMAConn)
			rb, okb := b.(fabric.RMAConn)
			if !oka || !okb {
				t.Fatal("verbs connections are not RMAConns")
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var wg sync.WaitGroup
			var er error
			wg.Go(func() {
				_, er = Run(ctx, Peer{Link: ConnLink{Conn: b}, RMA: rb, Name: "initiator", Timeout: 10 * time.Second}, Options{Test: o.Test})
			})
			out, ei := Run(ctx, Peer{Link: ConnLink{Conn: a}, RMA: ra, Initiator: true, Name: "responder", Timeout: 10 * time.Second}, o)
			if ei != nil {
				cancel()
			}
			wg.Wait()
			if ei != nil || er != nil {
				t.Fatalf("initiator: %v; responder: %v", ei, er)
			}
			for _, r := range out.Rows {
				if r.Sent != o.Iters || r.Acked != o.Iters || r.Defects != 0 {
					t.Errorf("row %+v", r)
				}
			}
		})
	}
}
