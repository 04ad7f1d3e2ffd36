package pmi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hpcbench/hpcbench/pmi/pmix"
)

// Client limits and timeouts.
const (
	// defaultDialTimeout bounds the TCP connect to PMI_PORT when
	// ClientOptions.DialTimeout is zero.
	defaultDialTimeout = 10 * time.Second
	// abortWriteTimeout bounds the write of the abort line, which may be
	// sent while another goroutine waits in a barrier.
	abortWriteTimeout = 5 * time.Second
	// maxKeyLenCap is MPICH's cap on keylen_max when the server's limits do
	// not fit one request line.
	maxKeyLenCap = 256
	// putOverhead is the slack MPICH reserves for "cmd=put kvsname= key=
	// value=\n" when it clamps vallen_max.
	putOverhead = 30
	// minValueLen is the smallest usable value length the client accepts;
	// anything less cannot carry "segments=N" or a hex segment.
	minValueLen = 16
)

// ClientOptions configures discovery.
type ClientOptions struct {
	// Getenv looks up an environment variable; it defaults to os.LookupEnv.
	Getenv func(string) (string, bool)
	// Trace, if non-nil, receives every wire line as "C: line\n" (client to
	// server) or "S: line\n" (server to client), the transcript format of
	// pmi/testdata/transcripts.
	Trace io.Writer
	// DialTimeout bounds the TCP connect to PMI_PORT; 10s when zero.
	DialTimeout time.Duration

	// openPMIx loads OpenPMIx for Join; pmix.Open when nil (tests set it).
	openPMIx func() (*pmix.Lib, error)
}

// Client is a PMI-1 client: one rank's connection to its process manager,
// or a singleton with an in-process key-value store when no process manager
// is present. A Client is safe for concurrent use; requests are serialized
// because PMI-1 allows one request in flight per connection.
//
// A request interrupted by its context, by a malformed reply or by an I/O
// error leaves the connection unusable (its reply may still arrive), so every
// later request fails with an error wrapping ErrClosed. Abort and Close
// still work, and Finalize still closes the connection.
type Client struct {
	// Fixed at Connect.
	rank, size int
	appNum     int // as sent by the server; Slurm sends -1
	kvs        string
	keyMax     int // longest key is keyMax-1 bytes (C buffers count the NUL)
	valMax     int // longest value, after MPICH's clamp
	subversion int // the server's pmi_subversion, 1 when it sent none
	local      *localKVS
	conn       net.Conn  // nil for a singleton
	phaseW     io.Writer // conn, through rawOr: what SendPhase writes to
	trace      *wireTrace

	// Closing; safe without mu so Close can interrupt a request.
	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error

	wmu sync.Mutex // serializes writes: requests and Abort

	// interrupt, made once, is what a request's context runs when it ends
	// (see watch); it sends on interrupted when done.
	interrupt   func()
	interrupted chan struct{}

	mu          sync.Mutex // one request in flight; guards the fields below
	r           *bufio.Reader
	req         []byte // the request line being sent, reused (see request)
	pairs       []Pair // the reply being parsed, reused: a Msg from recv is dead by the next request
	broken      error  // why the connection can no longer carry requests
	finalized   bool
	finalizeErr error

	own  bool   // hpcbench launch serves the job (OwnLauncher); fixed at Connect
	kind string // KindFD, KindPort or KindSingleton; fixed at Connect
}

// ownLauncher reports whether EnvLauncherKVS names kvs, the job's KVS.
func ownLauncher(getenv func(string) (string, bool), kvs string) bool {
	v, ok := getenv(EnvLauncherKVS)
	return ok && v == kvs
}

