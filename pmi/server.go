package pmi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// ServerConfig configures a Server.
type ServerConfig struct {
	Engine EngineConfig
	// Listen, when non-empty, is a TCP address ("127.0.0.1:0") on which the
	// server also accepts PMI_PORT clients; each must open with
	// "cmd=initack pmiid=RANK".
	Listen string
	// TraceDir, when non-empty, receives one transcript per rank,
	// rank<R>.txt, with "C: " and "S: " lines as in pmi/testdata/transcripts.
	TraceDir string
	// WriteTimeout bounds each reply write; a rank that stops reading its
	// socket fails the job instead of stalling it. Default 10s.
	WriteTimeout time.Duration
	// Notify, when not nil, receives each rank's progress (see Note): init,
	// barrier entries, phase reports and finalize. It is called from the
	// rank's serving goroutine, concurrently for different ranks, and must
	// return at once.
	Notify func(Note)
	// Upstream, when not nil, makes the server one level of a job served
	// by several (a launcher's proxy on one host): once every rank it
	// serves has entered a barrier, it calls Upstream with the puts made
	// since the last barrier, and the barrier completes when the owner
	// calls CompleteBarrier with the puts of the whole job. It is called
	// from a serving goroutine and must return at once.
	Upstream func(puts []Pair)
}

// RankError is why a job failed, naming the rank responsible.
type RankError struct {
	Rank  int
	Abort bool  // the rank called abort
	Code  int   // the abort exit status
	Err   error // what happened
}

func (e *RankError) Error() string {
	return e.Err.Error()
}

func (e *RankError) Unwrap() error { return e.Err }

// Server serves PMI-1 to the ranks of one job: over a socketpair per rank
// (ClientFile) and optionally over a TCP listener (Addr). Run serves until
// every connection closed cleanly, the context ends, or a rank fails.
type Server struct {
	cfg   ServerConfig
	mu    sync.Mutex // guards eng
	eng   *Engine
	peers []*peer
	ln    net.Listener
	// endLine is the line EndAccepting sends: a random token, so that no
	// other client's first line ends the accepting.
	endLine string

	failOnce sync.Once
	failErr  error
	failed   chan struct{} // closed by fail
}

// conn is a rank's connection: an *os.File over its socketpair, or a
// net.Conn accepted on the PMI_PORT listener.
type conn interface {
	io.ReadWriteCloser
	SetWriteDeadline(t time.Time) error
}

type peer struct {
	rank  int
	mu    sync.Mutex // serializes writes and trace lines; guards wbuf
	conn  conn
	child *os.File // the rank's end of the socketpair, until the launcher closes it
	trace *os.File
	tw    *bufio.Writer
	wbuf  []byte // the reply being written, reused from reply to reply, or the replies held
	held  bool   // replies are held in wbuf until flush (see serve)
	outs  []Out  // the engine's outputs for the request being served, reused
}

// NewServer validates cfg and returns a Server with one socketpair per rank.
func NewServer(cfg ServerConfig) (*Server, error) {
	cfg.Engine.Notes = cfg.Notify != nil
	cfg.Engine.Delta = cfg.Upstream != nil
	eng, err := NewEngine(cfg.Engine)
	if err != nil {
		return nil, err
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 10 * time.Second
	}
	s := &Server{cfg: cfg, eng: eng, failed: make(chan struct{})}
	s.peers = make([]*peer, cfg.Engine.Size)
	for r := range s.peers {
		s.peers[r] = &peer{rank: r}
	}
	cleanup := func() { s.closeAll() }
	if cfg.TraceDir != "" {
		// Only the last directory is made, as every output of hpcbench
		// refuses a missing parent: a typo must not build a tree from /.
		if err := os.Mkdir(cfg.TraceDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("pmi: create trace directory: %w", err)
		}
		for _, p := range s.peers {
			f, err := os.Create(filepath.Join(cfg.TraceDir, "rank"+strconv.Itoa(eng.ID(p.rank))+".txt"))
			if err != nil {
				cleanup()
				return nil, fmt.Errorf("pmi: create trace file: %w", err)
			}
			p.trace, p.tw = f, bufio.NewWriter(f)
		}
	}
	if cfg.Listen != "" {
		ln, err := net.Listen("tcp", cfg.Listen)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("pmi: listen on %s: %w", cfg.Listen, err)
		}
		s.ln = ln
		s.endLine = fmt.Sprintf("cmd=hpcbench-end-accepting token=%016x\n", rand.Uint64())
		return s, nil
	}
	for _, p := range s.peers {
		if err := p.socketpair(); err != nil {
			cleanup()
			return nil, err
		}
	}
	return s, nil
}

