package dfs

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/objstore/store/storetest"
)

// TestHostLeaders: the hosts in order of their first ranks, each host's
// first rank, and the rank's own host; without a name for every rank the
// job is on one host.
func TestHostLeaders(t *testing.T) {
	for _, tc := range []struct {
		name      string
		hosts     []string
		size      int
		rank      int
		wantHosts []string
		wantLead  []int
		wantMine  int
	}{
		{"outside a job", nil, 1, 0, []string{""}, []int{0}, 0},
		{"no names", nil, 4, 3, []string{""}, []int{0}, 0},
		{"names for some ranks only", []string{"a", "b"}, 4, 3, []string{"a"}, []int{0}, 0},
		{"one host", []string{"a", "a", "a"}, 3, 2, []string{"a"}, []int{0}, 0},
		{"blocks", []string{"a", "a", "b", "b"}, 4, 3, []string{"a", "b"}, []int{0, 2}, 1},
		{"round robin", []string{"a", "b", "c", "a", "b", "c"}, 6, 4, []string{"a", "b", "c"}, []int{0, 1, 2}, 1},
		{"rank 0 not first host's block", []string{"b", "a", "a", "b"}, 4, 2, []string{"b", "a"}, []int{0, 1}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hosts, lead, mine := hostLeaders(tc.hosts, tc.size, tc.rank)
			if !slices.Equal(hosts, tc.wantHosts) || !slices.Equal(lead, tc.wantLead) || mine != tc.wantMine {
				t.Errorf("hostLeaders(%q, %d, %d) = %q, %v, %d; want %q, %v, %d", tc.hosts, tc.size, tc.rank,
					hosts, lead, mine, tc.wantHosts, tc.wantLead, tc.wantMine)
			}
		})
	}
}

// TestEngineInfoRoundTrip: what a host's first rank sends about its engine
// reads back whole, an error it sends comes back as that error, and a
// malformed message is refused.
func TestEngineInfoRoundTrip(t *testing.T) {
	in := engineInfo{dir: "/p", where: "started by rank 2 (engine pid 7 on h)", addrs: []string{"shm://x", "tcp://1.2.3.4:5"}, created: true}
	out, err := decodeEngineInfo(in.encode())
	if err != nil || out.dir != in.dir || out.where != in.where || !slices.Equal(out.addrs, in.addrs) || !out.created {
		t.Errorf("round trip: %+v, %v; want %+v", out, err, in)
	}
	if _, err := decodeEngineInfo("err\ndfs: --dfs.pool /p: permission denied"); err == nil || err.Error() != "dfs: --dfs.pool /p: permission denied" {
		t.Errorf("an error message: %v", err)
	}
	for _, bad := range []string{"ok\n", "ok\n2\n/p\nwhere\nshm://x", "ok\n1\n/p"} {
		if _, err := decodeEngineInfo(bad); err == nil || !strings.Contains(err.Error(), "for the engine's address") {
			t.Errorf("decodeEngineInfo(%q) = %v; want a refusal", bad, err)
		}
	}
}

// TestLocateWaitsForJobEngine: a job whose pool another job's engine
// still holds (its job just ended) waits for it to go and starts its own.
func TestLocateWaitsForJobEngine(t *testing.T) {
	dir := storetest.Dir(t, 2)
	released := storetest.Hold(t, dir, 300*time.Millisecond)
	s := &session{opts: &Options{Pool: dir}}
	info, err := s.locate(t.Context(), "node0")
	if err != nil {
		t.Fatalf("locate: %v", err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if s.child == nil || !strings.Contains(info.where, "started by rank 0") {
		t.Errorf("locate: engine %v, where %q; want one this rank started", s.child, info.where)
	}
	if s.child != nil {
		if err := s.child.Close(); err != nil {
			t.Error(err)
		}
	}
}
