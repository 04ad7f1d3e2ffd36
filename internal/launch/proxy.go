package launch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/internal/version"
	"github.com/hpcbench/hpcbench/pmi"
)

// The proxy is "hpcbench __proxy" on a host of a job across hosts, started
// by the launcher's remote shell. It reads its line on stdin (see
// control_auth.go), connects to the launcher's control port, proves the
// job's secret and gets its part of the job, then does for its host's
// ranks what the launcher does on one host, with the same pieces: the
// spawner forks them with PMI_FD, a pmi.Server serves them (get from its
// KVS, which holds the whole job's puts after each barrier; a barrier goes
// upstream once its ranks are all in), the forwarder passes their output
// on. What the launcher decides (fail-fast, the watchdog, signals) stays
// with the launcher: the proxy reports its ranks' events and notes, and
// sends the signals it is told to. A proxy that loses the launcher kills
// its ranks and exits.

// proxyTimeouts bound the proxy's start: its stdin line and its dial.
const (
	stdinLineTimeout = 30 * time.Second
	dialTimeout      = 10 * time.Second
)

// ErrRefused is ServeProxy's error when the launcher refused the proxy
// (another hpcbench build): the launcher has said why, naming the host.
var ErrRefused = errors.New("the launcher refused this proxy")

// ServeProxy runs the proxy; self is this executable, which the spawner
// runs and which a command named "hpcbench" means.
func ServeProxy(ctx context.Context, self string) error {
	line, err := readStdinLine(0, stdinLineTimeout)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	tk, err := parseProxyLine(line)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	c, err := net.DialTimeout("tcp", tk.addr, dialTimeout)
	if err != nil {
		return fmt.Errorf("proxy: connect to the launcher: %w", err)
	}
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	r := bufio.NewReaderSize(c, 64<<10)
	job, err := proxyHandshake(c, r, tk, version.String())
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	p := &proxy{job: job, up: &upstream{c: c}, r: r, quit: make(chan struct{})}
	return p.run(ctx, self)
}

// readStdinLine reads one line from fd, a byte at a time so that nothing
// after it is taken from what rank 0 reads next, within timeout.
func readStdinLine(fd int, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	var b []byte
	one := make([]byte, 1)
	for len(b) < maxProxyLine {
		left := time.Until(deadline)
		if left <= 0 {
			return "", fmt.Errorf("no line from the launcher on stdin within %v", timeout)
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(pfd, int(left.Milliseconds())+1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return "", fmt.Errorf("stdin: %w", err)
		}
		if pfd[0].Revents == 0 {
			continue
		}
		n, err := unix.Read(fd, one)
		switch {
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case err != nil:
			return "", fmt.Errorf("stdin: %w", err)
		case n == 0:
			return "", errors.New("stdin ended before the launcher's line: this command is started by hpcbench launch")
		case one[0] == '\n':
			return string(b), nil
		}
		b = append(b, one[0])
	}
	return "", fmt.Errorf("stdin's first line exceeds %d bytes: this command is started by hpcbench launch", maxProxyLine)
}

// proxyHandshake answers the launcher's hello on c (read through r) with
// the proxy's proof, and returns its part of the job once the launcher
// has proved the secret too.
func proxyHandshake(c net.Conn, r *bufio.Reader, tk proxyTicket, ver string) (*proxyJob, error) {
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	defer c.SetDeadline(time.Time{})
	typ, body, _, err := readFrameMax(r, nil, maxHandshakeFrame)
	if err != nil {
		return nil, fmt.Errorf("read the launcher's hello: %w", err)
	}
	if typ != ctlHello {
		return nil, fmt.Errorf("the launcher opened with a frame of type %d, not hello", typ)
	}
	h, err := decodeHello(body)
	if err != nil {
		return nil, err
	}
	if h.protocol != ctlProtocol {
		return nil, fmt.Errorf("the launcher speaks control protocol %d, this proxy %d", h.protocol, ctlProtocol)
	}
	nonce, err := newSecret()
	if err != nil {
		return nil, err
	}
	a := auth{index: tk.index, version: ver, nonce: string(nonce)}
	a.mac = proxyMAC(tk.secret, h.nonce, a.nonce, a.index, a.version)
	if _, err := c.Write(a.encode()); err != nil {
		return nil, fmt.Errorf("send the proof of the job's secret: %w", err)
	}
	typ, body, _, err = readFrame(r, nil)
	if err != nil {
		return nil, fmt.Errorf("the launcher refused this proxy (%v)", err)
	}
	if typ == ctlRefuse {
		d := fields{b: body}
		return nil, fmt.Errorf("%w: %s", ErrRefused, d.str())
	}
	if typ != ctlJob {
		return nil, fmt.Errorf("the launcher sent a frame of type %d, not the job", typ)
	}
	job, err := decodeJob(body)
	if err != nil {
		return nil, err
	}
	if !sameMAC(job.mac, launcherMAC(tk.secret, h.nonce, a.nonce, a.index)) {
		return nil, errors.New("the launcher did not prove the job's secret")
	}
	return job, nil
}

// upstream writes frames to the launcher, one at a time.
type upstream struct {
	mu  sync.Mutex
	c   net.Conn
	err error // the first write that failed; later ones are dropped
}

func (u *upstream) send(f []byte) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.err != nil {
		return u.err
	}
	u.c.SetWriteDeadline(time.Now().Add(ctlWriteTimeout))
	if _, err := u.c.Write(f); err != nil {
		u.err = err
		u.c.Close() // the reader then sees the launcher lost
	}
	return u.err
}