// Connect discovers the process manager and initializes PMI-1.
//
// Discovery follows MPICH: PMI_FD (an inherited, connected stream socket)
// wins; otherwise PMI_PORT (host:port over TCP; with PMI_ID the client first
// sends "cmd=initack pmiid=ID" and reads rank and size from the server's
// four-line answer); otherwise the client is a singleton: rank 0 of 1, an
// in-process key-value store, a no-op barrier and no sockets at all, unless
// the environment shows a launch of several processes that gives this one
// no PMI-1 server (ForeignLaunch: PMIx, Slurm without an MPI plugin, Open
// MPI, Flux), which Connect refuses with a *ForeignLaunchError. If
// PMI_FD or PMI_PORT is set but unusable, Connect fails rather than fall back
// to a singleton, because a misconfigured launch would otherwise run as N
// independent jobs. Outside port mode with PMI_ID, rank and size come from
// PMI_RANK and PMI_SIZE (default 0 and 1).
//
// On a connection Connect then sends init (accepting any PMI 1.x reply with
// x >= 1), get_maxes (clamping the value length as MPICH does), get_appnum
// and get_my_kvsname. ctx bounds the whole handshake.
func Connect(ctx context.Context, opts ClientOptions) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pmi: connect: %w", err)
	}
	lookup := opts.Getenv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	// An empty variable counts as unset: "PMI_FD=" is how a wrapper or a
	// test clears what a launcher above it set.
	getenv := func(k string) (string, bool) {
		v, ok := lookup(k)
		return v, ok && v != ""
	}
	var tr *wireTrace
	if opts.Trace != nil {
		tr = &wireTrace{w: opts.Trace}
	}

	if v, ok := getenv("PMI_FD"); ok {
		rank, size, err := envRankSize(getenv)
		if err != nil {
			return nil, err
		}
		conn, err := fdConn(v)
		if err != nil {
			return nil, err
		}
		c := newWireClient(conn, tr, rank, size)
		if err := c.handshake(ctx); err != nil {
			c.Close()
			return nil, err
		}
		c.own = ownLauncher(getenv, c.kvs)
		c.kind = KindFD
		return c, nil
	}

	if v, ok := getenv("PMI_PORT"); ok {
		id, hasID := getenv("PMI_ID")
		rank, size := 0, 1
		if !hasID {
			var err error
			if rank, size, err = envRankSize(getenv); err != nil {
				return nil, err
			}
		} else if err := ValidToken("PMI_ID", id); err != nil {
			return nil, err
		}
		conn, err := dialPort(ctx, v, opts.DialTimeout)
		if err != nil {
			return nil, err
		}
		c := newWireClient(conn, tr, rank, size)
		if hasID {
			err = c.initack(ctx, id)
		}
		if err == nil {
			err = c.handshake(ctx)
		}
		if err != nil {
			c.Close()
			return nil, err
		}
		c.own = ownLauncher(getenv, c.kvs)
		c.kind = KindPort
		return c, nil
	}

	if l, ok := ForeignLaunch(getenv); ok {
		return nil, &ForeignLaunchError{Launch: l}
	}
	return newSingleton(), nil
}

func newWireClient(conn net.Conn, tr *wireTrace, rank, size int) *Client {
	c := &Client{
		rank:        rank,
		size:        size,
		conn:        conn,
		phaseW:      rawOr(conn),
		trace:       tr,
		r:           bufio.NewReaderSize(conn, MaxLine),
		interrupted: make(chan struct{}, 1),
		pairs:       make([]Pair, 0, typicalPairs),
	}
	c.interrupt = func() {
		c.conn.SetDeadline(time.Unix(1, 0))
		c.interrupted <- struct{}{}
	}
	return c
}

// envRankSize reads PMI_RANK and PMI_SIZE, defaulting to 0 and 1 as MPICH
// does; a value that is set but not a valid number is an error.
func envRankSize(getenv func(string) (string, bool)) (rank, size int, err error) {
	rank, size = 0, 1
	if v, ok := getenv("PMI_RANK"); ok {
		if rank, err = strconv.Atoi(v); err != nil || rank < 0 {
			return 0, 0, fmt.Errorf("pmi: PMI_RANK=%q: not a non-negative integer", v)
		}
	}
	if v, ok := getenv("PMI_SIZE"); ok {
		if size, err = strconv.Atoi(v); err != nil || size < 1 {
			return 0, 0, fmt.Errorf("pmi: PMI_SIZE=%q: not a positive integer", v)
		}
	}
	if rank >= size {
		return 0, 0, fmt.Errorf("pmi: PMI_RANK=%d: must be below PMI_SIZE=%d", rank, size)
	}
	return rank, size, nil
}

// dialPort connects to PMI_PORT with TCP_NODELAY.
func dialPort(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("pmi: PMI_PORT=%q: not host:port: %w", addr, err)
	}
	if timeout <= 0 {
		timeout = defaultDialTimeout
	}
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("pmi: PMI_PORT=%s: connect failed: %w", addr, err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		if err := tc.SetNoDelay(true); err != nil {
			conn.Close()
			return nil, fmt.Errorf("pmi: PMI_PORT=%s: setting TCP_NODELAY: %w", addr, err)
		}
	}
	return conn, nil
}

