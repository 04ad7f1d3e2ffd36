package pmi

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rawRank is a test client speaking raw wire lines over a rank's socketpair.
type rawRank struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func newRawRank(t *testing.T, s *Server, rank int) *rawRank {
	t.Helper()
	f := s.ClientFile(rank)
	c, err := net.FileConn(f)
	if err != nil {
		t.Fatal(err)
	}
	s.CloseClientFile(rank)
	t.Cleanup(func() { c.Close() })
	return &rawRank{t: t, conn: c, r: bufio.NewReader(c)}
}

func (rr *rawRank) send(line string) {
	rr.t.Helper()
	if _, err := rr.conn.Write([]byte(line + "\n")); err != nil {
		rr.t.Fatal(err)
	}
}

func (rr *rawRank) expect(want string) {
	rr.t.Helper()
	rr.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := rr.r.ReadString('\n')
	if err != nil {
		rr.t.Fatalf("reading reply (want %q): %v", want, err)
	}
	if got = strings.TrimSuffix(got, "\n"); got != want {
		rr.t.Fatalf("reply %q, want %q", got, want)
	}
}

func testServer(t *testing.T, n int, mut func(*ServerConfig)) *Server {
	t.Helper()
	cfg := ServerConfig{Engine: EngineConfig{Size: n, KVSName: "kvs_t", ProcessMapping: processMappingFor(n)}}
	if mut != nil {
		mut(&cfg)
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runServer runs s until the test ends; the returned channel is closed when
// Run has returned, and *res then holds its error.
type serverRun struct {
	done chan struct{}
	err  error
}

func runServer(t *testing.T, s *Server) *serverRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	sr := &serverRun{done: make(chan struct{})}
	go func() { sr.err = s.Run(ctx); close(sr.done) }()
	t.Cleanup(func() { cancel(); <-sr.done })
	return sr
}

func wait(t *testing.T, sr *serverRun) error {
	t.Helper()
	select {
	case <-sr.done:
		return sr.err
	case <-time.After(8 * time.Second):
		t.Fatal("server did not return")
		return nil
	}
}

func TestServerJob(t *testing.T) {
	const n = 3
	dir := t.TempDir()
	s := testServer(t, n, func(c *ServerConfig) { c.TraceDir = dir })
	ranks := make([]*rawRank, n)
	for r := range ranks {
		ranks[r] = newRawRank(t, s, r)
	}
	done := runServer(t, s)
	for r, rr := range ranks {
		rr.send("cmd=init pmi_version=1 pmi_subversion=1")
		rr.expect("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
		rr.send("cmd=put kvsname=kvs_t key=card-" + string(rune('0'+r)) + " value=v" + string(rune('0'+r)))
		rr.expect("cmd=put_result rc=0 msg=success")
		rr.send("cmd=barrier_in")
	}
	for _, rr := range ranks {
		rr.expect("cmd=barrier_out")
	}
	for _, rr := range ranks {
		rr.send("cmd=get kvsname=kvs_t key=card-2")
		rr.expect("cmd=get_result rc=0 msg=success value=v2")
		rr.send("cmd=finalize")
		rr.expect("cmd=finalize_ack")
		rr.conn.Close()
	}
	if err := wait(t, done); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	tr, err := os.ReadFile(filepath.Join(dir, "rank1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := "C: cmd=init pmi_version=1 pmi_subversion=1\nS: cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n" +
		"C: cmd=put kvsname=kvs_t key=card-1 value=v1\nS: cmd=put_result rc=0 msg=success\nC: cmd=barrier_in\nS: cmd=barrier_out\n" +
		"C: cmd=get kvsname=kvs_t key=card-2\nS: cmd=get_result rc=0 msg=success value=v2\nC: cmd=finalize\nS: cmd=finalize_ack\n"
	if string(tr) != want {
		t.Errorf("trace of rank 1:\n%s\nwant:\n%s", tr, want)
	}
}

// TestServerFailures: every way a rank can break the job ends Run at once
// with a RankError naming it, while the other ranks wait in a barrier.
func TestServerFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		act   func(rr *rawRank)
		abort bool
		code  int
		msg   string
	}{
		{"eof after init", func(rr *rawRank) { rr.conn.Close() }, false, 0, "rank 1 closed its PMI connection before finalize"},
		{"abort", func(rr *rawRank) { rr.send("cmd=abort exitcode=7") }, true, 7, "rank 1 called abort with exit code 7"},
		{"long line", func(rr *rawRank) { rr.send("cmd=put value=" + strings.Repeat("x", 2000)) }, false, 0, "exceeds the 1024-byte limit"},
		{"garbage", func(rr *rawRank) { rr.send("hello") }, false, 0, "rank 1 sent a bad request"},
		{"eof mid-line", func(rr *rawRank) { rr.conn.Write([]byte("cmd=get")); rr.conn.Close() }, false, 0, "in the middle of a line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testServer(t, 3, nil)
			ranks := []*rawRank{newRawRank(t, s, 0), newRawRank(t, s, 1), newRawRank(t, s, 2)}
			done := runServer(t, s)
			for _, rr := range ranks {
				rr.send("cmd=init pmi_version=1 pmi_subversion=1")
				rr.expect("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
			}
			ranks[0].send("cmd=barrier_in")
			ranks[2].send("cmd=barrier_in")
			start := time.Now()
			tc.act(ranks[1])
			err := wait(t, done)
			var re *RankError
			if !errors.As(err, &re) {
				t.Fatalf("Run = %v, want a *RankError", err)
			}
			if re.Rank != 1 || re.Abort != tc.abort || re.Code != tc.code || !strings.Contains(re.Error(), tc.msg) {
				t.Errorf("RankError = %+v (%v), want rank 1 abort=%v code=%d mentioning %q", re, re, tc.abort, tc.code, tc.msg)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("failure took %v to surface", d)
			}
			// The waiting ranks see their connection closed, not a hang.
			ranks[0].conn.SetReadDeadline(time.Now().Add(2 * time.Second))
			if _, err := ranks[0].r.ReadString('\n'); err == nil {
				t.Error("rank 0 got a reply after the job failed")
			}
		})
	}
}

func TestServerNonPMIPrograms(t *testing.T) {
	s := testServer(t, 2, nil)
	ranks := []*rawRank{newRawRank(t, s, 0), newRawRank(t, s, 1)}
	done := runServer(t, s)
	for _, rr := range ranks {
		rr.conn.Close() // like /bin/true: never speaks PMI
	}
	if err := wait(t, done); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
}

func TestServerContextCancel(t *testing.T) {
	s := testServer(t, 2, nil)
	newRawRank(t, s, 0)
	newRawRank(t, s, 1)
	ctx, cancel := context.WithCancel(t.Context())
	sr := &serverRun{done: make(chan struct{})}
	go func() { sr.err = s.Run(ctx); close(sr.done) }()
	cancel()
	if err := wait(t, sr); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

func TestServerPort(t *testing.T) {
	s := testServer(t, 2, func(c *ServerConfig) { c.Listen = "127.0.0.1:0" })
	if s.ClientFile(0) != nil {
		t.Fatal("port mode has no socketpairs")
	}
	done := runServer(t, s)
	// A stray connection that does not speak initack is dropped.
	stray, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	stray.Write([]byte("GET / HTTP/1.0\n"))
	stray.Close()
	var ranks []*rawRank
	for _, id := range []string{"1", "0"} {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		rr := &rawRank{t: t, conn: c, r: bufio.NewReader(c)}
		rr.send("cmd=initack pmiid=" + id)
		rr.expect("cmd=initack")
		rr.expect("cmd=set size=2")
		rr.expect("cmd=set rank=" + id)
		rr.expect("cmd=set debug=0")
		ranks = append(ranks, rr)
	}
	for _, rr := range ranks {
		rr.send("cmd=init pmi_version=1 pmi_subversion=1")
		rr.expect("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
		rr.send("cmd=barrier_in")
	}
	for _, rr := range ranks {
		rr.expect("cmd=barrier_out")
		rr.send("cmd=finalize")
		rr.expect("cmd=finalize_ack")
		rr.conn.Close()
	}
	if err := wait(t, done); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
}

// TestServerEndAccepting: in PMI_PORT mode a rank that never connects (a
// program that does not speak PMI) must not keep Run waiting once the
// launcher says every rank has exited, and a connection queued before that
// is still served: here one whose abort must still end the job as a failure.
func TestServerEndAccepting(t *testing.T) {
	for _, tc := range []struct {
		name  string
		abort bool // rank 1 connects and aborts before EndAccepting
	}{
		{"nobody connects", false},
		{"a queued abort", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testServer(t, 3, func(c *ServerConfig) { c.Listen = "127.0.0.1:0" })
			done := runServer(t, s)
			if tc.abort {
				c, err := net.Dial("tcp", s.Addr())
				if err != nil {
					t.Fatal(err)
				}
				c.Write([]byte("cmd=initack pmiid=1\ncmd=init pmi_version=1 pmi_subversion=1\ncmd=abort exitcode=5\n"))
				c.Close()
			}
			s.EndAccepting()
			err := wait(t, done)
			if !tc.abort {
				if err != nil {
					t.Fatalf("Run = %v, want nil", err)
				}
				return
			}
			var re *RankError
			if !errors.As(err, &re) || re.Rank != 1 || !re.Abort || re.Code != 5 {
				t.Fatalf("Run = %v, want rank 1's abort with code 5", err)
			}
		})
	}
}