// outputTo is the forwarder's writer for one stream: each write (whole
// lines of one rank, tagged) goes up as a ctlOutput frame.
type outputTo struct {
	up     *upstream
	stream int
}

func (o outputTo) Write(b []byte) (int, error) {
	o.up.send(encodeOutput(o.stream, b))
	return len(b), nil
}

// proxy is one host's proxy, owned by run's goroutine.
type proxy struct {
	job *proxyJob
	up  *upstream
	r   *bufio.Reader

	pids   []int  // by slot (index in job.ranks)
	exited []bool // by slot
	sent   syscall.Signal
	quit   chan struct{} // closed when run's loop no longer takes downMsgs
}

// downMsg is what the reader passes to run's loop: a signal to send, the
// end of the job, or the loss of the launcher.
type downMsg struct {
	sig  syscall.Signal
	all  bool
	end  bool
	lost error
}

// run starts the host's ranks and serves them until they have all exited.
func (p *proxy) run(ctx context.Context, self string) error {
	j := p.job
	k := len(j.ranks)
	p.pids, p.exited = make([]int, k), make([]bool, k)
	slotOf := make(map[int]int, k)
	for i, r := range j.ranks {
		slotOf[r] = i
	}
	path := self
	if j.command[0] != "hpcbench" {
		var err error
		if path, err = exec.LookPath(j.command[0]); err != nil {
			err = fmt.Errorf("command %q on host %s: %w", j.command[0], j.host, unwrapExecErr(err))
			p.startFailed(0, err)
			return p.end(nil)
		}
	}
	base := proxyEnv(j.env)
	base = append(base, crowdVars(j.env, k, fabric.OnlineCPUs())...)
	events := make(chan procEvent, 2*k+1+stopRoom)
	sp, err := startSpawnerHere(path, j.command, j.dir, base, events)
	if err != nil {
		return fmt.Errorf("proxy on host %s: %w", j.host, err)
	}
	growFDTable(launcherFDs(k, j.traceDir != ""))
	fwd, err := newForwarder(k, &lineWriter{w: outputTo{p.up, 0}}, &lineWriter{w: outputTo{p.up, 1}}, j.tag)
	if err != nil {
		sp.close()
		return fmt.Errorf("proxy on host %s: %w", j.host, err)
	}
	notes := &noteBox{wake: make(chan struct{}, 1)}
	var seq int
	srv, err := pmi.NewServer(pmi.ServerConfig{
		Engine:   pmi.EngineConfig{Size: k, KVSName: j.kvs, ProcessMapping: j.mapping, UniverseSize: j.size, Ranks: j.ranks},
		TraceDir: j.traceDir,
		Notify:   notes.add,
		Upstream: func(puts []pmi.Pair) {
			seq++ // barriers follow one another: one call at a time
			p.up.send(encodePuts(ctlBarrierIn, seq, puts))
		},
	})
	if err != nil {
		sp.close()
		fwd.finish(0)
		return fmt.Errorf("proxy on host %s: start PMI server: %w", j.host, err)
	}
	srvCtx, stopSrv := context.WithCancel(context.Background())
	srvDone := make(chan struct{})
	go func() { srv.Run(srvCtx); close(srvDone) }()
	down := make(chan downMsg, 16)
	readerDone := make(chan struct{})
	go func() { p.read(srv, down); close(readerDone) }()

	var doms [][]int
	if j.bind != string(BindNone) && j.bind != "" {
		if cpus, err := allowedTopo(); err == nil && len(cpus) > 0 {
			doms = domains(Binding(j.bind), cpus)
		}
	}
	pending := 0
	for slot, r := range j.ranks {
		cpus := ""
		if len(doms) > 0 {
			cpus = formatCPUs(doms[slot%len(doms)])
		}
		in := -1
		if r == 0 {
			in = 0 // the proxy's stdin, after its line: the launcher's
		}
		started, err := startRank(sp, srv, fwd, slot, r, rankVars(r, j.size, slot, k, ""), cpus, in)
		srv.CloseClientFile(slot)
		if started {
			pending++
		}
		if err != nil {
			if !started {
				p.startFailed(slot, err)
			}
			break
		}
	}
	unix.Close(0)

	beat := time.NewTicker(beatInterval)
	defer beat.Stop()
	beatFrame := emptyFrame(ctlBeat)
	srvFailed := srv.Failed()
	var lost error
	var batch []procEvent
	for pending > 0 && lost == nil {
		select {
		case ev := <-events:
			batch = append(batch[:0], ev)
			for drained := false; !drained; {
				select {
				case ev := <-events:
					batch = append(batch, ev)
				default:
					drained = true
				}
			}
			for _, ev := range batch {
				switch ev.kind {
				case evSpawnerDied:
					lost = fmt.Errorf("the process spawner died: %v", ev.err)
				case evStarted:
					p.pids[slotOf[ev.rank]] = ev.pid
					if p.sent != 0 {
						syscall.Kill(-ev.pid, p.sent)
					}
				case evExited, evStartFailed:
					p.exited[slotOf[ev.rank]] = true
					pending--
				}
			}
			p.up.send(encodeEvents(batch))
		case <-notes.wake:
			if ns := notes.take(nil); len(ns) > 0 {
				p.up.send(encodeNotes(ns))
			}
		case <-srvFailed:
			srvFailed = nil
			var re *pmi.RankError
			if errors.As(srv.Err(), &re) {
				p.up.send(encodeFail(re))
			}
		case m := <-down:
			switch {
			case m.lost != nil:
				lost = m.lost
			case m.sig != 0:
				p.signal(m.sig, m.all)
			}
		case <-beat.C:
			p.up.send(beatFrame)
		case <-ctx.Done():
			lost = fmt.Errorf("proxy on host %s: %w", j.host, context.Cause(ctx))
		}
	}
	close(p.quit)
	if lost != nil {
		p.signal(syscall.SIGKILL, true)
	}
	sp.close()
	select {
	case <-srvDone:
	case <-time.After(time.Second):
	}
	if srvFailed != nil {
		var re *pmi.RankError
		if errors.As(srv.Err(), &re) {
			p.up.send(encodeFail(re))
		}
	}
	stopSrv()
	<-srvDone
	fwd.finish(outputGrace)
	if ns := notes.take(nil); len(ns) > 0 {
		p.up.send(encodeNotes(ns))
	}
	if lost != nil {
		p.up.c.Close()
		<-readerDone
		return fmt.Errorf("proxy on host %s: %w", j.host, lost)
	}
	return p.end(readerDone)
}

