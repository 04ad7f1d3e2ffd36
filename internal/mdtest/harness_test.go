package mdtest

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
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
	"github.com/hpcbench/hpcbench/report"
)

func testRegistry(t *testing.T) *aiori.Registry {
	t.Helper()
	reg, err := aiori.NewRegistry(posix.Entry(), dummy.Entry())
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// fakeClock advances by step on every reading.
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

var fixedNow = time.Date(2026, 11, 29, 18, 5, 1, 0, time.UTC)

type jobRun struct {
	res  *report.Result
	errs []error
	warn []string
}

// runJob runs args on n in-process ranks over pipes; fake selects the fake
// clock and fixed dates; runCmd replaces the phase-command runner.
func runJob(t *testing.T, n int, args string, fake bool, runCmd func(ctx context.Context, cmd, phase string) error) jobRun {
	t.Helper()
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
		o, err := config.Parse(strings.Fields(args), testRegistry(t))
		if err != nil {
			t.Fatalf("parse %q: %v", args, err)
		}
		env := Env{
			Command: append([]string{"hpcbench", "mdtest"}, strings.Fields(args)...), Version: "hpcbench test",
			Machine: "Linux testhost", Hostnames: []string{"testhost"}, Hosts: 1, RunCmd: runCmd,
		}
		if fake {
			env.Clock = fakeClock(0.001)
			env.Now = func() time.Time { return fixedNow }
		}
		if r == 0 {
			env.Warn = func(line string) { mu.Lock(); out.warn = append(out.warn, line); mu.Unlock() }
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Run(ctx, comms[r], o, env)
			if r == 0 {
				out.res = res
			}
			out.errs[r] = err
			if err != nil && !errors.Is(err, ErrOps) {
				cancel()
			}
		}()
	}
	wg.Wait()
	return out
}

func noErrors(t *testing.T, j jobRun) {
	t.Helper()
	failed := false
	for r, err := range j.errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
			failed = true
		}
	}
	if failed {
		t.FailNow()
	}
}
