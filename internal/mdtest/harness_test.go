package mdtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/dummy"
	"github.com/hpcbench/hpcbench/aiori/posix"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/jobtest"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
	"github.com/hpcbench/hpcbench/report"
)

func testRegistry(t testing.TB) *aiori.Registry {
	t.Helper()
	reg, err := aiori.NewRegistry(posix.Entry(), dummy.Entry())
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// fixedNow is the date every golden run reports.
var fixedNow = time.Date(2026, 11, 29, 18, 5, 1, 0, time.UTC)

// jobRun is the outcome of one in-process job.
type jobRun struct {
	res    *report.Result   // rank 0's (the first of a sweep)
	all    []*report.Result // rank 0's, one per number of tasks
	errs   []error          // per rank
	warn   []string         // rank 0's warnings
	phases []string         // rank 0's Phase calls: "NAME ITER DONE/TOTAL"
}

// runJob runs args on n in-process ranks, through Sweep; fake selects the fake clock and
// fixed dates; runCmd replaces the phase-command runner.
func runJob(t *testing.T, n int, args string, fake bool, runCmd func(ctx context.Context, cmd, phase string) error) jobRun {
	t.Helper()
	return runJobTick(t, n, args, fake, runCmd, time.Millisecond)
}

// runJobTick is runJob with the fake clock's per-item Tick advancing by
// step a reading.
func runJobTick(t *testing.T, n int, args string, fake bool, runCmd func(ctx context.Context, cmd, phase string) error, step time.Duration) jobRun {
	t.Helper()
	opts := make([]*config.Options, n) // Run resolves each rank's own
	for r := range opts {
		o, err := config.Parse(strings.Fields(args), testRegistry(t))
		if err != nil {
			t.Fatalf("parse %q: %v", args, err)
		}
		opts[r] = o
	}
	var out jobRun
	var mu sync.Mutex
	out.errs = jobtest.Run(t, n, ErrOps, func(ctx context.Context, c *collectives.Comm) error {
		env := Env{
			Run: report.Run{Command: append([]string{"hpcbench", "mdtest"}, strings.Fields(args)...), Version: "hpcbench test",
				Hostnames: []string{"testhost"}, Hosts: 1},
			Machine: "Linux testhost", RunCmd: runCmd, RankHosts: slices.Repeat([]string{"testhost"}, n),
		}
		if fake {
			env.Clock = jobtest.FakeClock(0.001)
			env.Tick = fakeTick(step)
			env.Now = func() time.Time { return fixedNow }
		}
		if c.Rank() == 0 {
			env.Warn = func(line string) { mu.Lock(); out.warn = append(out.warn, line); mu.Unlock() }
			env.Phase = func(name string, iter int, done, total int64) {
				mu.Lock()
				out.phases = append(out.phases, fmt.Sprintf("%s %d %d/%d", name, iter, done, total))
				mu.Unlock()
			}
		}
		rs, err := Sweep(ctx, c, opts[c.Rank()], env)
		if c.Rank() == 0 && len(rs) > 0 {
			out.res, out.all = rs[0], rs
		}
		return err
	})
	return out
}

// fakeTick returns a per-item clock for one rank, in nanoseconds, that
// advances by step on every reading: every item then takes step, -W
// counts items, and the distributions depend only on the rank's calls.
func fakeTick(step time.Duration) func() int64 {
	var now int64
	return func() int64 {
		now += int64(step)
		return now
	}
}

func noErrors(t *testing.T, j jobRun) {
	t.Helper()
	jobtest.NoErrors(t, j.errs)
}
