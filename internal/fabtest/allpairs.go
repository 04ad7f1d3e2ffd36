package fabtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
)

// Endpoint is one participant of an all-pairs run: a rank of the job
// and the name its figures go under (its host, or "rank N (host)").
type Endpoint struct {
	Rank int    `json:"rank"`
	Name string `json:"name"`
}

// AllPairsOptions is an all-pairs run: a ping-pong and a bandwidth test
// between every two endpoints.
type AllPairsOptions struct {
	LatSize  int   // the ping-pong's transfer size
	LatIters int64 // its timed iterations
	BWSize   int   // the bandwidth test's transfer size
	BWIters  int64 // its timed messages
	Window   int
	Warmup   int64
	Check    bool
	// Timeout bounds every wait for a partner (Peer.Timeout).
	Timeout time.Duration
	// Slow delays every message between two ranks by Delay: a link slowed
	// on purpose, for tests of the outlier report. Zero Delay: none.
	Slow Slowdown
	// OnRound, when not nil, is told on every rank as each round ends.
	OnRound func(done, total int)
}

// Validate checks the sizes and counts, naming the flags of fabric
// allpairs.
func (o *AllPairsOptions) Validate() error {
	for _, s := range []struct {
		flag string
		v    int
	}{{"--lat-size", o.LatSize}, {"--bw-size", o.BWSize}} {
		if s.v < 0 || s.v > MaxSize {
			return fmt.Errorf("%s %d: want a size of 0 to 1g", s.flag, s.v)
		}
	}
	if o.LatIters < 1 || o.BWIters < 1 || o.Window < 1 || o.Warmup < 0 || o.Timeout < 0 {
		return errors.New("-I and --bw-iters must be 1 or more, -W 1 or more, -w and --timeout not negative")
	}
	return nil
}

// Slowdown is a test's delay on the link between ranks A and B.
type Slowdown struct {
	A, B  int
	Delay time.Duration
}

// PairResult is one pair's outcome.
type PairResult struct {
	A, B Endpoint
	Lat  Row // the ping-pong
	BW   Row // the bandwidth test
}

// AllPairs runs on every rank of c: in the rounds of a round-robin
// tournament among eps (the same list on every rank; ranks not in it
// only join the barriers), each pair runs the ping-pong and then the
// bandwidth test, the lower endpoint initiating; a barrier of c ends every
// round, so no endpoint is in two tests at once. Rank 0 gets every pair's
// result, in schedule order; the others nil.
func AllPairs(ctx context.Context, c *collectives.Comm, eps []Endpoint, o AllPairsOptions) ([]PairResult, error) {
	me := -1
	for i, e := range eps {
		if e.Rank == c.Rank() {
			me = i
		}
	}
	rounds := Rounds(len(eps))
	var mine []PairResult // pairs this rank initiated
	for r, round := range rounds {
		for _, p := range round {
			if p.A != me && p.B != me {
				continue
			}
			res, err := runPair(ctx, c, eps, p, me, o)
			if err != nil {
				return nil, fmt.Errorf("round %d of %d, %s <-> %s: %w", r+1, len(rounds), eps[p.A].Name, eps[p.B].Name, err)
			}
			if p.A == me {
				mine = append(mine, res)
			}
		}
		if err := c.Barrier(ctx); err != nil {
			return nil, fmt.Errorf("barrier after round %d of %d: %w", r+1, len(rounds), err)
		}
		if o.OnRound != nil {
			o.OnRound(r+1, len(rounds))
		}
	}
	return gatherPairs(ctx, c, eps, rounds, mine)
}

// runPair runs both tests of pair p on endpoint me.
func runPair(ctx context.Context, c *collectives.Comm, eps []Endpoint, p Pair, me int, o AllPairsOptions) (PairResult, error) {
	other := p.A
	if other == me {
		other = p.B
	}
	var link Link = CommLink{Comm: c, Peer: eps[other].Rank}
	if s := o.Slow; s.Delay > 0 && ((s.A == eps[me].Rank && s.B == eps[other].Rank) || (s.B == eps[me].Rank && s.A == eps[other].Rank)) {
		link = slowLink{link, s.Delay}
	}
	peer := Peer{Link: link, Initiator: me == p.A, Name: fmt.Sprintf("rank %d (%s)", eps[other].Rank, eps[other].Name),
		Alloc: c.Alloc, Free: c.Free, Timeout: o.Timeout}
	res := PairResult{A: eps[p.A], B: eps[p.B]}
	lat := Options{Test: PingPong, Sizes: []int{o.LatSize}, Iters: o.LatIters, Warmup: o.Warmup, Window: 1, Check: o.Check}
	bw := Options{Test: BW, Sizes: []int{o.BWSize}, Iters: o.BWIters, Warmup: o.Warmup, Window: o.Window, Check: o.Check}
	for _, t := range []struct {
		o   Options
		row *Row
	}{{lat, &res.Lat}, {bw, &res.BW}} {
		expect := t.o
		if !peer.Initiator {
			expect = Options{Test: t.o.Test}
		}
		out, err := Run(ctx, peer, expect)
		if err != nil {
			return res, err
		}
		if len(out.Rows) == 1 {
			*t.row = out.Rows[0]
		}
	}
	return res, nil
}

// gatherPairs sends every initiator's results to rank 0, which returns
// them in schedule order.
func gatherPairs(ctx context.Context, c *collectives.Comm, eps []Endpoint, rounds [][]Pair, mine []PairResult) ([]PairResult, error) {
	senders := map[int]int{} // rank: pairs it initiates
	for _, round := range rounds {
		for _, p := range round {
			senders[eps[p.A].Rank]++
		}
	}
	if c.Rank() != 0 {
		if senders[c.Rank()] == 0 {
			return nil, nil
		}
		b, err := json.Marshal(mine)
		if err != nil {
			return nil, fmt.Errorf("encode the pairs' results: %w", err)
		}
		if err := c.Send(ctx, 0, b); err != nil {
			return nil, fmt.Errorf("send the pairs' results to rank 0: %w", err)
		}
		return nil, nil
	}
	got := map[[2]int]PairResult{}
	for _, r := range mine {
		got[[2]int{r.A.Rank, r.B.Rank}] = r
	}
	for rank := 1; rank < c.Size(); rank++ {
		if senders[rank] == 0 {
			continue
		}
		buf := make([]byte, 4<<10+senders[rank]<<10) // a pair's JSON is under 1 KiB
		n, err := c.Recv(ctx, rank, buf)
		if err != nil {
			return nil, fmt.Errorf("receive rank %d's pairs: %w", rank, err)
		}
		var rs []PairResult
		if err := json.Unmarshal(buf[:n], &rs); err != nil {
			return nil, fmt.Errorf("rank %d's pairs: %w", rank, err)
		}
		for _, r := range rs {
			got[[2]int{r.A.Rank, r.B.Rank}] = r
		}
	}
	var out []PairResult
	for _, round := range rounds {
		for _, p := range round {
			r, ok := got[[2]int{eps[p.A].Rank, eps[p.B].Rank}]
			if !ok {
				return nil, fmt.Errorf("no result for %s <-> %s", eps[p.A].Name, eps[p.B].Name)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// slowLink delays every message it sends (a test's slowed link).
type slowLink struct {
	Link
	d time.Duration
}

func (l slowLink) Send(ctx context.Context, b []byte) error {
	t := time.NewTimer(l.d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return l.Link.Send(ctx, b)
}
