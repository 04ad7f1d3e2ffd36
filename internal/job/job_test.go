package job

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/shm"
	"github.com/hpcbench/hpcbench/fabric/tcp"
	"github.com/hpcbench/hpcbench/pmi/pmitest"
)

func registry(t *testing.T) fabric.Registry {
	t.Helper()
	s, err := shm.New(shm.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	tc, err := tcp.New(tcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return fabric.Registry{s, tc}
}

// startAll bootstraps size in-process ranks through a real PMI server.
func startAll(t *testing.T, size int, fabricName string) []*Job {
	t.Helper()
	return startWith(t, fabricName, make([]io.Writer, size), func(int) fabric.Registry { return registry(t) })
}

// startWith bootstraps one in-process rank per stderr writer (nil: the
// default), rank r over the transports reg(r).
func startWith(t *testing.T, fabricName string, stderr []io.Writer, reg func(r int) fabric.Registry) []*Job {
	t.Helper()
	size := len(stderr)
	envs := pmitest.Job(t, size)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	jobs := make([]*Job, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := range size {
		o := Options{Fabric: fabricName, Transports: reg(r), Getenv: envs[r], Stderr: stderr[r]}
		wg.Go(func() {
			jobs[r], errs[r] = Start(ctx, o)
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return jobs
}

func TestStartAndAllreduce(t *testing.T) {
	for _, tc := range []struct {
		fabric string
		size   int
		want   string
	}{
		{"auto", 4, "shm"},
		{"tcp", 3, "tcp"},
		{"shm", 5, "shm"},
		{"auto", 1, "self"},
	} {
		t.Run(tc.fabric+"/"+tc.want, func(t *testing.T) {
			jobs := startAll(t, tc.size, tc.fabric)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			errs := make([]error, tc.size)
			sums := make([][]byte, tc.size)
			for r, j := range jobs {
				if j.Transports() != tc.want || j.Hosts != 1 || j.HostRanks != tc.size {
					t.Errorf("rank %d: transports %q hosts %d hostranks %d", r, j.Transports(), j.Hosts, j.HostRanks)
				}
				wg.Go(func() {
					send := []byte{byte(r + 1), 0, 0, 0}
					sums[r] = make([]byte, 4)
					errs[r] = j.Comm.Allreduce(ctx, send, sums[r], collectives.Int32, collectives.Sum)
					if errs[r] == nil {
						errs[r] = j.Close(ctx)
					}
				})
			}
			wg.Wait()
			want := byte(tc.size * (tc.size + 1) / 2)
			for r := range jobs {
				if errs[r] != nil {
					t.Errorf("rank %d: %v", r, errs[r])
				} else if !bytes.Equal(sums[r], []byte{want, 0, 0, 0}) {
					t.Errorf("rank %d: sum %v, want %d", r, sums[r], want)
				}
			}
		})
	}
}

func TestValidate(t *testing.T) {
	o := Options{Fabric: "ib", Transports: registry(t)}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `--fabric "ib": must be auto or one of shm, tcp`) {
		t.Errorf("Validate = %v", err)
	}
}

func TestCards(t *testing.T) {
	c := card{host: "h/1", proc: proc{pid: 42, start: 7}, addrs: []string{"shm://x/y", "tcp://1.2.3.4:5"}}
	got, err := parseCard(c.String())
	if err != nil || got.host != c.host || got.proc != c.proc || strings.Join(got.addrs, ",") != strings.Join(c.addrs, ",") {
		t.Errorf("round trip: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "h/1", "h/1 tcp://1.2.3.4:5", "h/1 pid:0.7", "h/1 pid:x.7", "h/1 pid:42", "h/1 pid:42.-1"} {
		if _, err := parseCard(bad); err == nil {
			t.Errorf("card %q parsed", bad)
		}
	}
	reg := registry(t)
	if _, _, err := choose(reg, card{host: "other", addrs: []string{"nope://"}}, 3); err == nil || !strings.Contains(err.Error(), "no transport reaches rank 3") {
		t.Errorf("choose = %v", err)
	}
}

// TestLazyPartnersOnly bootstraps 64 ranks over shm and runs a Barrier and
// an Allreduce: every rank has connected only to the partners those
// algorithms talk to, O(log N), not to all 63 peers, and the collectives'
// results are right.
func TestLazyPartnersOnly(t *testing.T) {
	const size = 64
	jobs := startAll(t, size, "shm")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for r, j := range jobs {
		if n := len(j.Connected()); n != 0 {
			t.Errorf("rank %d connected to %d peers before any message", r, n)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, size)
	sums := make([][]byte, size)
	for r, j := range jobs {
		wg.Go(func() {
			if errs[r] = j.Comm.Barrier(ctx); errs[r] != nil {
				return
			}
			sums[r] = make([]byte, 4)
			errs[r] = j.Comm.Allreduce(ctx, []byte{1, 0, 0, 0}, sums[r], collectives.Int32, collectives.Sum)
		})
	}
	wg.Wait()
	most := 0
	for r, j := range jobs {
		if errs[r] != nil {
			t.Errorf("rank %d: %v", r, errs[r])
			continue
		}
		if !bytes.Equal(sums[r], []byte{size, 0, 0, 0}) {
			t.Errorf("rank %d: sum %v, want %d", r, sums[r], size)
		}
		most = max(most, len(j.Connected()))
	}
	// Recursive doubling and dissemination: log2(64) = 6 partners each.
	if most == 0 || most > 12 {
		t.Errorf("a rank connected to %d peers; want at most 12 (2 log2 N), not N-1 = %d", most, size-1)
	}
	t.Logf("most peers any rank connected to: %d of %d", most, size-1)
	for r, j := range jobs {
		wg.Go(func() { errs[r] = j.Close(ctx) })
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: close: %v", r, err)
		}
	}
}
