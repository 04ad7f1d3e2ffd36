package ior

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/dummy"
	"github.com/hpcbench/hpcbench/aiori/posix"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric/pipe"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/report"
)

// testRegistry is the registry the command uses, minus MMAP.
func testRegistry(t *testing.T) *aiori.Registry {
	t.Helper()
	reg, err := aiori.NewRegistry(posix.Entry(), dummy.Entry(), noFsync())
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// fakeClock returns a clock that advances by step on every reading, so a
// rank's figures depend only on the sequence of its own calls.
func fakeClock(step float64) func() float64 {
	var mu sync.Mutex
	now := 1000.0
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		now += step
		return now
	}
}

// fixedNow is the date every golden run reports.
var fixedNow = time.Date(2026, 11, 29, 18, 3, 15, 0, time.UTC)

// jobRun is the outcome of one in-process job.
type jobRun struct {
	res  *report.Result // rank 0's
	errs []error        // per rank
	warn []string       // rank 0's warnings
}

// runJob parses args and runs them on n in-process ranks connected by
// pipes. fake selects the fake clock and fixed dates (goldens).
func runJob(t *testing.T, n int, args string, fake bool) jobRun {
	return runJobProgress(t, n, args, fake, nil)
}

// runJobProgress is runJob with a progress callback on rank 0.
func runJobProgress(t *testing.T, n int, args string, fake bool, progress func(*report.Result)) jobRun {
	t.Helper()
	cfg, err := config.Parse(strings.Fields(args), testRegistry(t))
	if err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	mesh := pipe.Mesh(n)
	comms := make([]*collectives.Comm, n)
	for r := range n {
		c, err := collectives.New(r, n, mesh[r], collectives.Options{})
		if err != nil {
			t.Fatal(err)
		}
		comms[r] = c
	}
	defer func() {
		for _, c := range comms {
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := jobRun{errs: make([]error, n)}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for r := range n {
		env := Env{
			Command: append([]string{"hpcbench", "ior"}, strings.Fields(args)...), Version: "hpcbench test",
			Machine: "Linux testhost", Platform: "testhost(Linux)", Hostnames: []string{"testhost"},
			Hosts: 1, HostRanks: n,
		}
		if fake {
			env.Clock = fakeClock(0.001)
			env.Now = func() time.Time { return fixedNow }
		}
		if r == 0 {
			env.Warn = func(line string) { mu.Lock(); out.warn = append(out.warn, line); mu.Unlock() }
			env.Progress = progress
		}
		tests := make([]config.Options, len(cfg.Tests))
		copy(tests, cfg.Tests)
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Run(ctx, comms[r], tests, env)
			if r == 0 {
				out.res = res
			}
			out.errs[r] = err
			if err != nil && !errors.Is(err, ErrVerify) {
				cancel() // a failed rank must not leave the others waiting
			}
		}()
	}
	wg.Wait()
	return out
}