// socketpair gives p its connection: the server's end, non-blocking so that
// the runtime's poller serves it, and the rank's end, blocking as PMI_FD
// clients expect. It is an *os.File rather than a net.Conn: net.FileConn
// would dup the descriptor and query it four times (fcntl, SO_TYPE,
// getsockname, getpeername), which made up half of the launcher's set-up
// cost per rank; here it is socketpair, one fcntl to set O_NONBLOCK and the
// poller's own F_GETFL and epoll_ctl.
func (p *peer) socketpair() error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("pmi: socketpair for rank %d: %w", p.rank, err)
	}
	// A fresh socket's only status flag is O_RDWR: set, not read-modify-write.
	if _, err := unix.FcntlInt(uintptr(fds[0]), unix.F_SETFL, unix.O_RDWR|unix.O_NONBLOCK); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return fmt.Errorf("pmi: socketpair for rank %d: set O_NONBLOCK: %w", p.rank, err)
	}
	p.conn = os.NewFile(uintptr(fds[0]), "pmi-server-"+strconv.Itoa(p.rank))
	p.child = os.NewFile(uintptr(fds[1]), "pmi-client-"+strconv.Itoa(p.rank))
	return nil
}

// ClientFile returns rank's end of its socketpair, to pass to the rank's
// process (exec.Cmd.ExtraFiles); the server owns it and CloseClientFile
// closes it once the process has started. It is nil in PMI_PORT mode.
func (s *Server) ClientFile(rank int) *os.File { return s.peers[rank].child }

// Addr returns the TCP address of the PMI_PORT listener, or "" without one.
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Failed is closed when a rank fails; Err then says which and why.
func (s *Server) Failed() <-chan struct{} { return s.failed }

// Err returns the failure that ended the job, or nil.
func (s *Server) Err() error {
	select {
	case <-s.failed:
		return s.failErr
	default:
		return nil
	}
}

func (s *Server) fail(err error) {
	s.failOnce.Do(func() {
		s.failErr = err
		close(s.failed)
	})
}

// Run serves the job. It returns nil when every rank's connection has closed
// without a failure, a *RankError when a rank aborted or broke the job, or
// ctx's error. On return every connection is closed and every trace flushed.
func (s *Server) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	done := make(chan struct{})
	if s.ln != nil {
		wg.Go(func() { s.acceptLoop(&wg) })
	} else {
		for _, p := range s.peers {
			wg.Go(func() { s.serve(p, bufio.NewReaderSize(rawOr(p.conn), MaxLine+1)) })
		}
	}
	go func() { wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-s.failed:
		err = s.failErr
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.closeAll()
	<-done
	if err == nil {
		err = s.Err()
	}
	return err
}

// EndAccepting tells a PMI_PORT server that no rank that has not connected
// yet will: the launcher calls it once every rank has exited, so that Run
// returns when the connections it has are done rather than waiting for
// ranks that never used PMI. It connects to the listener itself and says
// so; connections made before it, still waiting to be accepted, are queued
// ahead of it and served first. Without a listener it does nothing.
func (s *Server) EndAccepting() {
	if s.ln == nil {
		return
	}
	c, err := net.DialTimeout("tcp", s.ln.Addr().String(), time.Second)
	if err != nil {
		s.ln.Close() // cannot queue the end: stop at once
		return
	}
	c.Write([]byte(s.endLine))
	c.Close()
}

