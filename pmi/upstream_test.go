package pmi

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestServerUpstream: a server of some of a job's ranks (a proxy's) hands
// its barrier upstream with the puts since the last one, answers gets from
// the puts the owner brings back, and names ranks by their job-wide rank.
func TestServerUpstream(t *testing.T) {
	ups := make(chan []Pair, 2)
	notes := make(chan Note, 16)
	s := testServer(t, 2, func(c *ServerConfig) {
		c.Engine.Ranks = []int{4, 7}
		c.Engine.UniverseSize = 8
		c.Upstream = func(p []Pair) { ups <- p }
		c.Notify = func(n Note) { notes <- n }
	})
	ranks := []*rawRank{newRawRank(t, s, 0), newRawRank(t, s, 1)}
	done := runServer(t, s)
	for i, rr := range ranks {
		rr.send("cmd=init pmi_version=1 pmi_subversion=1")
		rr.expect("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
		rr.send("cmd=get_universe_size")
		rr.expect("cmd=universe_size size=8")
		rr.send("cmd=put kvsname=kvs_t key=k" + string(rune('a'+i)) + " value=v" + string(rune('a'+i)))
		rr.expect("cmd=put_result rc=0 msg=success")
		rr.send("cmd=barrier_in")
	}
	var puts []Pair
	select {
	case puts = <-ups:
	case <-time.After(5 * time.Second):
		t.Fatal("no barrier went upstream")
	}
	if want := []Pair{{"ka", "va"}, {"kb", "vb"}}; !slices.Equal(puts, want) {
		t.Fatalf("puts upstream %v, want %v", puts, want)
	}
	s.CompleteBarrier([]Pair{{"ka", "va"}, {"kb", "vb"}, {"kz", "from another host"}})
	for _, rr := range ranks {
		rr.expect("cmd=barrier_out")
		rr.send("cmd=get kvsname=kvs_t key=kz")
		rr.expect("cmd=get_result rc=0 msg=success value=from another host")
	}
	ranks[1].send("cmd=barrier_in")
	ranks[0].conn.Close() // it dies: rank 4 of the job
	err := wait(t, done)
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 4 || re.Err.Error() != "pmi: rank 4 closed its PMI connection before finalize" {
		t.Fatalf("Run = %v, want rank 4's death", err)
	}
	close(notes)
	seen := map[int]bool{}
	for n := range notes {
		seen[n.Rank] = true
	}
	if !seen[4] || !seen[7] || len(seen) != 2 {
		t.Errorf("notes named ranks %v, want 4 and 7", seen)
	}
	select {
	case p := <-ups:
		t.Errorf("a second barrier went upstream (%v) with a rank dead", p)
	default:
	}
}
