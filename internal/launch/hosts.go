package launch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/internal/exitcode"
	"github.com/hpcbench/hpcbench/internal/version"
	"github.com/hpcbench/hpcbench/pmi"
)

// ProxyCommand is the hidden subcommand that runs ServeProxy on a host of
// a job across hosts.
const ProxyCommand = "__proxy"

// The control connection's deadlines.
const (
	beatInterval = time.Second     // each side sends ctlBeat this often
	beatTimeout  = 5 * time.Second // a connection silent this long is lost
	// handshakeTimeout bounds a connection's authentication.
	handshakeTimeout = 10 * time.Second
	// ctlWriteTimeout bounds each frame's write.
	ctlWriteTimeout = 10 * time.Second
	// proxyStartDeadline is how long a host's remote shell has to start
	// its proxy and the proxy to connect.
	proxyStartDeadline = 60 * time.Second
	// proxyEndGrace is how long the launcher waits, once every rank has
	// exited, for the proxies' last frames, and then for their remote
	// shells to exit before it kills them.
	proxyEndGrace = outputGrace + time.Second
)

// hostSet is the launcher's side of a job across hosts: a proxy per host,
// started through the remote shell and connected back to the control
// port, which it authenticates and then serves. It implements remoteRanks
// (signals go to the proxies) and failSource (the proxies' PMI failures).
type hostSet struct {
	o       Options
	secret  []byte
	ln      net.Listener
	proxies []*proxyConn
	hostOf  []int // by rank: index in proxies
	jobOf   func(p *proxyConn) *proxyJob
	events  chan<- procEvent
	notes   *noteBox
	stdout  *lineWriter
	stderr  *lineWriter   // the launcher's lines and the remote shells'
	quit    chan struct{} // closed when the launcher stops listening to events
	ended   chan struct{} // a proxy sent ctlDone or was lost (capacity: one per proxy)

	failOnce sync.Once
	failErr  error
	failed   chan struct{} // closed with the first PMI failure

	mu       sync.Mutex // guards the barrier
	barSeq   int        // barriers completed
	barIn    int        // proxies in the current one
	wg       sync.WaitGroup
	closeOne sync.Once
}

// proxyConn is one host's proxy.
type proxyConn struct {
	index int
	name  string
	ranks []int
	cmd   *exec.Cmd
	// exited is closed once the remote shell is reaped; nil until it
	// starts.
	exited chan struct{}

	mu        sync.Mutex // guards what follows, and orders writes to conn
	conn      net.Conn
	connected bool // authenticated
	over      bool // sent ctlDone, or lost: nothing more is expected
	inBarrier bool
	puts      []pmi.Pair // its puts for the current barrier
}

// Err returns the first PMI failure a proxy reported (failSource).
func (hs *hostSet) Err() error {
	select {
	case <-hs.failed:
		return hs.failErr
	default:
		return nil
	}
}

func (hs *hostSet) fail(err error) {
	hs.failOnce.Do(func() { hs.failErr = err; close(hs.failed) })
}

// host names the host rank r runs on (remoteRanks).
func (hs *hostSet) host(r int) string { return hs.proxies[hs.hostOf[r]].name }

// signal sends ctlSignal to every proxy (remoteRanks).
func (hs *hostSet) signal(sig syscall.Signal, all bool) {
	f := encodeSignal(sig, all)
	for _, p := range hs.proxies {
		p.send(f)
	}
}

// send writes frame f to p if it is connected; a write that fails closes
// the connection, which its reader then reports.
func (p *proxyConn) send(f []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.connected || p.conn == nil {
		return
	}
	p.conn.SetWriteDeadline(time.Now().Add(ctlWriteTimeout))
	if _, err := p.conn.Write(f); err != nil {
		p.conn.Close()
	}
}

// lost reports p's loss to the launcher's loop, once, unless p was over.
func (hs *hostSet) lost(p *proxyConn, cause string) {
	p.mu.Lock()
	over := p.over
	p.over = true
	if p.conn != nil {
		p.conn.Close()
	}
	p.mu.Unlock()
	if over {
		return
	}
	hs.ended <- struct{}{}
	hs.event(procEvent{kind: evHostLost, rank: -1, lost: p.ranks, err: fmt.Errorf("host %s: %s", p.name, cause)})
}