// initack performs the port-mode prologue: "cmd=initack pmiid=ID", answered
// by cmd=initack and three cmd=set lines carrying size, rank and debug. The
// answer may arrive in one write; the line reader does not care.
func (c *Client) initack(ctx context.Context, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.exchange(ctx, "initack", c.request("initack", "pmiid", id), "initack"); err != nil {
		return err
	}
	defer c.unwatch(c.watch(ctx))
	var size, rank string
	for range 3 {
		m, err := c.recv(ctx, "initack", "set")
		if err != nil {
			c.broken = err
			return err
		}
		if v, ok := m.Get("size"); ok {
			size = v
		}
		if v, ok := m.Get("rank"); ok {
			rank = v
		}
	}
	n, err := atoiStrict(size)
	if err != nil || n < 1 {
		return fmt.Errorf("pmi: initack: server sent size %q: want a positive integer", size)
	}
	r, err := atoiStrict(rank)
	if err != nil || r < 0 || r >= n {
		return fmt.Errorf("pmi: initack: server sent rank %q: want an integer in [0, %d)", rank, n)
	}
	c.rank, c.size = r, n
	return nil
}

// handshake sends init, get_maxes, get_appnum and get_my_kvsname.
func (c *Client) handshake(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()

	m, err := c.call(ctx, "init", c.request("init", "pmi_version", "1", "pmi_subversion", "1"), "response_to_init")
	if err != nil {
		return err
	}
	c.subversion = 1
	v, hasV := m.Get("pmi_version")
	sv, hasSV := m.Get("pmi_subversion")
	if hasV || hasSV {
		ver, err1 := atoiStrict(v)
		sub, err2 := atoiStrict(sv)
		if err1 != nil || err2 != nil || ver != 1 || sub < 1 {
			return fmt.Errorf("pmi: init: server answered PMI version %q.%q: want 1.x with x >= 1", v, sv)
		}
		c.subversion = sub
	}

	m, err = c.call(ctx, "get_maxes", c.request("get_maxes"), "maxes")
	if err != nil {
		return err
	}
	var maxes [3]int
	for i, k := range []string{"kvsname_max", "keylen_max", "vallen_max"} {
		if maxes[i], err = intField(m, "get_maxes", k); err != nil {
			return err
		}
		if maxes[i] < 1 {
			return fmt.Errorf("pmi: get_maxes: server sent %s=%d: want a positive integer", k, maxes[i])
		}
	}
	c.keyMax, c.valMax = clampMaxes(maxes[0], maxes[1], maxes[2])
	if c.valMax < minValueLen {
		return fmt.Errorf("pmi: get_maxes: limits kvsname_max=%d keylen_max=%d vallen_max=%d leave %d bytes for a value in a %d-byte line: want at least %d",
			maxes[0], maxes[1], maxes[2], c.valMax, MaxLine, minValueLen)
	}

	m, err = c.call(ctx, "get_appnum", c.request("get_appnum"), "appnum")
	if err != nil {
		return err
	}
	if c.appNum, err = intField(m, "get_appnum", "appnum"); err != nil {
		return err
	}

	m, err = c.call(ctx, "get_my_kvsname", c.request("get_my_kvsname"), "my_kvsname")
	if err != nil {
		return err
	}
	kvs, ok := m.Get("kvsname")
	if !ok || kvs == "" {
		return fmt.Errorf("pmi: get_my_kvsname: reply %q has no kvsname", clip(m.String()))
	}
	c.kvs = kvs
	return nil
}

// clampMaxes applies MPICH's rule: a put line "cmd=put kvsname=K key=L
// value=V" must fit MaxLine, so keylen is capped at 256 and the value length
// becomes min(vallen_max, MaxLine - kvsname_max - keylen - 30). The result
// may be below minValueLen; the caller rejects that.
func clampMaxes(kvsnameMax, keylenMax, vallenMax int) (keyMax, valMax int) {
	keyMax = min(keylenMax, maxKeyLenCap)
	valMax = min(vallenMax, MaxLine-kvsnameMax-keyMax-putOverhead)
	return keyMax, valMax
}

