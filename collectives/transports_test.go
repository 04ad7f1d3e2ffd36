package collectives

import (
	"fmt"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/fabric/shm"
	"github.com/hpcbench/hpcbench/fabric/tcp"
)

// TestCollectivesOverTransports runs the matrix (every collective, every
// algorithm, sizes 0, 1, 7, 4096 and the large size) over real shared-memory
// and TCP connections, in process, for a few rank counts: the pipe tests
// check the algorithms, these check them on the transports ranks use.
func TestCollectivesOverTransports(t *testing.T) {
	sm, err := shm.New(shm.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	tc, err := tcp.New(tcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ranks := []int{1, 2, 3, 4, 5, 7, 9}
	if testing.Short() || raceEnabled {
		ranks = []int{2, 3, 5}
	}
	for _, tr := range []fabric.Transport{sm, tc} {
		for _, p := range ranks {
			t.Run(fmt.Sprintf("%s/p=%d", tr.Name(), p), func(t *testing.T) {
				mesh := make([][]fabric.Conn, p)
				if p == 1 {
					mesh[0] = []fabric.Conn{nil}
				} else {
					mesh = fabrictest.AllToAll(t, tr, p)
				}
				var o Options
				if a, ok := tr.(fabric.Allocator); ok {
					o.Allocator = a // the buffers and scratch from shm's arena
				}
				comms := commsOn(t, mesh, o)
				// The default barrier: gather-release only for two ranks
				// over shared memory (see Comm.Barrier).
				want := "dissemination"
				if p == 2 && tr.Name() == "shm" {
					want = "gather-release"
				}
				if got := comms[0].Algorithm("barrier", 0); got != want {
					t.Errorf("default barrier: %q; want %q", got, want)
				}
				runMatrixOn(t, comms, matrix(p, nil, true))
			})
		}
	}
}
