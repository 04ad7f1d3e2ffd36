package run

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/jobtest"
)

func TestFillHosts(t *testing.T) {
	for _, tc := range []struct {
		name       string
		hosts      []hostInfo
		names      []string
		hostRanks  int
		cpus       int
		oversubscr string
	}{
		{"one", []hostInfo{{"a", 4}}, []string{"a"}, 1, 4, ""},
		{"one-host-oversubscribed", []hostInfo{{"a", 2}, {"a", 2}, {"a", 2}}, []string{"a"}, 3, 2, "3 ranks / 2 CPUs"},
		{"two-hosts", []hostInfo{{"nodeA", 8}, {"nodeA", 8}, {"nodeB", 8}, {"nodeB", 8}}, []string{"nodeA", "nodeB"}, 2, 8, ""},
		{"interleaved", []hostInfo{{"b", 4}, {"a", 4}, {"b", 4}}, []string{"b", "a"}, 2, 4, ""},
		{"worst-host-named", []hostInfo{{"big", 1}, {"small", 1}, {"small", 1}, {"big", 8}}, []string{"big", "small"}, 2, 1, "2 ranks / 1 CPUs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := Record{}
			rec.Run.Env = map[string]string{}
			fillHosts(&rec, tc.hosts, tc.hosts[0].cpus)
			if !slices.Equal(rec.Run.Hostnames, tc.names) || rec.Run.Hosts != len(tc.names) || rec.Run.Ranks != len(tc.hosts) {
				t.Errorf("hosts %q (%d), ranks %d; want %q, %d ranks", rec.Run.Hostnames, rec.Run.Hosts, rec.Run.Ranks, tc.names, len(tc.hosts))
			}
			for i, h := range tc.hosts {
				if rec.RankHosts[i] != h.name {
					t.Errorf("RankHosts[%d] = %q, want %q", i, rec.RankHosts[i], h.name)
				}
			}
			if rec.HostRanks != tc.hostRanks || rec.CPUs != tc.cpus {
				t.Errorf("HostRanks %d CPUs %d, want %d and %d", rec.HostRanks, rec.CPUs, tc.hostRanks, tc.cpus)
			}
			if got := rec.Run.Env["oversubscribed"]; got != tc.oversubscr {
				t.Errorf("oversubscribed %q, want %q", got, tc.oversubscr)
			}
		})
	}
}

// TestGatherHosts: every rank learns every rank's host and CPUs over a
// real communicator.
func TestGatherHosts(t *testing.T) {
	const n = 5
	got := make([][]hostInfo, n)
	errs := jobtest.Run(t, n, nil, func(ctx context.Context, c *collectives.Comm) error {
		hs, err := gatherHosts(ctx, c, hostInfo{name: fmt.Sprintf("node%d", c.Rank()/2), cpus: 10 + c.Rank()})
		got[c.Rank()] = hs
		return err
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	for r := range n {
		for p, h := range got[r] {
			if want := (hostInfo{name: fmt.Sprintf("node%d", p/2), cpus: 10 + p}); h != want {
				t.Errorf("rank %d sees rank %d as %+v, want %+v", r, p, h, want)
			}
		}
	}
}

func TestGatherHostsTooLong(t *testing.T) {
	errs := jobtest.Run(t, 1, nil, func(ctx context.Context, c *collectives.Comm) error {
		_, err := gatherHosts(ctx, c, hostInfo{name: string(make([]byte, maxHostname+1))})
		return err
	})
	if errs[0] == nil {
		t.Error("a 256-byte host name was gathered")
	}
}

func TestHostname(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	if h, err := Hostname(env(map[string]string{HostnameEnv: "nodeA"})); err != nil || h != "nodeA" {
		t.Errorf("with %s=nodeA: %q, %v", HostnameEnv, h, err)
	}
	if h, err := Hostname(env(map[string]string{HostnameEnv: ""})); err != nil || h == "" {
		t.Errorf("with %s empty: %q, %v; want the kernel's", HostnameEnv, h, err)
	}
}