func intField(m Msg, op, key string) (int, error) {
	v, ok := m.Get(key)
	if !ok {
		return 0, fmt.Errorf("pmi: %s: reply %q has no %s", op, clip(m.String()), key)
	}
	n, err := atoiStrict(v)
	if err != nil {
		return 0, fmt.Errorf("pmi: %s: reply field %s=%q: %w", op, key, clip(v), err)
	}
	return n, nil
}

// Rank returns this process's rank, 0-based.
func (c *Client) Rank() int { return c.rank }

// Size returns the number of ranks in the job.
func (c *Client) Size() int { return c.size }

// KVS returns the name of the job's key-value space, as get_my_kvsname
// answered it (or a local name for a singleton).
func (c *Client) KVS() string { return c.kvs }

// AppNum returns the application number: the index of this rank's
// executable in an MPMD launch. A negative value from the server (Slurm
// sends -1) is reported as 0.
func (c *Client) AppNum() int { return max(c.appNum, 0) }

// Kind says how the client found its server: KindFD, KindPort or
// KindSingleton.
func (c *Client) Kind() string { return c.kind }

// Singleton reports whether the client runs without a process manager.
func (c *Client) Singleton() bool { return c.local != nil }

// MaxValueLen returns the longest value Put accepts: the server's vallen_max
// clamped, as MPICH clamps it, so that any put line fits MaxLine.
func (c *Client) MaxValueLen() int { return c.valMax }

// UniverseSize asks the server for the universe size and returns it as
// sent. Flux and Slurm answer the job size; Hydra 4.0.2 answers -1 (unknown)
// unless mpiexec was given -usize. A singleton answers 1.
func (c *Client) UniverseSize(ctx context.Context) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.local != nil {
		if err := c.localCheck(ctx, "get_universe_size"); err != nil {
			return 0, err
		}
		return 1, nil
	}
	m, err := c.call(ctx, "get_universe_size", c.request("get_universe_size"), "universe_size")
	if err != nil {
		return 0, err
	}
	return intField(m, "get_universe_size", "size")
}

// Put stores key=val in the job's key-value space. Other ranks may read it
// after the next Barrier. The key must be non-empty, shorter than the
// server's keylen_max and free of whitespace, NUL and '='; the value must be
// at most MaxValueLen bytes and free of whitespace and NUL. Nothing is sent
// when validation fails.
func (c *Client) Put(ctx context.Context, key, val string) error {
	if err := c.checkKey("put", key); err != nil {
		return err
	}
	if err := c.checkValue(key, val); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.local != nil {
		if err := c.localCheck(ctx, "put"); err != nil {
			return err
		}
		c.local.put(key, val)
		return nil
	}
	_, err := c.call(ctx, "put", c.request("put", "kvsname", c.kvs, "key", key, "value", val), "put_result")
	return err
}

// Get reads key from the job's key-value space. PMI-1 get does not wait for
// the key: call it after a Barrier that follows the Put. A missing key (any
// non-zero rc: Hydra -1, Slurm 1, Flux 4) gives an error that matches
// ErrNoKey with errors.Is and *Error with errors.As. Extra tokens after
// value= (Hydra 4.2's found=TRUE) are ignored.
func (c *Client) Get(ctx context.Context, key string) (string, error) {
	if err := c.checkKey("get", key); err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.local != nil {
		if err := c.localCheck(ctx, "get"); err != nil {
			return "", err
		}
		v, ok := c.local.get(key)
		if !ok {
			return "", &noKeyError{key: key}
		}
		return v, nil
	}
	m, err := c.exchange(ctx, "get", c.request("get", "kvsname", c.kvs, "key", key), "get_result")
	if err != nil {
		return "", err
	}
	if err := rcError("get", m); err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			return "", &noKeyError{key: key, peer: pe}
		}
		return "", err
	}
	v, ok := m.Get("value")
	if !ok {
		return "", fmt.Errorf("pmi: get %q: reply %q has rc=0 but no value", key, clip(m.String()))
	}
	return v, nil
}

// Barrier waits until every rank of the job has entered the barrier; it is
// also the fence that makes earlier puts visible to every rank. A singleton
// returns at once.
func (c *Client) Barrier(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.local != nil {
		return c.localCheck(ctx, "barrier_in")
	}
	_, err := c.call(ctx, "barrier_in", c.request("barrier_in"), "barrier_out")
	return err
}

