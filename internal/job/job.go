// Package job bootstraps one rank of a job: it connects to the PMI server,
// opens the rank's fabric endpoints and publishes their addresses as the
// rank's business card in the PMI KVS, waits for every rank at a barrier,
// reads the peers' cards, and returns a collectives.Comm over connections
// to every peer, each made on the pair's first message over the best
// transport they share (see lazy.go).
//
// A singleton (no launcher) gets a size-1 Comm and opens nothing.
package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/pmi"
)

// Fabric choices.
const (
	FabricAuto = "auto" // shm between ranks on one host, tcp otherwise
)

// DefaultTimeout bounds the whole bootstrap.
const DefaultTimeout = 2 * time.Minute

// Options configures a rank's bootstrap.
type Options struct {
	// Fabric is FabricAuto or the name of one transport in Transports,
	// used for every peer.
	Fabric string
	// Transports are the transports this build offers, preferred first;
	// FabricAuto takes the first one that reaches a peer.
	Transports fabric.Registry
	// Coll configures the collectives.
	Coll collectives.Options
	// Timeout bounds the bootstrap (PMI connect, barrier, business cards).
	Timeout time.Duration
	// ConnectTimeout bounds the set-up of each peer connection, made on
	// the pair's first message; 0 means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// StopDeadline, if positive, is how long a rank on this rank's host
	// may stay stopped before this rank ends the job (see stopwatch.go),
	// under a launcher without a watchdog of its own: not under hpcbench
	// launch (pmi.Client.OwnLauncher), whose watchdog does it.
	StopDeadline time.Duration
	// Stderr is where the stop watch says what it found; nil is
	// os.Stderr.
	Stderr io.Writer
	// OnAbort, if not nil, is called with the bootstrap's error just
	// before Start aborts the job through PMI: the launcher may end every
	// rank as soon as the abort reaches it, so what is to be said must be
	// said first.
	OnAbort func(err error)
	// Getenv replaces os.LookupEnv for PMI discovery (tests).
	Getenv func(string) (string, bool)
}

// Validate reports the first invalid option, naming its flag.
func (o *Options) Validate() error {
	if o.Fabric != FabricAuto {
		if _, err := o.Transports.Lookup(o.Fabric); err != nil {
			return fmt.Errorf("--fabric %q: must be auto or one of %s", o.Fabric, strings.Join(o.Transports.Names(), ", "))
		}
	}
	if o.Timeout < 0 {
		return fmt.Errorf("bootstrap timeout %v: must not be negative", o.Timeout)
	}
	if o.ConnectTimeout < 0 {
		return fmt.Errorf("connect timeout %v: must not be negative", o.ConnectTimeout)
	}
	return nil
}

// Job is one bootstrapped rank.
type Job struct {
	PMI  pmi.Bootstrap
	Comm *collectives.Comm
	// Hosts is the number of distinct hosts the ranks run on, and
	// HostRanks the most ranks any one of them runs.
	Hosts, HostRanks int
	// PeerTransport names the transport used to reach each rank ("" for
	// this rank itself).
	PeerTransport []string

	conns []fabric.Conn
	mesh  *mesh      // the lazy connections and the listeners
	stops *stopWatch // nil when this rank watches no peer
}

// Transports summarises PeerTransport: the distinct transports in use, in
// order of first use, joined with "+" ("shm", "shm+tcp"); "self" for a
// single rank.
func (j *Job) Transports() string {
	var seen []string
	for _, t := range j.PeerTransport {
		if t != "" && !slices.Contains(seen, t) {
			seen = append(seen, t)
		}
	}
	if len(seen) == 0 {
		return "self"
	}
	return strings.Join(seen, "+")
}

// cardKey is the KVS key of a rank's business card.
func cardKey(rank int) string { return "hpcbench-card-" + strconv.Itoa(rank) }

// Start bootstraps this rank. On failure after the PMI connection is up, it
// aborts the job through PMI so the other ranks do not wait for it.
func Start(ctx context.Context, o Options) (*Job, error) {
	if o.Fabric == "" {
		o.Fabric = FabricAuto
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	c, err := pmi.Join(ctx, pmi.ClientOptions{Getenv: o.Getenv})
	if err != nil {
		return nil, fmt.Errorf("job: connect to PMI: %w", err)
	}
	j := &Job{PMI: c, Hosts: 1, HostRanks: 1, PeerTransport: make([]string, c.Size())}
	if err := j.wire(ctx, o); err != nil {
		j.closeConns()
		err = fmt.Errorf("job: rank %d: %w", c.Rank(), err)
		if o.OnAbort != nil {
			o.OnAbort(err)
		}
		c.Abort(1, "bootstrap failed")
		c.Close()
		return nil, err
	}
	return j, nil
}

// card is what a rank publishes: its host identity, its process (for the
// stop watch) and one address per transport: "HOST pid:PID.START ADDR...".
type card struct {
	host  string
	proc  proc
	addrs []string
}

func (cd card) String() string {
	return strings.Join(append([]string{cd.host, cd.proc.String()}, cd.addrs...), " ")
}

func parseCard(s string) (card, error) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return card{}, fmt.Errorf("business card %q: want a host, a process and addresses", s)
	}
	p, err := parseProc(f[1])
	if err != nil {
		return card{}, fmt.Errorf("business card %q: %w", s, err)
	}
	return card{host: f[0], proc: p, addrs: f[2:]}, nil
}