// acceptLoop serves PMI_PORT clients until every rank has connected, or
// EndAccepting says no more will.
func (s *Server) acceptLoop(wg *sync.WaitGroup) {
	for connected := 0; connected < len(s.peers); connected++ {
		c, err := s.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.fail(fmt.Errorf("pmi: accept PMI_PORT connection: %w", err))
			}
			return
		}
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
		}
		r := bufio.NewReaderSize(rawOr(c), MaxLine+1)
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		line, err := readLine(r)
		c.SetReadDeadline(time.Time{})
		if err != nil {
			c.Close()
			connected--
			continue // a stray connection; keep waiting for the ranks
		}
		if line == s.endLine {
			c.Close()
			break
		}
		m, err := ParseLine(line)
		id, _ := m.Get("pmiid")
		rank, err2 := atoiStrict(id)
		if err != nil || m.Cmd != "initack" || err2 != nil || rank < 0 || rank >= len(s.peers) {
			c.Close()
			connected--
			continue
		}
		p := s.peers[rank]
		s.mu.Lock()
		taken := p.conn != nil
		if !taken {
			p.conn = c
		}
		s.mu.Unlock()
		if taken {
			c.Close()
			s.fail(&RankError{Rank: rank, Err: fmt.Errorf("pmi: a second connection claimed pmiid %d", rank)})
			return
		}
		p.traceLine("C: ", line)
		s.handle(p, line)
		wg.Go(func() { s.serve(p, r) })
	}
	s.ln.Close()
}

// readLine reads one newline-terminated line of at most MaxLine bytes.
func readLine(r *bufio.Reader) (string, error) {
	b, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", &SyntaxError{Line: clip(string(b)), Reason: fmt.Sprintf("line exceeds the %d-byte limit", MaxLine)}
	}
	if err != nil {
		if err == io.EOF && len(b) > 0 {
			return "", &SyntaxError{Line: clip(string(b)), Reason: "connection closed in the middle of a line"}
		}
		return "", err
	}
	return string(b), nil
}

// serve reads p's requests until its connection closes.
func (s *Server) serve(p *peer, r *bufio.Reader) {
	for {
		line, err := readLine(r)
		if err != nil {
			var se *SyntaxError
			if errors.As(err, &se) {
				s.fail(&RankError{Rank: s.eng.ID(p.rank), Err: fmt.Errorf("pmi: rank %d sent a bad request: %w", s.eng.ID(p.rank), err)})
				return
			}
			s.mu.Lock()
			outs := s.eng.Closed(p.rank)
			s.failures(outs)
			s.mu.Unlock()
			s.do(outs)
			return
		}
		p.traceLine("C: ", line)
		// While more whole requests are already buffered (a client
		// pipelining its gets, Client.GetMany), hold the replies and
		// write them together after the last: one write, and one
		// wake-up of the client, per batch instead of per reply.
		more := hasLine(r)
		if more {
			p.hold()
		}
		s.handle(p, line)
		if !more {
			if err := p.flush(s.cfg.WriteTimeout); err != nil {
				s.fail(&RankError{Rank: s.eng.ID(p.rank), Err: fmt.Errorf("pmi: reply to rank %d: %w", s.eng.ID(p.rank), err)})
			}
		}
	}
}