// Abort asks the process manager to kill the whole job with exit status
// code. It sends "cmd=abort exitcode=N" and returns without waiting for an
// answer (there is none); the caller should then exit with code itself. msg
// is for the caller's own diagnostics: PMI-1 servers disagree on a field for
// it, so it is not sent. Abort does not wait for a request in flight in
// another goroutine (such as a Barrier); a singleton sends nothing.
func (c *Client) Abort(code int, msg string) error {
	if c.local != nil {
		return nil
	}
	if c.closed.Load() {
		return &closedError{op: "abort", why: "client is closed"}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	line := Format("abort", "exitcode", strconv.Itoa(code))
	if err := c.conn.SetWriteDeadline(time.Now().Add(abortWriteTimeout)); err != nil {
		return wireError("abort", "setting write deadline", err)
	}
	c.trace.line("C: ", line)
	if _, err := io.WriteString(c.conn, line); err != nil {
		return wireError("abort", "sending", err)
	}
	return nil
}

// SendPhase reports to the server that this rank entered phase name,
// iteration iter, as "cmd=hpcbench_phase name=NAME iter=I" (NAME
// path-escaped, clipped to 200 bytes) with no reply. Only hpcbench's own
// launcher understands it: any other server fails the job on an unknown
// command, so the caller sends it only when that launcher started the job
// (see Client.KVS). It is safe to call while another goroutine's request is
// in flight (the line goes whole, between that request's lines), and does
// nothing for a singleton or once the client is closed.
func (c *Client) SendPhase(name string, iter int) error {
	return c.sendPhase(phaseLine(name, iter, -1, 0))
}

// SendProgress is SendPhase with how much of the phase is done out of its
// total (bytes or items; total 0 when not known), as " done=D total=T"
// after the iteration, for the launcher's progress bar. The caller bounds
// how often it sends one: every line wakes the launcher.
func (c *Client) SendProgress(name string, iter int, done, total int64) error {
	return c.sendPhase(phaseLine(name, iter, max(done, 0), max(total, 0)))
}

// phaseLine formats a phase report, with "done" and "total" when done is
// not negative.
func phaseLine(name string, iter int, done, total int64) string {
	name = url.PathEscape(name)
	if len(name) > maxPhaseName {
		name = name[:maxPhaseName]
	}
	if done < 0 {
		return Format(PhaseCommand, "name", name, "iter", strconv.Itoa(iter))
	}
	return Format(PhaseCommand, "name", name, "iter", strconv.Itoa(iter),
		"done", strconv.FormatInt(done, 10), "total", strconv.FormatInt(total, 10))
}

func (c *Client) sendPhase(line string) error {
	if c.local != nil || c.closed.Load() {
		return nil
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.conn.SetWriteDeadline(time.Now().Add(abortWriteTimeout)); err != nil {
		return wireError(PhaseCommand, "setting write deadline", err)
	}
	c.trace.line("C: ", line)
	if _, err := io.WriteString(c.phaseW, line); err != nil {
		return wireError(PhaseCommand, "sending", err)
	}
	return nil
}

// maxPhaseName bounds the escaped name of a phase report, well inside a
// wire line.
const maxPhaseName = 200

// Finalize tells the server this rank is done (finalize, then wait for
// finalize_ack) and closes the connection. Calling it again returns the
// first call's result without sending anything.
func (c *Client) Finalize(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return c.finalizeErr
	}
	c.finalized = true
	if c.local != nil {
		c.finalizeErr = c.localCheck(ctx, "finalize")
		c.Close()
		return c.finalizeErr
	}
	_, c.finalizeErr = c.call(ctx, "finalize", c.request("finalize"), "finalize_ack")
	if err := c.Close(); err != nil && c.finalizeErr == nil {
		c.finalizeErr = err
	}
	return c.finalizeErr
}

// Close closes the connection without finalizing; the server treats that
// as the rank's death. It unblocks a request waiting in another goroutine,
// which then fails with an error wrapping ErrClosed. Calling it again
// returns the first call's result.
func (c *Client) Close() error {
	c.closed.Store(true)
	c.closeOnce.Do(func() {
		if c.conn != nil {
			if err := c.conn.Close(); err != nil {
				c.closeErr = fmt.Errorf("pmi: close: %w", err)
			}
		}
	})
	return c.closeErr
}

// checkKey validates a key before anything is sent.
func (c *Client) checkKey(op, key string) error {
	switch {
	case key == "":
		return fmt.Errorf("pmi: %s: empty key", op)
	case len(key) >= c.keyMax:
		return fmt.Errorf("pmi: %s %q: key is %d bytes: the server allows at most %d (keylen_max %d counts the NUL)",
			op, clip(key), len(key), c.keyMax-1, c.keyMax)
	}
	if err := ValidToken("key", key); err != nil {
		return err
	}
	for i := 0; i < len(key); i++ {
		if key[i] == '=' || key[i] == 0 {
			return fmt.Errorf("pmi: %s %q: key contains %q at byte %d, which servers cannot parse", op, clip(key), key[i], i)
		}
	}
	return nil
}

// checkValue validates a put value before anything is sent.
func (c *Client) checkValue(key, val string) error {
	if len(val) > c.valMax {
		return fmt.Errorf("pmi: put %q: value is %d bytes: the server allows at most %d (MaxValueLen)", clip(key), len(val), c.valMax)
	}
	if err := ValidToken("value", val); err != nil {
		return err
	}
	for i := 0; i < len(val); i++ {
		if val[i] == 0 {
			return fmt.Errorf("pmi: put %q: value contains NUL at byte %d", clip(key), i)
		}
	}
	return nil
}

// request formats a request line into c.req, which stays valid until the
// next request. c.mu must be held.
func (c *Client) request(cmd string, kv ...string) []byte {
	c.req = appendFormat(c.req[:0], cmd, kv...)
	return c.req
}

// call runs one request/reply exchange and turns a non-zero rc into *Error.
// c.mu must be held.
func (c *Client) call(ctx context.Context, op string, req []byte, want string) (Msg, error) {
	m, err := c.exchange(ctx, op, req, want)
	if err != nil {
		return Msg{}, err
	}
	return m, rcError(op, m)
}

// rcError returns *Error when m carries a non-zero rc.
func rcError(op string, m Msg) error {
	rc, err := m.RC()
	if err != nil {
		return err
	}
	if rc != 0 {
		msg, _ := m.Get("msg")
		return &Error{Cmd: op, Code: rc, Msg: msg}
	}
	return nil
}

// exchange sends req and reads one reply whose cmd must be want. A failure
// after the request was (perhaps partly) sent marks the connection broken:
// its reply could still arrive and be taken for the next request's. c.mu
// must be held. The reply's Pairs are reused by the next exchange.
func (c *Client) exchange(ctx context.Context, op string, req []byte, want string) (Msg, error) {
	if c.closed.Load() {
		return Msg{}, &closedError{op: op, why: "client is closed"}
	}
	if c.broken != nil {
		return Msg{}, &closedError{op: op, why: "connection unusable after an earlier failure (" + c.broken.Error() + ")"}
	}
	if err := ctx.Err(); err != nil {
		return Msg{}, fmt.Errorf("pmi: %s: %w", op, err)
	}
	if len(req) > MaxLine {
		return Msg{}, fmt.Errorf("pmi: %s: request line of %d bytes exceeds the %d-byte limit", op, len(req), MaxLine)
	}
	defer c.unwatch(c.watch(ctx))
	if sent, err := c.send(ctx, op, req); err != nil {
		if sent {
			c.broken = err
		}
		return Msg{}, err
	}
	m, err := c.recv(ctx, op, want)
	if err != nil {
		c.broken = err
	}
	return m, err
}

// watch makes blocking I/O on the connection honour ctx: the read deadline
// becomes ctx's deadline, and cancellation moves both deadlines to the past
// (c.interrupt). Pass what it returns to unwatch when the I/O is done.
func (c *Client) watch(ctx context.Context) (stop func() bool) {
	dl, _ := ctx.Deadline()
	c.conn.SetReadDeadline(dl) // an error here resurfaces on the read
	if ctx.Done() == nil {
		return nil
	}
	return context.AfterFunc(ctx, c.interrupt)
}

// unwatch ends a watch. It waits for a cancellation already under way, so
// that cannot touch a later request's deadlines.
func (c *Client) unwatch(stop func() bool) {
	if stop != nil && !stop() {
		<-c.interrupted
	}
}

// send writes one request line. sent reports whether any of it may have
// reached the peer.
func (c *Client) send(ctx context.Context, op string, line []byte) (sent bool, err error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	dl, _ := ctx.Deadline()
	if err := c.conn.SetWriteDeadline(dl); err != nil {
		return false, wireError(op, "setting write deadline", err)
	}
	if c.trace != nil {
		c.trace.line("C: ", string(line))
	}
	n, err := c.conn.Write(line)
	if err != nil {
		return n > 0, ctxError(ctx, op, "sending request", err)
	}
	return true, nil
}

// recv reads one reply line, parses it and checks its cmd.
func (c *Client) recv(ctx context.Context, op, want string) (Msg, error) {
	b, err := c.r.ReadSlice('\n')
	if err != nil {
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return Msg{}, &SyntaxError{Line: clip(string(b)), Reason: fmt.Sprintf("reply to %s exceeds the %d-byte line limit", op, MaxLine)}
		case len(b) > 0 && errors.Is(err, io.EOF):
			return Msg{}, &closedError{op: op, why: fmt.Sprintf("server closed the connection in the middle of a reply line (%q)", clip(string(b))), err: err}
		default:
			return Msg{}, ctxError(ctx, op, "waiting for reply", err)
		}
	}
	line := string(b[:len(b)-1])
	c.trace.line("S: ", line)
	m, err := parseLine(line, c.pairs)
	if err != nil {
		return Msg{}, err
	}
	c.pairs = m.Pairs[:0] // keep any growth for the next reply
	if m.Cmd != want {
		return Msg{}, fmt.Errorf("pmi: %s: unexpected reply %q: want cmd=%s", op, clip(line), want)
	}
	return m, nil
}

