package imb

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/pipe"
	"github.com/hpcbench/hpcbench/report"
)

// *collectives.Comm is what the engine drives in a real job.
var _ Comm = (*collectives.Comm)(nil)

// TestOverCollectives runs the engine over the real collectives, ranks
// joined by in-process pipe meshes, at a few sizes with -check: every
// benchmark's results must verify. With groups, each process count below
// the job size gets a mesh of its own for its sub-communicators.
func TestOverCollectives(t *testing.T) {
	for _, c := range []struct {
		name   string
		n      int
		groups bool
		tables int
	}{
		{"3 ranks", 3, false, 14 + 4}, // IMB's tables, then latency, series, ranks, hosts
		{"4 ranks, npmin 2", 4, true, 22 + 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			o := NewOptions()
			o.MsgLen = []int{0, 1, 8, 1024, 65536}
			o.MsgsPerSample = 20
			o.Time = 200 * time.Millisecond
			o.Check = true
			world := pipe.Mesh(c.n)
			subs := make(map[int][][]fabric.Conn)
			if c.groups {
				for _, np := range processCounts(kindCollective, c.n, o.NPMin) {
					if np < c.n {
						subs[np] = pipe.Mesh(np)
					}
				}
			}
			var (
				wg   sync.WaitGroup
				res  *report.Result
				errs = make([]error, c.n)
			)
			for r := range c.n {
				wg.Go(func() {
					comm, err := collectives.New(r, c.n, world[r], collectives.Options{})
					if err != nil {
						errs[r] = err
						return
					}
					defer comm.Close()
					ro := o
					var made []*collectives.Comm
					if c.groups {
						ro.Group = func(_ context.Context, np int) (Comm, error) {
							if r >= np {
								return nil, nil
							}
							sub, err := collectives.New(r, np, subs[np][r], collectives.Options{})
							if err == nil {
								made = append(made, sub)
							}
							return sub, err
						}
					}
					out, err := Run(ctx, comm, ro)
					for _, sub := range made {
						sub.Close()
					}
					errs[r] = err
					if r == 0 {
						res = out
					}
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			if got := len(res.Tables); got != c.tables {
				t.Errorf("%d tables, want %d", got, c.tables)
			}
			for _, tb := range res.Tables {
				t.Logf("%s: %d rows", tb.Name, len(tb.Rows))
			}
			checkCollectiveOps(t, res)
		})
	}
}

// checkCollectiveOps checks the latency table against IMB's: a collective
// times every repetition on every active rank, so a size's ops are the
// process count times its #repetitions, whether the distributions were
// reduced over the job (idle ranks adding empty phases) or over the group.
func checkCollectiveOps(t *testing.T, res *report.Result) {
	t.Helper()
	lat := table(t, res, distLatency)
	ops := make(map[[2]string]float64)
	for i, r := range lat.Rows {
		ops[[2]string{r.Labels[0], r.Labels[1]}] = metric(t, lat, i, "ops")
	}
	checked := 0
	for _, b := range benchmarks() {
		if b.kind != kindCollective {
			continue
		}
		for np := 1; np <= 64; np++ {
			name := report.IMBTableName(b.name, np)
			var tb *report.Table
			for i := range res.Tables {
				if res.Tables[i].Name == name {
					tb = &res.Tables[i]
				}
			}
			if tb == nil {
				continue
			}
			for i, r := range tb.Rows {
				want := float64(np) * metric(t, tb, i, "#repetitions")
				if got := ops[[2]string{name, r.Labels[0]}]; got != want {
					t.Errorf("%s #bytes %s: latency ops %v, want %d ranks × #repetitions = %v", name, r.Labels[0], got, np, want)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no collective's rows were checked")
	}
}