// event hands ev to the launcher's loop, or drops it once the loop is done.
func (hs *hostSet) event(ev procEvent) {
	select {
	case hs.events <- ev:
	case <-hs.quit:
	}
}

// acceptLoop authenticates and serves every connection to the control
// port until the listener closes.
func (hs *hostSet) acceptLoop() {
	for {
		c, err := hs.ln.Accept()
		if err != nil {
			return
		}
		hs.wg.Go(func() { hs.serveConn(c) })
	}
}

// serveConn authenticates c and, if it is a proxy of the job, serves it.
func (hs *hostSet) serveConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	p, r, err := hs.handshake(c)
	if err != nil {
		c.Close()
		if p != nil {
			hs.lost(p, err.Error())
			return
		}
		fmt.Fprintf(hs.stderr, "launch: refused a control connection from %s: %v\n", c.RemoteAddr(), err)
		return
	}
	hs.serve(p, r)
}

// errNoSecret is a connection that did not prove the job's secret.
var errNoSecret = errors.New("no job secret")

// handshake authenticates c (see control_auth.go) and sends the proxy its
// job. A connection that is not a proxy of this job gets an error and no
// proxy; a proxy of another version gets both, and the job ends.
func (hs *hostSet) handshake(c net.Conn) (*proxyConn, *bufio.Reader, error) {
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	defer c.SetDeadline(time.Time{})
	nonce, err := newSecret()
	if err != nil {
		return nil, nil, err
	}
	if _, err := c.Write(hello{protocol: ctlProtocol, nonce: string(nonce)}.encode()); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errNoSecret, err)
	}
	r := bufio.NewReaderSize(c, 64<<10)
	typ, body, _, err := readFrameMax(r, nil, maxHandshakeFrame)
	if err != nil || typ != ctlAuth {
		return nil, nil, errNoSecret
	}
	a, err := decodeAuth(body)
	if err != nil || a.index >= len(hs.proxies) || !sameMAC(a.mac, proxyMAC(hs.secret, string(nonce), a.nonce, a.index, a.version)) {
		return nil, nil, errNoSecret
	}
	p := hs.proxies[a.index]
	if a.version != version.String() {
		c.Write(newFrame(ctlRefuse).str("version mismatch: the launcher is " + version.String()).done())
		return p, nil, fmt.Errorf("its proxy is %s, the launcher %s: run the same hpcbench on every host (--proxy-path)", a.version, version.String())
	}
	j := hs.jobOf(p)
	j.mac = launcherMAC(hs.secret, string(nonce), a.nonce, a.index)
	if !p.attach(c, j.encode()) {
		return nil, nil, fmt.Errorf("host %s's proxy is connected already", p.name)
	}
	return p, r, nil
}

// attach makes c p's connection and writes the job frame first on it, in
// one step: nothing another goroutine sends p (a heartbeat, a barrier's
// end, a signal) can reach the proxy before its job. It reports false,
// writing nothing, when p has a connection already or is over.
func (p *proxyConn) attach(c net.Conn, job []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.connected || p.over {
		return false
	}
	p.conn, p.connected = c, true
	c.SetWriteDeadline(time.Now().Add(ctlWriteTimeout))
	if _, err := c.Write(job); err != nil {
		c.Close() // its reader reports the loss
	}
	return true
}

// serve reads p's frames until it is done or lost.
func (hs *hostSet) serve(p *proxyConn, r *bufio.Reader) {
	var buf []byte
	for {
		p.conn.SetReadDeadline(time.Now().Add(beatTimeout))
		typ, body, b, err := readFrame(r, buf)
		buf = b
		if err != nil {
			hs.lost(p, "proxy lost: "+lossCause(err))
			return
		}
		if err := hs.apply(p, typ, body); err != nil {
			hs.lost(p, "proxy lost: "+err.Error())
			return
		}
		if typ == ctlDone {
			p.mu.Lock()
			over := p.over
			p.over = true
			p.mu.Unlock()
			if !over {
				hs.ended <- struct{}{}
			}
			return
		}
	}
}

