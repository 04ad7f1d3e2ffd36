package ior

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
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/internal/jobtest"
	"github.com/hpcbench/hpcbench/report"
)

// testRegistry is the registry the command uses, minus MMAP, plus a
// backend that cannot fsync.
func testRegistry(t testing.TB) *aiori.Registry {
	t.Helper()
	reg, err := aiori.NewRegistry(posix.Entry(), dummy.Entry(), noFsync())
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// fixedNow is the date every golden run reports.
var fixedNow = time.Date(2026, 11, 29, 18, 3, 15, 0, time.UTC)

// jobRun is the outcome of one in-process job.
type jobRun struct {
	res    *report.Result // rank 0's
	errs   []error        // per rank
	warn   []string       // rank 0's warnings
	phases []string       // rank 0's Phase calls: "NAME ITER DONE/TOTAL"
}

// runJob parses args and runs them on n in-process ranks. fake selects
// the fake clock and fixed dates (goldens).
func runJob(t *testing.T, n int, args string, fake bool) jobRun {
	return runJobProgress(t, n, args, fake, nil)
}

// runJobProgress is runJob with a progress callback on rank 0.
func runJobProgress(t *testing.T, n int, args string, fake bool, progress func(*report.Result)) jobRun {
	t.Helper()
	return runJobWith(t, n, args, fake, progress, nil)
}

// runJobWith is runJobProgress with tweak, if not nil, changing each
// rank's Env before the run (per-rank clocks).
func runJobWith(t *testing.T, n int, args string, fake bool, progress func(*report.Result), tweak func(rank int, env *Env)) jobRun {
	t.Helper()
	cfg, err := config.Parse(strings.Fields(args), testRegistry(t))
	if err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	var out jobRun
	var mu sync.Mutex
	out.errs = jobtest.Run(t, n, ErrVerify, func(ctx context.Context, c *collectives.Comm) error {
		env := Env{
			Run: report.Run{Command: append([]string{"hpcbench", "ior"}, strings.Fields(args)...), Version: "hpcbench test",
				Hostnames: []string{"testhost"}, Hosts: 1},
			Machine: "Linux testhost", Platform: "testhost(Linux)", HostRanks: n,
			RankHosts: slices.Repeat([]string{"testhost"}, n),
		}
		if fake {
			env.Clock = jobtest.FakeClock(0.001)
			env.Ticks = fakeTicks(time.Microsecond) // the same on every rank: no straggler notes
			env.Now = func() time.Time { return fixedNow }
		}
		if c.Rank() == 0 {
			env.Warn = func(line string) { mu.Lock(); out.warn = append(out.warn, line); mu.Unlock() }
			env.Progress = progress
			env.Phase = func(name string, iter int, done, total int64) {
				mu.Lock()
				out.phases = append(out.phases, fmt.Sprintf("%s %d %d/%d", name, iter, done, total))
				mu.Unlock()
			}
		}
		if tweak != nil {
			tweak(c.Rank(), &env)
		}
		tests := append([]config.Options(nil), cfg.Tests...) // Run resolves its own copy
		res, err := Run(ctx, c, tests, env)
		if c.Rank() == 0 {
			out.res = res
		}
		return err
	})
	return out
}

func noErrors(t *testing.T, j jobRun) {
	t.Helper()
	jobtest.NoErrors(t, j.errs)
}