func hostID() string {
	h, _ := os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		return h + "/" + strings.TrimSpace(string(b))
	}
	return h
}

func (j *Job) wire(ctx context.Context, o Options) error {
	rank, size := j.PMI.Rank(), j.PMI.Size()
	if size == 1 {
		comm, err := collectives.Self(o.Coll)
		j.Comm = comm
		return err
	}
	transports := o.Transports
	if o.Fabric != FabricAuto {
		t, _ := o.Transports.Lookup(o.Fabric)
		transports = fabric.Registry{t}
	}
	timeout := o.ConnectTimeout
	if timeout == 0 {
		timeout = DefaultConnectTimeout
	}
	// Accept from the start: a rank that has read the cards may dial one
	// still reading them (at 1024 ranks that takes a minute).
	j.mesh = newMesh(rank, size, timeout)
	own := card{host: hostID(), proc: selfProc()}
	transports, err := j.listen(ctx, rank, transports, o.Fabric == FabricAuto, &own, o.Stderr)
	if err != nil {
		return err
	}
	if err := j.PMI.PutBytes(ctx, cardKey(rank), []byte(own.String())); err != nil {
		return fmt.Errorf("publish business card: %w", err)
	}
	if err := j.PMI.Barrier(ctx); err != nil {
		return fmt.Errorf("barrier after publishing cards: %w", err)
	}
	// Every rank reads every card: N² gets in the job, pipelined when
	// hpcbench launch serves it (at 1,024 ranks, one get per round trip
	// took up to two minutes).
	keys := make([]pmi.Key, 0, size-1)
	for r := range size {
		if r != rank {
			keys = append(keys, pmi.Key{Rank: r, Name: cardKey(r)})
		}
	}
	raw, err := j.PMI.GetBytesFrom(ctx, keys, j.PMI.OwnLauncher())
	if err != nil {
		return fmt.Errorf("read business cards: %w", err)
	}
	cards := make([]card, size)
	hosts := map[string]int{}
	for r := range cards {
		if r == rank {
			cards[r] = own
		} else {
			b := raw[0]
			raw = raw[1:]
			if cards[r], err = parseCard(string(b)); err != nil {
				return fmt.Errorf("business card of rank %d: %w", r, err)
			}
		}
		hosts[cards[r].host]++
	}
	j.Hosts = len(hosts)
	for _, n := range hosts {
		j.HostRanks = max(j.HostRanks, n)
	}

	// Connections are made on first use (see lazy.go); the listeners
	// stay open for the job's life.
	local := 0
	for _, cd := range cards {
		if cd.host == own.host {
			local++
		}
	}
	hint := fabric.Hint{LocalRanks: local, HostCPUs: fabric.OnlineCPUs()}
	via := make([]int, size)     // transport index per peer
	addr := make([]string, size) // and the peer's address for it
	traits := make([]fabric.Traits, size)
	for p := range cards {
		if p == rank {
			continue
		}
		i, a, err := choose(transports, cards[p], p)
		if err != nil {
			return err
		}
		via[p], addr[p] = i, cards[p].addrs[a]
		if err := reachable(own, cards[p], p, addr[p], j.Hosts); err != nil {
			return err
		}
		j.PeerTransport[p] = transports[i].Name()
		traits[p] = fabric.Traits{EagerLimit: -1}
		if h, ok := transports[i].(fabric.HintedTransport); ok {
			traits[p] = h.Traits(hint)
		}
	}
	j.mesh.route(traits, func(ctx context.Context, p int) (fabric.Conn, error) {
		t := transports[via[p]]
		var c fabric.Conn
		var err error
		if h, ok := t.(fabric.HintedTransport); ok {
			c, err = h.DialHint(ctx, rank, addr[p], hint)
		} else {
			c, err = t.Dial(ctx, rank, addr[p])
		}
		if err != nil {
			return nil, fmt.Errorf("connect to rank %d over %s: %w", p, t.Name(), err)
		}
		return c, nil
	})
	j.conns = j.mesh.conns()
	if !j.PMI.OwnLauncher() {
		j.watchStops(cards, rank, o.StopDeadline, o.Stderr)
	}
	coll := o.Coll
	if coll.HostOf == nil && j.Hosts > 1 {
		// Across hosts a stalled wait names the hosts too.
		coll.HostOf = func(r int) string { return hostName(cards[r].host) }
	}
	if coll.Allocator == nil {
		coll.Allocator = allocator(transports, j.PeerTransport)
	}
	comm, err := collectives.New(rank, size, j.conns, coll)
	if err != nil {
		return err
	}
	j.Comm = comm
	return nil
}