// lossCause words why a control connection ended.
func lossCause(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "no heartbeat for " + beatTimeout.String()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	}
	return err.Error()
}

// apply acts on one frame from p.
func (hs *hostSet) apply(p *proxyConn, typ byte, body []byte) error {
	switch typ {
	case ctlBeat, ctlDone:
		return nil
	case ctlEvents:
		evs, err := decodeEvents(body, hs.o.N)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if hs.hostOf[ev.rank] != p.index {
				return fmt.Errorf("it reported rank %d, which runs on host %s", ev.rank, hs.host(ev.rank))
			}
			hs.event(ev)
		}
	case ctlNotes:
		notes, err := decodeNotes(body, hs.o.N)
		if err != nil {
			return err
		}
		for _, n := range notes {
			hs.notes.add(n)
		}
	case ctlOutput:
		stream, out, err := decodeOutput(body)
		if err != nil {
			return err
		}
		if stream == 0 {
			hs.stdout.write(out)
		} else {
			hs.stderr.write(out)
		}
	case ctlFail:
		re, err := decodeFail(body, hs.o.N)
		if err != nil {
			return err
		}
		hs.fail(re)
	case ctlBarrierIn:
		seq, puts, err := decodePuts(body)
		if err != nil {
			return err
		}
		return hs.barrierIn(p, seq, puts)
	default:
		return fmt.Errorf("unexpected control frame of type %d", typ)
	}
	return nil
}

// barrierIn records that p's ranks entered barrier seq with puts; the
// last proxy in sends every proxy the job's puts (in host order, so that
// a key put on two hosts holds the same value everywhere).
func (hs *hostSet) barrierIn(p *proxyConn, seq int, puts []pmi.Pair) error {
	hs.mu.Lock()
	if seq != hs.barSeq+1 || p.inBarrier {
		hs.mu.Unlock()
		return fmt.Errorf("it entered barrier %d, the job is at %d", seq, hs.barSeq+1)
	}
	p.inBarrier, p.puts = true, puts
	hs.barIn++
	if hs.barIn < len(hs.proxies) {
		hs.mu.Unlock()
		return nil
	}
	var all []pmi.Pair
	for _, q := range hs.proxies {
		all = append(all, q.puts...)
		q.inBarrier, q.puts = false, nil
	}
	hs.barIn = 0
	hs.barSeq++
	hs.mu.Unlock()
	f := encodePuts(ctlBarrierOut, seq, all)
	for _, q := range hs.proxies {
		q.send(f)
	}
	return nil
}

// rshArgv is the command that starts the proxy on host: rsh's words with
// "{host}" replaced, or the host after them, then the proxy's command.
func rshArgv(rsh []string, host string, proxy ...string) []string {
	if len(rsh) == 0 {
		rsh = DefaultRsh
	}
	out := make([]string, 0, len(rsh)+1+len(proxy))
	replaced := false
	for _, w := range rsh {
		if strings.Contains(w, "{host}") {
			w, replaced = strings.ReplaceAll(w, "{host}", host), true
		}
		out = append(out, w)
	}
	if !replaced {
		out = append(out, host)
	}
	return append(out, proxy...)
}