// end tells the launcher this host is done and waits, within
// proxyEndGrace, for its ctlEnd (the reader returns), then closes.
func (p *proxy) end(readerDone <-chan struct{}) error {
	p.up.send(emptyFrame(ctlDone))
	if readerDone != nil {
		select {
		case <-readerDone:
		case <-time.After(proxyEndGrace):
		}
	}
	p.up.c.Close()
	if readerDone != nil {
		<-readerDone
	}
	return nil
}

// startFailed reports the ranks from slot on as not started: the launcher
// counts on an event for each.
func (p *proxy) startFailed(slot int, err error) {
	evs := make([]procEvent, 0, len(p.job.ranks)-slot)
	for i := slot; i < len(p.job.ranks); i++ {
		e := err
		if i > slot {
			e = errors.New("not started: an earlier rank of its host failed to start")
		}
		evs = append(evs, procEvent{kind: evStartFailed, rank: p.job.ranks[i], err: e})
	}
	p.up.send(encodeEvents(evs))
}

// signal sends sig to the host's live ranks' groups, or with all to every
// rank's, and to those reported started later.
func (p *proxy) signal(sig syscall.Signal, all bool) {
	if sig != syscall.SIGCONT {
		p.sent = sig
	}
	for i, pid := range p.pids {
		if pid > 0 && (all || !p.exited[i]) {
			syscall.Kill(-pid, sig)
		}
	}
}

