// Package wireup is the benchmark of a job's bootstrap: every rank times
// connecting to its PMI server (init), putting a business card (put), the
// barrier that publishes the cards (barrier), fetching its peers' cards (get)
// and finalize. Rank 0 collects every rank's times and builds a
// report.Result of min/mean/max per phase.
//
// It runs as the ranks of any PMI-1 launcher: hpcbench launch, MPICH's
// mpiexec, srun --mpi=pmi2, or alone as a singleton.
package wireup

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/pmi"
)

// Patterns of the get phase.
const (
	PatternAll  = "all"  // every rank gets all N cards: N² gets in the job
	PatternRing = "ring" // every rank gets its successor's card
)

// Defaults for Options.
const (
	DefaultCardSize = 64
	MaxCardSize     = 1 << 20
	DefaultTimeout  = 5 * time.Minute
)

// Options configures a wireup run.
type Options struct {
	CardSize int           // bytes of each rank's business card, 1..MaxCardSize
	Pattern  string        // PatternAll or PatternRing
	Timeout  time.Duration // bound on every PMI wait and on collecting results
	// Pipeline lets the get phase send its requests 64 at a time
	// (pmi.Client.GetMany) when hpcbench's own launcher serves the job;
	// under other servers, and without it, one request waits for its
	// reply before the next, as MPICH's clients do.
	Pipeline bool
	Trace    io.Writer // if non-nil, this rank's PMI wire lines
	Getenv   func(string) (string, bool)
	// Host is this rank's host name, sent to rank 0 with its times so
	// that the result names every rank's host.
	Host string
	// Publish, if not empty, is the address rank 0 advertises for its
	// results before its host name (fabric.IfaceEnv's: the network
	// between the hosts, where the host name resolves to loopback).
	Publish string
	// OnAbort, if not nil, is called with this rank's error just before
	// Run aborts the job through PMI (see job.Options.OnAbort).
	OnAbort func(err error)
	// Phase, if not nil, is told after each phase (outside its timing):
	// its name, iteration 0, and the phases done out of all of them.
	Phase func(name string, iter int, done, total int64)
}

// Validate reports the first invalid option, naming its flag.
func (o *Options) Validate() error {
	if o.CardSize < 1 || o.CardSize > MaxCardSize {
		return fmt.Errorf("--card-size %d: must be in [1, %d]", o.CardSize, MaxCardSize)
	}
	if o.Pattern != PatternAll && o.Pattern != PatternRing {
		return fmt.Errorf("--pattern %q: must be %s or %s", o.Pattern, PatternRing, PatternAll)
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout %v: must be positive", o.Timeout)
	}
	return nil
}

// Phases in the order they run; Times holds seconds in this order.
var phaseNames = [...]string{"init", "put", "barrier", "get", "finalize"}

// Phases returns the names of the timed phases, in order.
func Phases() []string { return phaseNames[:] }

// Times are one rank's seconds per phase, in the order of Phases.
type Times [len(phaseNames)]float64

// Outcome is what one rank learns from a run. Only rank 0 has Ranks
// (every rank's Times, indexed by rank) and Hosts (every rank's
// Options.Host).
type Outcome struct {
	Rank, Size int
	Singleton  bool
	Gets       int      // gets this rank did
	Pipelined  bool     // the gets were pipelined (Options.Pipeline under hpcbench launch)
	Ranks      []Times  // rank 0 only
	Hosts      []string // rank 0 only
}

// phase tells o.Phase, if set, that phase i of Phases is done.
func (o *Options) phase(i int) {
	if o.Phase != nil {
		o.Phase(phaseNames[i], 0, int64(i+1), int64(len(phaseNames)))
	}
}

// card returns rank's business card: a deterministic pattern that names the
// rank and the job size, so a card fetched from the wrong key is detected.
func card(rank, size, n int) []byte {
	b := make([]byte, n)
	x := uint64(rank+1)*0x9E3779B97F4A7C15 ^ uint64(size)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	if n >= 4 {
		binary.BigEndian.PutUint32(b, uint32(rank))
	}
	return b
}

func cardKey(rank int) string { return fmt.Sprintf("wireup-card-%d", rank) }