// reachable refuses a peer on another host whose address for this rank is
// a loopback one: its host name resolves to loopback (as a laptop's or a
// container's does) and nothing named the interface between the hosts.
// Dialled, it would reach this host instead, or nothing.
func reachable(own, to card, peer int, addr string, hosts int) error {
	if to.host == own.host || !loopback(addr) {
		return nil
	}
	return fmt.Errorf("rank %d on host %s published %s, a loopback address, which this rank on host %s cannot reach: the job spans %d hosts; name the interface between them with %s (an interface or an address, as Hydra's -iface)",
		peer, hostName(to.host), addr, hostName(own.host), hosts, fabric.IfaceEnv)
}

// hostName is a card's host without its boot id.
func hostName(id string) string {
	name, _, _ := strings.Cut(id, "/")
	return name
}

// loopback reports whether a card's address ("tcp://127.0.0.1:4000",
// "verbs://[::1]:4000/mlx5_0:1") names a loopback IP.
func loopback(addr string) bool {
	_, rest, ok := strings.Cut(addr, "://")
	if !ok {
		return false
	}
	hostport, _, _ := strings.Cut(rest, "/")
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() || host == "localhost"
}

// allocator returns the first transport in use (by some peer) that hands
// out buffers of its own (fabric/shm), or nil.
func allocator(ts fabric.Registry, peerTransport []string) fabric.Allocator {
	for _, t := range ts {
		a, ok := t.(fabric.Allocator)
		if ok && slices.Contains(peerTransport, t.Name()) {
			return a
		}
	}
	return nil
}

// choose returns the index of the first transport, in this rank's order
// of preference, that reaches the peer whose card is to, and the index of
// the card's address for it (tcp anywhere, shm on one host, verbs where
// both have a device). Cards are matched by scheme, not by position, so
// ranks whose transports differ (a host without an RDMA device) still
// agree: both take the first transport they have in common.
func choose(ts fabric.Registry, to card, peer int) (int, int, error) {
	for i, t := range ts {
		for k, a := range to.addrs {
			if fabric.Scheme(a) == t.Name() && t.Reachable(a) {
				return i, k, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("no transport reaches rank %d (its addresses: %s)", peer, strings.Join(to.addrs, ", "))
}

// listen opens this rank's endpoint on each transport and adds its
// address to own. With auto, a transport that cannot listen (an RDMA
// device whose port is down) is left out, said on stderr, and the rank
// uses the others; the transports that listen are returned. Without it, or
// when none listens, the failure ends the bootstrap.
func (j *Job) listen(ctx context.Context, rank int, ts fabric.Registry, auto bool, own *card, stderr io.Writer) (fabric.Registry, error) {
	var up fabric.Registry
	var errs []error
	for _, t := range ts {
		ln, err := t.Listen(ctx, rank)
		if err != nil {
			errs = append(errs, fmt.Errorf("listen on %s: %w", t.Name(), err))
			continue
		}
		j.mesh.serve(ln, t.Name())
		own.addrs = append(own.addrs, ln.Addr())
		up = append(up, t)
	}
	if len(errs) == 0 {
		return up, nil
	}
	if !auto || len(up) == 0 {
		return nil, errors.Join(errs...)
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	for _, err := range errs {
		fmt.Fprintf(stderr, "rank %d: %v; using %s\n", rank, err, strings.Join(up.Names(), ", "))
	}
	return up, nil
}

func (j *Job) closeConns() {
	j.stops.stop()
	j.stops = nil
	if j.mesh != nil {
		_ = j.mesh.close()
	}
}

// RMA returns the connection to peer as a fabric.RMAConn, connecting it
// if it is not yet, or an error wrapping fabric.ErrNoRMA when its transport has
// no RMA. The connection stays the job's; its messages and the Comm's go
// on as before.
func (j *Job) RMA(ctx context.Context, peer int) (fabric.RMAConn, error) {
	if j.mesh == nil {
		return nil, fmt.Errorf("RMA to rank %d: a job of one rank has no peers", peer)
	}
	return j.mesh.rma(ctx, peer)
}

// Connected returns the peers this rank has connected to so far:
// connections are made on a pair's first message.
func (j *Job) Connected() []int {
	if j.mesh == nil {
		return nil
	}
	return j.mesh.connected()
}

// Close closes the peer connections and finalizes PMI.
func (j *Job) Close(ctx context.Context) error {
	j.closeConns()
	err := j.PMI.Finalize(ctx)
	if cerr := j.PMI.Close(); err == nil {
		err = cerr
	}
	return err
}