// read takes the launcher's frames until the connection ends: barriers
// complete here, signals and the end go to run's loop.
func (p *proxy) read(srv *pmi.Server, down chan<- downMsg) {
	var buf []byte
	for {
		p.up.c.SetReadDeadline(time.Now().Add(beatTimeout))
		typ, body, b, err := readFrame(p.r, buf)
		buf = b
		if err != nil {
			p.tell(down, downMsg{lost: fmt.Errorf("launcher lost: %s", lossCause(err))})
			return
		}
		switch typ {
		case ctlBeat:
		case ctlEnd:
			return
		case ctlBarrierOut:
			_, puts, err := decodePuts(body)
			if err != nil {
				p.tell(down, downMsg{lost: err})
				return
			}
			srv.CompleteBarrier(puts)
		case ctlSignal:
			sig, all, err := decodeSignal(body)
			if err != nil {
				p.tell(down, downMsg{lost: err})
				return
			}
			p.tell(down, downMsg{sig: sig, all: all})
		default:
			p.tell(down, downMsg{lost: fmt.Errorf("unexpected control frame of type %d", typ)})
			return
		}
	}
}

// tell hands m to run's loop, or drops it once the loop is over.
func (p *proxy) tell(down chan<- downMsg, m downMsg) {
	select {
	case down <- m:
	case <-p.quit:
	}
}

// hostnameEnv is run.HostnameEnv: the host name a process reports, when
// set (simulated hosts and tests).
const hostnameEnv = "HPCBENCH_HOSTNAME"

// proxyEnv is the ranks' environment on this host: the launcher's, with
// this host's own run.HostnameEnv (HPCBENCH_HOSTNAME) when the proxy has
// one, since that names the host the ranks run on.
func proxyEnv(env []string) []string {
	const key = hostnameEnv + "="
	own, ok := os.LookupEnv(hostnameEnv)
	if !ok {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, key) {
			out = append(out, kv)
		}
	}
	return append(out, key+own)
}