// ctxError names an I/O failure: the context's error when the deadline or
// cancellation caused it, ErrClosed when the peer is gone.
func ctxError(ctx context.Context, op, doing string, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("pmi: %s: %s: %w", op, doing, cerr)
		}
		if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
			return fmt.Errorf("pmi: %s: %s: %w", op, doing, context.DeadlineExceeded)
		}
	}
	return wireError(op, doing, err)
}

// wireError wraps an I/O error, mapping a vanished peer to ErrClosed.
func wireError(op, doing string, err error) error {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &closedError{op: op, why: doing + ": server closed the connection", err: err}
	case errors.Is(err, net.ErrClosed):
		return &closedError{op: op, why: doing + ": client is closed", err: err}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return &closedError{op: op, why: doing + ": connection lost", err: err}
	}
	return fmt.Errorf("pmi: %s: %s: %w", op, doing, err)
}

// closedError reports that the connection can no longer be used; it matches
// ErrClosed (and the underlying error, if any) with errors.Is.
type closedError struct {
	op  string
	why string
	err error
}

func (e *closedError) Error() string {
	if e.err != nil && !errors.Is(e.err, io.EOF) && !errors.Is(e.err, net.ErrClosed) {
		return "pmi: " + e.op + ": " + e.why + ": " + e.err.Error()
	}
	return "pmi: " + e.op + ": " + e.why
}