// startProxy starts p's remote shell (with Fork, the proxy itself), its
// stdin the read end stdin (which holds the proxy's line), and a
// goroutine that passes on what the shell
// prints, one launcher line each, and reports the shell's end if its proxy
// never connected.
func (hs *hostSet) startProxy(p *proxyConn, proxyPath string, stdin *os.File) error {
	argv, env := rshArgv(hs.o.Rsh, p.name, proxyPath, ProxyCommand), []string(nil)
	if hs.o.Fork {
		argv, env = []string{proxyPath, ProxyCommand}, append(os.Environ(), hostnameEnv+"="+p.name)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		if hs.o.Fork {
			return fmt.Errorf("--proxy-path %s: %w", argv[0], unwrapExecErr(err))
		}
		return fmt.Errorf("--rsh %s: %w", argv[0], unwrapExecErr(err))
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("remote shell's output pipe: %w", err)
	}
	p.cmd = &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: stdin, Stdout: outW, Stderr: outW, Dir: hs.o.Dir,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	err = p.cmd.Start()
	outW.Close()
	if err != nil {
		outR.Close()
		p.cmd = nil
		return fmt.Errorf("start %s: %w", argv[0], err)
	}
	p.exited = make(chan struct{})
	hs.wg.Go(func() {
		defer close(p.exited)
		sc := bufio.NewScanner(outR)
		var last string
		for sc.Scan() {
			last = sc.Text()
			fmt.Fprintf(hs.stderr, "launch: host %s: %s\n", p.name, last)
		}
		outR.Close()
		p.cmd.Wait()
		p.mu.Lock()
		connected := p.connected
		p.mu.Unlock()
		if !connected {
			_, how := describeExit(p.cmd.ProcessState.Sys().(syscall.WaitStatus))
			cause := fmt.Sprintf("%s %s before its proxy connected", argv[0], how)
			if last != "" {
				cause += ": " + last
			}
			hs.lost(p, cause)
		}
	})
	return nil
}

// beatLoop sends ctlBeat to every proxy each beatInterval, and ends the
// job of a host whose proxy has not connected by proxyStartDeadline, until
// quit.
func (hs *hostSet) beatLoop(start time.Time) {
	t := time.NewTicker(beatInterval)
	defer t.Stop()
	beat := emptyFrame(ctlBeat)
	for {
		select {
		case <-hs.quit:
			return
		case now := <-t.C:
			for _, p := range hs.proxies {
				p.send(beat)
				p.mu.Lock()
				late := !p.connected && !p.over && now.Sub(start) > proxyStartDeadline
				p.mu.Unlock()
				if late {
					hs.lost(p, fmt.Sprintf("its proxy did not connect within %v", proxyStartDeadline))
				}
			}
		}
	}
}