// hasLine reports whether r holds a whole line already read from the
// connection.
func hasLine(r *bufio.Reader) bool {
	b, _ := r.Peek(r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// handle serves one request line from p. Only p's serving goroutine calls
// it (the accept loop before starting that goroutine), so p.outs is free.
func (s *Server) handle(p *peer, line string) {
	s.mu.Lock()
	outs := s.eng.handle(p.rank, line, p.outs[:0])
	var puts []Pair
	up := false
	for i := 0; i < len(outs); i++ {
		if outs[i].Kind == OutBarrier {
			if s.cfg.Upstream != nil {
				puts, up = s.eng.TakePuts(), true
				continue
			}
			outs = append(outs, s.eng.BarrierDone(0)...)
		}
	}
	s.failures(outs)
	s.mu.Unlock()
	s.do(outs)
	if up {
		s.cfg.Upstream(puts)
	}
	clear(outs) // drop the reply lines and errors until the next request
	p.outs = outs[:0]
}

// failures records the aborts and failures among the engine's outputs.
// The caller holds s.mu, so that the job's failure is the first the engine
// saw: with the lock released first, two ranks' goroutines could record
// theirs in either order (a rank closing its connection, then a peer
// entering a barrier it can no longer join, was sometimes reported as the
// barrier's failure).
func (s *Server) failures(outs []Out) {
	for _, o := range outs {
		switch o.Kind {
		case OutAbort:
			msg := fmt.Sprintf("rank %d called abort with exit code %d", s.eng.ID(o.Rank), o.Code)
			if o.Msg != "" {
				msg += ": " + o.Msg
			}
			s.fail(&RankError{Rank: s.eng.ID(o.Rank), Abort: true, Code: o.Code, Err: errors.New(msg)})
		case OutFail:
			s.fail(&RankError{Rank: s.eng.ID(o.Rank), Err: o.Err})
		}
	}
}

// do sends the engine's replies; failures has recorded the rest.
func (s *Server) do(outs []Out) {
	for _, o := range outs {
		if o.Kind == OutNote {
			s.cfg.Notify(o.Note)
			continue
		}
		if o.Kind != OutReply {
			continue
		}
		p := s.peers[o.Rank]
		if err := p.send(o.Line, s.cfg.WriteTimeout); err != nil {
			s.fail(&RankError{Rank: s.eng.ID(o.Rank), Err: fmt.Errorf("pmi: reply to rank %d: %w", s.eng.ID(o.Rank), err)})
		}
	}
}

func (p *peer) send(line string, timeout time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tw != nil {
		for _, l := range splitLines(line) {
			p.tw.WriteString("S: ")
			p.tw.WriteString(l)
		}
	}
	if p.held {
		p.wbuf = append(p.wbuf, line...)
		return nil
	}
	p.conn.SetWriteDeadline(time.Now().Add(timeout))
	// Copy into a reused buffer: io.WriteString would allocate a []byte
	// per reply, since a net.Conn has no WriteString.
	p.wbuf = append(p.wbuf[:0], line...)
	_, err := p.conn.Write(p.wbuf)
	return err
}

// hold makes send keep p's replies in p.wbuf until flush.
func (p *peer) hold() {
	p.mu.Lock()
	if !p.held {
		p.held = true
		p.wbuf = p.wbuf[:0]
	}
	p.mu.Unlock()
}

// flush writes the replies held since hold, if any, and ends the hold.
func (p *peer) flush(timeout time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.held {
		return nil
	}
	p.held = false
	if len(p.wbuf) == 0 {
		return nil
	}
	p.conn.SetWriteDeadline(time.Now().Add(timeout))
	_, err := p.conn.Write(p.wbuf)
	p.wbuf = p.wbuf[:0]
	return err
}

func (p *peer) traceLine(prefix, line string) {
	if p.tw == nil {
		return
	}
	p.mu.Lock()
	p.tw.WriteString(prefix)
	p.tw.WriteString(line)
	if line == "" || line[len(line)-1] != '\n' {
		p.tw.WriteByte('\n')
	}
	p.mu.Unlock()
}

// splitLines splits a multi-line reply (initack) into newline-terminated lines.
func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		if i < len(s) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// closeAll closes every connection, the listener, the child ends not yet
// handed over, and flushes traces. It is safe to call more than once.
func (s *Server) closeAll() {
	if s.ln != nil {
		s.ln.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.peers {
		p.mu.Lock()
		if p.conn != nil {
			p.conn.Close()
		}
		if p.child != nil {
			p.child.Close()
			p.child = nil
		}
		if p.tw != nil {
			p.tw.Flush()
			p.trace.Close()
			p.tw, p.trace = nil, nil
		}
		p.mu.Unlock()
	}
}

// CompleteBarrier completes the barrier the server handed Upstream: the
// job's puts go into its KVS, then its ranks leave the barrier.
func (s *Server) CompleteBarrier(puts []Pair) {
	s.mu.Lock()
	s.eng.Store(puts)
	outs := s.eng.BarrierDone(0)
	s.mu.Unlock()
	s.do(outs)
}

// CloseClientFile closes the parent's copy of rank's socketpair end; the
// launcher calls it as soon as the rank has started (or failed to), so that
// the rank's exit is seen as EOF.
func (s *Server) CloseClientFile(rank int) {
	p := s.peers[rank]
	p.mu.Lock()
	if p.child != nil {
		p.child.Close()
		p.child = nil
	}
	p.mu.Unlock()
}