// Run performs the benchmark as one rank.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	var t Times
	t0 := time.Now()
	c, err := pmi.Join(ctx, pmi.ClientOptions{Getenv: o.Getenv, Trace: o.Trace})
	if err != nil {
		return nil, fmt.Errorf("wireup: init: %w", err)
	}
	defer c.Close()
	abort := func(err error) error {
		if o.OnAbort != nil {
			o.OnAbort(err)
		}
		c.Abort(1, "wireup failed")
		return err
	}
	t1 := time.Now()
	t[0] = t1.Sub(t0).Seconds()
	o.phase(0)
	rank, size := c.Rank(), c.Size()

	// Rank 0 opens its results collector before the barrier so that its
	// address travels with the cards.
	var col *collector
	if rank == 0 && size > 1 {
		col, err = newCollector(size)
		if err != nil {
			return nil, abort(fmt.Errorf("wireup: %w", err))
		}
		defer col.close()
		if err := c.PutBytes(ctx, collectorKey, []byte(col.addr(o.Publish))); err != nil {
			return nil, abort(fmt.Errorf("wireup: publish collector address: %w", err))
		}
	}

	t1 = time.Now()
	if err := c.PutBytes(ctx, cardKey(rank), card(rank, size, o.CardSize)); err != nil {
		return nil, abort(fmt.Errorf("wireup: put: %w", err))
	}
	t2 := time.Now()
	t[1] = t2.Sub(t1).Seconds()
	o.phase(1)
	t2 = time.Now()
	if err := c.Barrier(ctx); err != nil {
		return nil, abort(fmt.Errorf("wireup: barrier: %w", err))
	}
	t3 := time.Now()
	t[2] = t3.Sub(t2).Seconds()
	o.phase(2)
	t3 = time.Now()
	gets, verify, err := getCards(ctx, c, rank, size, o)
	if err != nil {
		return nil, abort(fmt.Errorf("wireup: get: %w", err))
	}
	t4 := time.Now()
	t[3] = (t4.Sub(t3) - verify).Seconds()
	o.phase(3)
	var toRank0 net.Conn
	if rank != 0 {
		got, err := c.GetBytesFrom(ctx, []pmi.Key{{Rank: 0, Name: collectorKey}}, false)
		if err != nil {
			return nil, abort(fmt.Errorf("wireup: read collector address: %w", err))
		}
		colAddr := string(got[0])
		// Connect now, while PMI can still end the job: after finalize a
		// rank that cannot reach rank 0 could only exit, which a launcher
		// such as Hydra does not take as the job's failure, and rank 0
		// would wait out --timeout for its results.
		if toRank0, err = dialCollector(ctx, colAddr, o.Host); err != nil {
			return nil, abort(fmt.Errorf("wireup: rank %d on host %s cannot reach rank 0's results at %s (across hosts, name the interface between them with %s): %w",
				rank, o.Host, colAddr, fabric.IfaceEnv, err))
		}
		defer toRank0.Close()
	}
	t4 = time.Now()
	if err := c.Finalize(ctx); err != nil {
		return nil, fmt.Errorf("wireup: finalize: %w", err)
	}
	t[4] = time.Since(t4).Seconds()
	o.phase(4)

	out := &Outcome{Rank: rank, Size: size, Singleton: c.Singleton(), Gets: gets, Pipelined: pipelined(c, o) && gets > 1}
	switch {
	case size == 1:
		out.Ranks, out.Hosts = []Times{t}, []string{o.Host}
	case rank == 0:
		all, err := col.gather(ctx, record{times: t, host: o.Host})
		if err != nil {
			return nil, fmt.Errorf("wireup: collect results: %w", err)
		}
		out.Ranks, out.Hosts = make([]Times, len(all)), make([]string, len(all))
		for i, rec := range all {
			out.Ranks[i], out.Hosts[i] = rec.times, rec.host
		}
	default:
		if err := writeTimes(ctx, toRank0, rank, t, o.Host); err != nil {
			return nil, fmt.Errorf("wireup: send results to rank 0: %w", err)
		}
	}
	return out, nil
}

// pipelined reports whether the get phase pipelines its requests.
func pipelined(c pmi.Bootstrap, o Options) bool { return o.Pipeline && c.OwnLauncher() }

// getCards fetches and verifies the cards the pattern asks for. It returns
// the number of gets and the time spent verifying, which the caller takes
// out of the get phase: building each expected card and comparing it is not
// part of what the phase measures.
func getCards(ctx context.Context, c pmi.Bootstrap, rank, size int, o Options) (int, time.Duration, error) {
	peers := []int{(rank + 1) % size}
	if o.Pattern == PatternAll {
		peers = make([]int, size)
		for i := range peers {
			peers[i] = (rank + i) % size // start with self, spread the load
		}
	}
	keys := make([]pmi.Key, len(peers))
	for i, p := range peers {
		keys[i] = pmi.Key{Rank: p, Name: cardKey(p)}
	}
	cards, err := c.GetBytesFrom(ctx, keys, pipelined(c, o))
	if err != nil {
		return 0, 0, err
	}
	v0 := time.Now()
	for i, p := range peers {
		if want := card(p, size, o.CardSize); !bytes.Equal(cards[i], want) {
			return 0, 0, fmt.Errorf("card of rank %d is corrupt: got %d bytes, want %d bytes of its pattern", p, len(cards[i]), len(want))
		}
	}
	return len(peers), time.Since(v0), nil
}
