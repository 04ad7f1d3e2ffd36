package job

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/verbs"
	"github.com/hpcbench/hpcbench/fabric/verbs/fakeverbs"
)

// deadTransport is a transport whose endpoint cannot open, as verbs on a
// host whose RDMA port is down.
type deadTransport struct{ fabric.Transport }

func (deadTransport) Name() string { return "verbs" }
func (deadTransport) Listen(context.Context, int) (fabric.Listener, error) {
	return nil, errors.New("ibv_open_device: No such device")
}

// TestUnevenTransports bootstraps ranks whose transports differ, as on
// hosts with and without an RDMA device: in auto mode rank 0's verbs
// cannot listen, is left out with one line on its stderr, and every pair
// takes the first transport both ends have (cards are matched by scheme,
// not by position); explicitly asked for, the same failure ends the rank's
// bootstrap.
func TestUnevenTransports(t *testing.T) {
	full := registry(t) // shm, tcp
	regs := []fabric.Registry{
		{deadTransport{}, full[1]}, // rank 0: verbs (dead), tcp
		{full[0], full[1]},         // rank 1: shm, tcp
		{full[0], full[1]},         // rank 2: shm, tcp
	}
	var stderr [3]bytes.Buffer
	jobs := startWith(t, FabricAuto, []io.Writer{&stderr[0], &stderr[1], &stderr[2]}, func(r int) fabric.Registry { return regs[r] })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	errs := make([]error, len(regs))
	var wg sync.WaitGroup
	if got := stderr[0].String(); !strings.Contains(got, "rank 0: listen on verbs: ibv_open_device: No such device; using tcp") {
		t.Errorf("rank 0's stderr %q does not say verbs was left out", got)
	}
	want := [][]string{{"", "tcp", "tcp"}, {"tcp", "", "shm"}, {"tcp", "shm", ""}}
	for r, j := range jobs {
		if strings.Join(j.PeerTransport, ",") != strings.Join(want[r], ",") {
			t.Errorf("rank %d reaches its peers over %q, want %q", r, j.PeerTransport, want[r])
		}
		wg.Go(func() {
			send, sum := []byte{byte(r + 1), 0, 0, 0}, make([]byte, 4)
			errs[r] = j.Comm.Allreduce(ctx, send, sum, collectives.Int32, collectives.Sum)
			if errs[r] == nil && sum[0] != 6 {
				errs[r] = errors.New("wrong sum")
			}
			if errs[r] == nil {
				errs[r] = j.Close(ctx)
			}
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}

	// Asked for by name, a transport that cannot listen fails the rank.
	_, err := (&Job{mesh: newMesh(0, 2, time.Second)}).listen(ctx, 0, fabric.Registry{deadTransport{}, full[1]}, false, &card{}, nil)
	if err == nil || !strings.Contains(err.Error(), "listen on verbs: ibv_open_device: No such device") {
		t.Errorf("listen without auto = %v, want the listen error", err)
	}
}

// TestCollectivesOverVerbs runs a job's collectives over the verbs
// transport on the fake device, as coll --fabric verbs does on an RDMA
// host: asked for by name, and in auto mode, where verbs (listed between
// shm and tcp, as cmd/hpcbench's transports does) is taken for every pair
// shm does not reach. shm is left out here so that every pair is a "remote"
// one.
func TestCollectivesOverVerbs(t *testing.T) {
	const size = 4
	for _, fab := range []string{"verbs", FabricAuto} {
		t.Run(fab, func(t *testing.T) {
			f := fakeverbs.New()
			f.AddDevice(fakeverbs.Config{})
			jobs := startWith(t, fab, make([]io.Writer, size), func(int) fabric.Registry {
				v, err := verbs.NewWithOpener(verbs.DefaultOptions(), f.Opener())
				if err != nil {
					t.Fatal(err)
				}
				return fabric.Registry{v, registry(t)[1]} // verbs, tcp
			})
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			errs := make([]error, size)
			var wg sync.WaitGroup
			for r, j := range jobs {
				wg.Go(func() {
					n := 1 << 16 // past the eager sizes, so rendezvous paths run too
					send, sum := make([]byte, 4*n), make([]byte, 4*n)
					for i := 0; i < len(send); i += 4 {
						send[i] = byte(r + 1)
					}
					if errs[r] = j.Comm.Allreduce(ctx, send, sum, collectives.Int32, collectives.Sum); errs[r] != nil {
						return
					}
					for i := 0; i < len(sum); i += 4 {
						if sum[i] != size*(size+1)/2 {
							errs[r] = fmt.Errorf("sum at byte %d is %d, want %d", i, sum[i], size*(size+1)/2)
							return
						}
					}
					if errs[r] = j.Comm.Barrier(ctx); errs[r] == nil {
						errs[r] = j.Close(ctx)
					}
				})
			}
			wg.Wait()
			for r, j := range jobs {
				if errs[r] != nil {
					t.Errorf("rank %d: %v", r, errs[r])
				}
				if got := j.Transports(); got != "verbs" {
					t.Errorf("rank %d used %q, want verbs", r, got)
				}
				if strings.Contains(strings.Join(j.PeerTransport, ","), "tcp") {
					t.Errorf("rank %d: %q", r, j.PeerTransport)
				}
			}
		})
	}
}