// runHosts runs a job across o.Hosts: a proxy on each host starts and
// serves that host's ranks; the launcher serves the proxies, and its
// loop (job.wait) is the one-host launcher's, fed by them.
func (j *Job) runHosts(ctx context.Context) error {
	o := j.opts
	start := time.Now()
	failed := func(err error) error {
		return &Failure{Rank: -1, Code: exitcode.Failed, Msg: "launch: " + err.Error()}
	}
	secret, err := newSecret()
	if err != nil {
		return failed(err)
	}
	ip, err := controlIP(ctx, o)
	if err != nil {
		return failed(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		return failed(fmt.Errorf("control port: %w", err))
	}
	dir := o.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			ln.Close()
			return failed(fmt.Errorf("working directory: %w", err))
		}
	}
	kvs := kvsName()
	bar := newJobBar(o)
	defer bar.Close()
	env := append(scrubbedEnv(o.Env, o.PhaseTimeout != 0), jobVars(kvs, o.PhaseTimeout, bar.Shows())...)
	mapping := processMappingOf(o.Hosts)
	events := make(chan procEvent, 2*o.N+2*len(o.Hosts)+stopRoom)
	hs := &hostSet{o: o, secret: secret, ln: ln, events: events, hostOf: make([]int, o.N),
		stdout: &lineWriter{w: bar.Stdout(o.Stdout)}, stderr: &lineWriter{w: bar.Stdout(o.Stderr)},
		notes: &noteBox{wake: make(chan struct{}, 1)}, quit: make(chan struct{}),
		ended: make(chan struct{}, len(o.Hosts)), failed: make(chan struct{})}
	for i, h := range o.Hosts {
		hs.proxies = append(hs.proxies, &proxyConn{index: i, name: h.Name, ranks: h.Ranks})
		for _, r := range h.Ranks {
			hs.hostOf[r] = i
		}
	}
	hs.jobOf = func(p *proxyConn) *proxyJob {
		return &proxyJob{host: p.name, kvs: kvs, mapping: mapping, size: o.N, ranks: p.ranks, command: o.Command,
			dir: dir, env: env, tag: o.TagOutput, bind: string(o.Bind), traceDir: o.TraceDir}
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	jb := newJobWith(o, hs.stderr, hs.notes, func() (uint64, bool) { return 0, false })
	jb.srv, jb.remote = hs, hs
	if bar.Shows() {
		jb.progress = &jobProgress{sink: bar}
	}
	defer jb.stopWatchdog()
	hs.wg.Go(hs.acceptLoop)
	hs.wg.Go(func() { hs.beatLoop(start) })

	proxyPath := o.ProxyPath
	if proxyPath == "" {
		proxyPath = o.Self
	}
	var stdin *stdinCopy
	stdinStarted := false
	for i, p := range hs.proxies {
		jb.pending += len(p.ranks)
		for _, r := range p.ranks {
			jb.wd.started(r, time.Now())
		}
		line := proxyLine(i, ln.Addr().String(), secret)
		var in *os.File
		if hs.hostOf[0] == i && forwardsStdin(o.Stdin) {
			// Rank 0's proxy hands its stdin, after the line, to rank 0.
			c, fd, err := newStdinCopy(o.Stdin)
			if err == nil {
				unix.Write(c.out, []byte(line))
				stdin, in = c, os.NewFile(uintptr(fd), "proxy-stdin")
			}
		}
		if in == nil {
			r, w, err := os.Pipe()
			if err != nil {
				jb.fail = failed(fmt.Errorf("host %s: stdin pipe: %w", p.name, err)).(*Failure)
				break
			}
			w.WriteString(line)
			w.Close()
			in = r
		}
		err := hs.startProxy(p, proxyPath, in)
		in.Close()
		if err == nil && stdin != nil && !stdinStarted {
			stdin.start()
			stdinStarted = true
		}
		if err != nil {
			jb.fail = failed(fmt.Errorf("host %s: %w", p.name, err)).(*Failure)
			break
		}
	}
	if jb.fail != nil {
		jb.teardown()
		// The hosts not started have nothing to wait for.
		for _, p := range hs.proxies {
			if p.cmd == nil {
				hs.lost(p, "not started")
			}
		}
	}
	var timeout <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout - time.Since(start))
		defer t.Stop()
		timeout = t.C
	}
	jb.wait(ctx, events, hs.failed, sigs, timeout)
	jb.signalAll(syscall.SIGKILL)
	hs.finish(jb, events)
	if stdin != nil {
		stdin.stop(stdinStarted)
	}
	bar.Close()
	if o.Verbose {
		fmt.Fprintf(o.Stderr, "launch: job of %d ranks on %d hosts ended after %v\n", o.N, len(o.Hosts), time.Since(start).Round(time.Microsecond))
	}
	return jb.failure()
}

// finish waits, once every rank has exited, for each proxy's last frames
// (its PMI server's verdict, its ranks' output) within proxyEndGrace,
// takes a PMI failure among them as the job's, tells the proxies the job
// is over, and waits for their remote shells, killing those still there
// after proxyEndGrace.
func (hs *hostSet) finish(jb *job, events <-chan procEvent) {
	t := time.NewTimer(proxyEndGrace)
	defer t.Stop()
	// Every proxy sends on ended once, when it is over.
wait:
	for over := 0; over < len(hs.proxies); {
		select {
		case <-hs.ended:
			over++
		case <-events:
			// Late reports (a stop, a loss after the end) change
			// nothing now; taking them lets their senders go on.
		case <-t.C:
			break wait
		}
	}
	if jb.fail == nil {
		if err := hs.Err(); err != nil {
			jb.fail = failureFrom(err)
		}
	}
	close(hs.quit)
	end := emptyFrame(ctlEnd)
	for _, p := range hs.proxies {
		p.send(end)
	}
	hs.ln.Close()
	t.Reset(proxyEndGrace)
	for _, p := range hs.proxies {
		if p.exited == nil {
			continue
		}
		select {
		case <-p.exited:
		case <-t.C:
			// Its shell outlived the grace: kill what is left of it
			// (the others get the same at once, the timer being spent).
			syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.exited
		}
	}
	for _, p := range hs.proxies {
		p.mu.Lock()
		if p.conn != nil {
			p.conn.Close()
		}
		p.mu.Unlock()
	}
	hs.wg.Wait()
}
