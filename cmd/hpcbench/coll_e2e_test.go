package main

import (
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

// TestCollCheck: every IMB benchmark, every result buffer verified, over
// shared memory between 5 ranks and over TCP between 3.
func TestCollCheck(t *testing.T) {
	r := run(t, 5*time.Minute, "launch", "-n", "5", "--", "hpcbench", "coll", "-check", "-msglog", "0:12", "-iter", "20", "-time", "1")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, b := range []string{"PingPong", "PingPing", "Sendrecv", "Exchange", "Barrier", "Bcast", "Scatter", "Gather", "Allgather", "Alltoall", "Reduce", "Allreduce"} {
		if !strings.Contains(r.Stdout, "# Benchmarking "+b+" ") {
			t.Errorf("no table for %s", b)
		}
	}
	for _, want := range []string{"# #processes = 5", "oversubscribed", "shm"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("stdout:\n%s", r.Stdout)
	}

	r = run(t, 5*time.Minute, "launch", "-n", "3", "--", "hpcbench", "coll", "--fabric", "tcp", "-check", "-msglog", "0:16", "-iter", "20", "-time", "1", "--format", "json", "PingPong", "Allreduce", "Alltoall")
	if r.Code != 0 {
		t.Fatalf("tcp: exit %d\n%s", r.Code, r.Stderr)
	}
	res, err := report.ReadJSON(strings.NewReader(r.Stdout))
	if err != nil {
		t.Fatalf("tcp: JSON: %v\n%s", err, r.Stdout)
	}
	if res.Run.Ranks != 3 || res.Run.Env["transport"] != "tcp" || len(res.Tables) == 0 {
		t.Errorf("tcp: ranks %d transport %q tables %d", res.Run.Ranks, res.Run.Env["transport"], len(res.Tables))
	}
}

// TestCollRankKilled: a rank killed in the middle of the benchmarks ends the
// job quickly, naming it.
func TestCollRankKilled(t *testing.T) {
	script := `if [ "$PMI_RANK" = 2 ]; then (sleep 2; kill -9 $$) & fi; exec "$0" coll -msglog 10:22 -time 10 Allreduce Alltoall`
	start := time.Now()
	r := run(t, 2*time.Minute, "launch", "-n", "4", "--", "sh", "-c", script, hpcbench)
	if r.Code != 137 || !strings.Contains(r.Stderr, "hpcbench: launch: rank 2 was killed by signal 9") {
		t.Errorf("exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("job took %v after the kill at 2s", d)
	}
}

func TestCollBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-msglog", "5:2"}, "msglog"},
		{[]string{"Frobnicate"}, "Frobnicate"},
		{[]string{"--fabric", "ib"}, `--fabric "ib"`},
		{[]string{"--alg", "allreduce=magic"}, "magic"},
		{[]string{"-iter", "x"}, "iter"},
	} {
		r := run(t, 30*time.Second, append([]string{"coll"}, tc.args...)...)
		if r.Code != 2 || !strings.Contains(r.Stderr, tc.msg) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
			t.Errorf("coll %v: exit %d stderr %q, want 2 and one line with %q", tc.args, r.Code, r.Stderr, tc.msg)
		}
	}
}
