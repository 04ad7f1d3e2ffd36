package run

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

// TestFirstRank: the rank that speaks for the job is PMI_RANK 0, or under
// a launch with no PMI-1 server that launch's rank 0, or a rank alone.
func TestFirstRank(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, true},
		{map[string]string{"PMI_RANK": "0"}, true},
		{map[string]string{"PMI_RANK": "2"}, false},
		{map[string]string{"PMI_RANK": ""}, true},
		{map[string]string{"PMIX_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2"}, false},
		{map[string]string{"PMIX_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}, true},
		{map[string]string{"SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "2"}, false},
		{map[string]string{"PMIX_NAMESPACE": "ns"}, true}, // no rank given: it speaks
	} {
		getenv := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
		if got := FirstRank(getenv); got != c.want {
			t.Errorf("%v: FirstRank = %v, want %v", c.env, got, c.want)
		}
	}
}

// TestMainForeignLaunch: under a launch it cannot join, a rank runs
// nothing and exits 2; rank 0 says why in one line, the others wait for
// the launcher to end them and say nothing.
func TestMainForeignLaunch(t *testing.T) {
	var phases []string
	ran := false
	for _, c := range []struct {
		rank string
		msg  string
	}{
		{"0", "bench: launched by Open MPI's mpirun (PMIx) (PMIX_RANK=0) as one of 2 processes"},
		{"1", ""},
	} {
		s := spec("", nil, &phases, nil)
		env := map[string]string{"PMIX_RANK": c.rank, "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_RANK": c.rank}
		s.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		s.Engine = func(context.Context, *Env) (*report.Result, error) { ran = true; return nil, nil }
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond) // the launcher's teardown
		err := mainSpec(ctx, s)
		cancel()
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 2 || !strings.HasPrefix(ee.Msg, c.msg) || (c.msg == "") != (ee.Msg == "") {
			t.Errorf("rank %s: %v, want exit 2 with %q", c.rank, err, c.msg)
		}
		if ee != nil && strings.Contains(ee.Msg, "\n") {
			t.Errorf("rank %s: message on several lines: %q", c.rank, ee.Msg)
		}
	}
	if ran || len(phases) > 0 {
		t.Errorf("the engine ran under a launch it cannot join")
	}
}