func (e *closedError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrClosed}
	}
	return []error{ErrClosed, e.err}
}

// noKeyError is a get of a key the store does not hold; it matches ErrNoKey
// and, when the server answered, the server's *Error.
type noKeyError struct {
	key  string
	peer *Error // nil for a singleton
}

func (e *noKeyError) Error() string {
	switch {
	case e.peer == nil:
		return fmt.Sprintf("pmi: get %q: key not found", e.key)
	case e.peer.Msg != "":
		return fmt.Sprintf("pmi: get %q: key not found: server answered rc=%d %s", e.key, e.peer.Code, e.peer.Msg)
	}
	return fmt.Sprintf("pmi: get %q: key not found: server answered rc=%d", e.key, e.peer.Code)
}

func (e *noKeyError) Unwrap() []error {
	if e.peer == nil {
		return []error{ErrNoKey}
	}
	return []error{ErrNoKey, e.peer}
}

// wireTrace writes transcript lines; a nil *wireTrace writes nothing.
type wireTrace struct {
	mu sync.Mutex
	w  io.Writer
}

// line writes prefix+line with exactly one trailing newline. Trace write
// errors are ignored: tracing must not change the protocol's outcome.
func (t *wireTrace) line(prefix, line string) {
	if t == nil {
		return
	}
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// Pipelined requests (GetMany) go as one write of several lines.
	for l := range strings.SplitSeq(line, "\n") {
		io.WriteString(t.w, prefix+l+"\n")
	}
}
