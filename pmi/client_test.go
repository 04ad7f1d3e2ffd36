//go:build unix

package pmi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeTimeout bounds every fake server and every client call in these
// tests, so a bug shows up as a failure rather than a hang.
const fakeTimeout = 5 * time.Second

// fakeStep is one request a scripted fake server expects and its answer.
type fakeStep struct {
	want   string // the exact line the client must send, without "\n"
	reply  string // written in one write, newlines included; "" writes nothing
	hangup bool   // close the connection instead of replying
	stall  bool   // never reply; hold the connection until the client leaves
}

// The transports a client can be reached over.
const (
	viaFD   = "fd"   // socketpair, PMI_FD
	viaPort = "port" // loopback TCP, PMI_PORT without PMI_ID
)

// hydraPrologue is the handshake as Hydra 4.0.2 answers it.
func hydraPrologue() []fakeStep {
	return prologue(
		"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0",
		"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024",
		"cmd=appnum appnum=0",
		"cmd=my_kvsname kvsname=kvs_1")
}

// prologue scripts init, get_maxes, get_appnum and get_my_kvsname with the
// given reply lines.
func prologue(initR, maxesR, appnumR, kvsR string) []fakeStep {
	return []fakeStep{
		{want: "cmd=init pmi_version=1 pmi_subversion=1", reply: initR + "\n"},
		{want: "cmd=get_maxes", reply: maxesR + "\n"},
		{want: "cmd=get_appnum", reply: appnumR + "\n"},
		{want: "cmd=get_my_kvsname", reply: kvsR + "\n"},
	}
}

func steps(parts ...[]fakeStep) []fakeStep {
	var s []fakeStep
	for _, p := range parts {
		s = append(s, p...)
	}
	return s
}

// mapEnv returns a Getenv over a fixed map.
func mapEnv(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

// socketPair returns the client's end as a raw fd number (for PMI_FD; the
// client takes ownership) and the server's end as a net.Conn.
func socketPair(t *testing.T) (clientFD int, server net.Conn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fds[1]), "fake-server")
	server, err = net.FileConn(f)
	f.Close()
	if err != nil {
		unix.Close(fds[0])
		t.Fatal(err)
	}
	return fds[0], server
}

// startFake starts a fake server running serve on one connection reached
// over transport and returns the client environment (extra entries added).
// Cleanup waits for the server and fails the test on its error, so the
// client must be closed first (register its Close after startFake).
func startFake(t *testing.T, transport string, extra map[string]string, serve func(net.Conn) error) map[string]string {
	t.Helper()
	env := map[string]string{}
	for k, v := range extra {
		env[k] = v
	}
	done := make(chan error, 1)
	switch transport {
	case viaFD:
		fd, conn := socketPair(t)
		env["PMI_FD"] = strconv.Itoa(fd)
		go func() {
			defer conn.Close()
			done <- serve(conn)
		}()
	case viaPort:
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		env["PMI_PORT"] = ln.Addr().String()
		go func() {
			defer ln.Close()
			ln.(*net.TCPListener).SetDeadline(time.Now().Add(fakeTimeout))
			conn, err := ln.Accept()
			if err != nil {
				done <- fmt.Errorf("accept: %w", err)
				return
			}
			defer conn.Close()
			done <- serve(conn)
		}()
	default:
		t.Fatalf("unknown transport %q", transport)
	}
	t.Cleanup(func() {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("fake server: %v", err)
			}
		case <-time.After(fakeTimeout + time.Second):
			t.Errorf("fake server did not finish")
		}
	})
	return env
}

// scripted returns a fake server that plays script, then expects the client
// to close the connection.
func scripted(script []fakeStep) func(net.Conn) error {
	return func(conn net.Conn) error {
		conn.SetDeadline(time.Now().Add(fakeTimeout))
		r := bufio.NewReader(conn)
		for i, s := range script {
			line, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("step %d: waiting for %q: %w", i, s.want, err)
			}
			line = strings.TrimSuffix(line, "\n")
			if line != s.want {
				return fmt.Errorf("step %d: client sent %q, want %q", i, line, s.want)
			}
			if s.reply != "" && r.Buffered() > 0 {
				return fmt.Errorf("step %d: client sent more before the reply to %q: two requests in flight", i, line)
			}
			switch {
			case s.hangup:
				return nil
			case s.stall:
				if line, err := r.ReadString('\n'); err == nil {
					return fmt.Errorf("step %d: client sent %q while waiting for its reply", i, line)
				} else if !errors.Is(err, io.EOF) {
					return fmt.Errorf("step %d: stalled connection: %w", i, err)
				}
				return nil
			}
			if s.reply == "" {
				continue
			}
			if _, err := io.WriteString(conn, s.reply); err != nil {
				return fmt.Errorf("step %d: writing reply: %w", i, err)
			}
		}
		// A client that closes with a reply unread makes the kernel send
		// a reset; that is a close too.
		if line, err := r.ReadString('\n'); err == nil {
			return fmt.Errorf("after the script: client sent %q", line)
		} else if !errors.Is(err, io.EOF) && !errors.Is(err, unix.ECONNRESET) {
			return fmt.Errorf("after the script: want EOF: %w", err)
		}
		return nil
	}
}

// connect runs Connect against env with a bounded context and registers
// Close.
func connect(t *testing.T, env map[string]string, trace io.Writer) (*Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), fakeTimeout)
	defer cancel()
	c, err := Connect(ctx, ClientOptions{Getenv: mapEnv(env), Trace: trace})
	if c != nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), fakeTimeout)
	t.Cleanup(cancel)
	return ctx
}

// wantPeerError checks that err is a *Error with the given rc.
func wantPeerError(t *testing.T, err error, code int) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != code {
		t.Fatalf("error %v: want *Error with rc=%d", err, code)
	}
}

// TestClientQuirks replays the reply styles of Hydra 4.0.2, Hydra 4.2
// (found=TRUE), MPICH 5 Hydra (pmi_subversion=2), Slurm and Flux, over a
// socketpair and over loopback TCP.
func TestClientQuirks(t *testing.T) {
	tests := []struct {
		name       string
		script     []fakeStep
		connectErr string // substring of Connect's error; "" means success
		run        func(t *testing.T, ctx context.Context, c *Client)
	}{{
		name: "hydra",
		script: steps(hydraPrologue(), []fakeStep{
			{want: "cmd=get kvsname=kvs_1 key=PMI_process_mapping", reply: "cmd=get_result rc=0 msg=success value=(vector,(0,1,1))\n"},
			{want: "cmd=get kvsname=kvs_1 key=nokey", reply: "cmd=get_result rc=-1 msg=key_nokey_not_found value=unknown\n"},
			{want: "cmd=put kvsname=kvs_1 key=k value=v=1", reply: "cmd=put_result rc=0 msg=success\n"},
			{want: "cmd=barrier_in", reply: "cmd=barrier_out\n"},
			{want: "cmd=get_universe_size", reply: "cmd=universe_size size=2\n"},
			{want: "cmd=finalize", reply: "cmd=finalize_ack\n"},
		}),
		run: func(t *testing.T, ctx context.Context, c *Client) {
			if c.KVS() != "kvs_1" || c.AppNum() != 0 || c.MaxValueLen() != 674 || c.Singleton() {
				t.Errorf("kvs %q appnum %d maxvallen %d singleton %v; want kvs_1 0 674 false", c.KVS(), c.AppNum(), c.MaxValueLen(), c.Singleton())
			}
			if v, err := c.Get(ctx, "PMI_process_mapping"); err != nil || v != "(vector,(0,1,1))" {
				t.Errorf("Get = %q, %v", v, err)
			}
			_, err := c.Get(ctx, "nokey")
			if !errors.Is(err, ErrNoKey) {
				t.Errorf("Get missing: %v, want ErrNoKey", err)
			}
			wantPeerError(t, err, -1)
			if !strings.Contains(err.Error(), "key_nokey_not_found") {
				t.Errorf("error %q does not carry the server's msg", err)
			}
			if err := c.Put(ctx, "k", "v=1"); err != nil {
				t.Error(err)
			}
			if err := c.Barrier(ctx); err != nil {
				t.Error(err)
			}
			if n, err := c.UniverseSize(ctx); err != nil || n != 2 {
				t.Errorf("UniverseSize = %d, %v", n, err)
			}
			if err := c.Finalize(ctx); err != nil {
				t.Error(err)
			}
		},
	}, {
		name: "mpich5 pmi_subversion=2",
		script: steps(prologue(
			"cmd=response_to_init pmi_version=1 pmi_subversion=2 rc=0",
			"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024",
			"cmd=appnum appnum=0",
			"cmd=my_kvsname kvsname=kvs_5"),
			[]fakeStep{{want: "cmd=finalize", reply: "cmd=finalize_ack\n"}}),
		run: func(t *testing.T, ctx context.Context, c *Client) {
			if c.subversion != 2 {
				t.Errorf("subversion %d, want 2", c.subversion)
			}
			if err := c.Finalize(ctx); err != nil {
				t.Error(err)
			}
		},
	}, {
		name: "hydra 4.2 trailing found=TRUE",
		script: steps(hydraPrologue(), []fakeStep{
			{want: "cmd=get kvsname=kvs_1 key=k", reply: "cmd=get_result rc=0 msg=success value=abc=d found=TRUE\n"},
		}),
		run: func(t *testing.T, ctx context.Context, c *Client) {
			if v, err := c.Get(ctx, "k"); err != nil || v != "abc=d" {
				t.Errorf("Get = %q, %v; want abc=d", v, err)
			}
		},
	}, {
		name: "rc omitted on success",
		script: steps(prologue(
			"cmd=response_to_init pmi_version=1 pmi_subversion=1",
			"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024",
			"cmd=appnum appnum=0",
			"cmd=my_kvsname kvsname=kvs_1"), []fakeStep{
			{want: "cmd=put kvsname=kvs_1 key=k value=v", reply: "cmd=put_result\n"},
			{want: "cmd=get kvsname=kvs_1 key=k", reply: "cmd=get_result value=v\n"},
			{want: "cmd=barrier_in", reply: "cmd=barrier_out\n"},
			{want: "cmd=finalize", reply: "cmd=finalize_ack\n"},
		}),
		run: func(t *testing.T, ctx context.Context, c *Client) {
			if err := c.Put(ctx, "k", "v"); err != nil {
				t.Error(err)
			}
			if v, err := c.Get(ctx, "k"); err != nil || v != "v" {
				t.Errorf("Get = %q, %v", v, err)
			}
			if err := c.Barrier(ctx); err != nil {
				t.Error(err)
			}
			if err := c.Finalize(ctx); err != nil {
				t.Error(err)
			}
		},
	}, {
		name: "slurm rc=1 and appnum=-1",
		script: steps(prologue(
			"cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1",
			"cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024",
			"cmd=appnum rc=0 appnum=-1",
			"cmd=my_kvsname rc=0 kvsname=1234.0"), []fakeStep{
			{want: "cmd=get kvsname=1234.0 key=nokey", reply: "cmd=get_result rc=1\n"},
			{want: "cmd=put kvsname=1234.0 key=k value=v", reply: "cmd=put_result rc=1 msg=failed\n"},
			{want: "cmd=barrier_in", reply: "cmd=barrier_out rc=0\n"},
		}),
		run: func(t *testing.T, ctx context.Context, c *Client) {
			if c.AppNum() != 0 || c.appNum != -1 {
				t.Errorf("AppNum %d raw %d; want 0 and -1", c.AppNum(), c.appNum)
			}
			if c.KVS() != "1234.0" {
				t.Errorf("KVS %q", c.KVS())
			}
			_, err := c.Get(ctx, "nokey")
			if !errors.Is(err, ErrNoKey) {
				t.Errorf("Get missing: %v, want ErrNoKey", err)
			}
			wantPeerError(t, err, 1)
			err = c.Put(ctx, "k", "v")
			wantPeerError(t, err, 1)
			if errors.Is(err, ErrNoKey) {
				t.Errorf("failed put %v matches ErrNoKey", err)
			}
			// A failed request leaves the connection in step.
			if err := c.Barrier(ctx); err != nil {
				t.Error(err)
			}
		},
	}, {
		name: "flux rc=0 everywhere and rc=4",
		script: steps(prologue(
			"cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1",
			"cmd=maxes rc=0 kvsname_max=64 keylen_max=64 vallen_max=1024",
			"cmd=appnum rc=0 appnum=0",
			"cmd=my_kvsname rc=0 kvsname=f2xyz"), []fakeStep{
			{want: "cmd=put kvsname=f2xyz key=k value=v", reply: "cmd=put_result rc=0\n"},
			{want: "cmd=barrier_in", reply: "cmd=barrier_out rc=0\n"},
			{want: "cmd=get kvsname=f2xyz key=k", reply: "cmd=get_result rc=0 value=v\n"},
			{want: "cmd=get kvsname=f2xyz key=nokey", reply: "cmd=get_result rc=4\n"},
			{want: "cmd=get_universe_size", reply: "cmd=universe_size rc=0 size=2\n"},
			{want: "cmd=finalize", reply: "cmd=finalize_ack rc=0\n"},
		}),
		run: func(t *testing.T, ctx context.Context, c *Client) {
			if c.MaxValueLen() != 866 {
				t.Errorf("MaxValueLen %d, want 866", c.MaxValueLen())
			}
			if err := c.Put(ctx, "k", "v"); err != nil {
				t.Error(err)
			}
			if err := c.Barrier(ctx); err != nil {
				t.Error(err)
			}
			if v, err := c.Get(ctx, "k"); err != nil || v != "v" {
				t.Errorf("Get = %q, %v", v, err)
			}
			_, err := c.Get(ctx, "nokey")
			if !errors.Is(err, ErrNoKey) {
				t.Errorf("Get missing: %v, want ErrNoKey", err)
			}
			wantPeerError(t, err, 4)
			if n, err := c.UniverseSize(ctx); err != nil || n != 2 {
				t.Errorf("UniverseSize = %d, %v", n, err)
			}
			if err := c.Finalize(ctx); err != nil {
				t.Error(err)
			}
		},
	}, {
		name: "barrier fails with rc",
		script: steps(hydraPrologue(), []fakeStep{
			{want: "cmd=barrier_in", reply: "cmd=barrier_out rc=-1 msg=exchange_failed\n"},
		}),
		run: func(t *testing.T, ctx context.Context, c *Client) {
			err := c.Barrier(ctx)
			wantPeerError(t, err, -1)
		},
	}, {
		name: "wrong reply cmd",
		script: steps(hydraPrologue(), []fakeStep{
			{want: "cmd=put kvsname=kvs_1 key=k value=v", reply: "cmd=get_result rc=0 value=v\n"},
		}),
		run: func(t *testing.T, ctx context.Context, c *Client) {
			err := c.Put(ctx, "k", "v")
			if err == nil || !strings.Contains(err.Error(), `unexpected reply "cmd=get_result rc=0 value=v": want cmd=put_result`) {
				t.Fatalf("Put = %v, want an unexpected-reply error", err)
			}
			// The connection is out of step now: nothing more is sent.
			if _, err := c.Get(ctx, "k"); !errors.Is(err, ErrClosed) {
				t.Errorf("Get after a desynchronized reply: %v, want ErrClosed", err)
			}
		},
	}, {
		name: "reply line too long",
		script: steps(hydraPrologue(), []fakeStep{
			{want: "cmd=get kvsname=kvs_1 key=k", reply: "cmd=get_result rc=0 value=" + strings.Repeat("A", 1100) + "\n"},
		}),
		run: func(t *testing.T, ctx context.Context, c *Client) {
			_, err := c.Get(ctx, "k")
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), "1024-byte line limit") {
				t.Fatalf("Get = %v, want a *SyntaxError about the line limit", err)
			}
		},
	}, {
		name: "key length capped at 256",
		script: steps(prologue(
			"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0",
			"cmd=maxes kvsname_max=256 keylen_max=1000 vallen_max=1024",
			"cmd=appnum appnum=0",
			"cmd=my_kvsname kvsname=kvs_1")),
		run: func(t *testing.T, ctx context.Context, c *Client) {
			if c.keyMax != 256 || c.MaxValueLen() != 1024-256-256-30 {
				t.Errorf("keyMax %d MaxValueLen %d; want 256 and %d", c.keyMax, c.MaxValueLen(), 1024-256-256-30)
			}
		},
	}, {
		name: "vallen below the clamp is kept",
		script: steps(prologue(
			"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0",
			"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=256",
			"cmd=appnum appnum=0",
			"cmd=my_kvsname kvsname=kvs_1")),
		run: func(t *testing.T, ctx context.Context, c *Client) {
			if c.MaxValueLen() != 256 {
				t.Errorf("MaxValueLen %d, want 256", c.MaxValueLen())
			}
		},
	}, {
		name: "init rc=-1",
		script: []fakeStep{
			{want: "cmd=init pmi_version=1 pmi_subversion=1", reply: "cmd=response_to_init rc=-1 msg=version_mismatch\n"},
		},
		connectErr: "pmi: init failed: rc=-1 version_mismatch",
	}, {
		name: "init answers PMI 2.0",
		script: []fakeStep{
			{want: "cmd=init pmi_version=1 pmi_subversion=1", reply: "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n"},
		},
		connectErr: "want 1.x with x >= 1",
	}, {
		name: "init answers PMI 1.0",
		script: []fakeStep{
			{want: "cmd=init pmi_version=1 pmi_subversion=1", reply: "cmd=response_to_init pmi_version=1 pmi_subversion=0 rc=0\n"},
		},
		connectErr: "want 1.x with x >= 1",
	}, {
		name: "maxes leave no room for values",
		script: steps(prologue(
			"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0",
			"cmd=maxes kvsname_max=1000 keylen_max=64 vallen_max=1024",
			"", "")[:2]),
		connectErr: "leave -70 bytes for a value",
	}, {
		name: "maxes missing a field",
		script: steps(prologue(
			"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0",
			"cmd=maxes kvsname_max=256 keylen_max=64",
			"", "")[:2]),
		connectErr: "has no vallen_max",
	}, {
		name: "server hangs up during init",
		script: []fakeStep{
			{want: "cmd=init pmi_version=1 pmi_subversion=1", hangup: true},
		},
		connectErr: "server closed the connection",
	}}
	for _, transport := range []string{viaFD, viaPort} {
		for _, tc := range tests {
			t.Run(transport+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				env := startFake(t, transport, map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2"}, scripted(tc.script))
				c, err := connect(t, env, nil)
				if tc.connectErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.connectErr) {
						t.Fatalf("Connect error %v, want it to contain %q", err, tc.connectErr)
					}
					if c != nil {
						t.Fatalf("Connect returned a client with its error")
					}
					if tc.connectErr == "server closed the connection" && !errors.Is(err, ErrClosed) {
						t.Fatalf("Connect error %v does not match ErrClosed", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				if c.Rank() != 1 || c.Size() != 2 {
					t.Errorf("rank %d size %d, want 1 and 2 from PMI_RANK/PMI_SIZE", c.Rank(), c.Size())
				}
				tc.run(t, bounded(t), c)
				c.Close()
			})
		}
	}
}

// TestClientInitack covers port mode with PMI_ID: the initack prologue, its
// four reply lines in one write or dribbled, and malformed answers.
func TestClientInitack(t *testing.T) {
	const burst = "cmd=initack\ncmd=set size=4\ncmd=set rank=3\ncmd=set debug=0\n"
	const req = "cmd=initack pmiid=7"
	// answer reads the initack request, then writes each chunk separately
	// and hands over to the scripted prologue when ok.
	answer := func(chunks []string, then []fakeStep) func(net.Conn) error {
		return func(conn net.Conn) error {
			conn.SetDeadline(time.Now().Add(fakeTimeout))
			r := bufio.NewReader(conn)
			if line, err := r.ReadString('\n'); err != nil || line != req+"\n" {
				return fmt.Errorf("got %q, %v; want %q", line, err, req)
			}
			for _, c := range chunks {
				io.WriteString(conn, c)
				time.Sleep(5 * time.Millisecond)
			}
			return scripted(then)(&bufferedConn{conn, r})
		}
	}
	tests := []struct {
		name       string
		serve      func(net.Conn) error
		connectErr string
	}{
		{name: "one write", serve: answer([]string{burst}, hydraPrologue())},
		{name: "line by line", serve: answer(strings.SplitAfter(burst, "\n"), hydraPrologue())},
		{name: "split mid-line", serve: answer([]string{burst[:17], burst[17:]}, hydraPrologue())},
		{name: "wrong first line", serve: answer([]string{"cmd=set size=4\ncmd=initack\n"}, nil),
			connectErr: `unexpected reply "cmd=set size=4": want cmd=initack`},
		{name: "rank out of range", serve: answer([]string{"cmd=initack\ncmd=set size=4\ncmd=set rank=4\ncmd=set debug=0\n"}, nil),
			connectErr: `server sent rank "4"`},
		{name: "size missing", serve: answer([]string{"cmd=initack\ncmd=set rank=0\ncmd=set debug=0\ncmd=set debug=0\n"}, nil),
			connectErr: `server sent size ""`},
		{name: "hangup after two lines", connectErr: "server closed the connection",
			serve: func(conn net.Conn) error {
				r := bufio.NewReader(conn)
				r.ReadString('\n')
				io.WriteString(conn, "cmd=initack\ncmd=set size=4\n")
				return nil // the caller's deferred Close hangs up
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := startFake(t, viaPort, map[string]string{"PMI_ID": "7", "PMI_RANK": "0", "PMI_SIZE": "1"}, tc.serve)
			c, err := connect(t, env, nil)
			if tc.connectErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.connectErr) {
					t.Fatalf("Connect error %v, want it to contain %q", err, tc.connectErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Rank() != 3 || c.Size() != 4 {
				t.Errorf("rank %d size %d; want 3 and 4 from the server, not PMI_RANK/PMI_SIZE", c.Rank(), c.Size())
			}
			c.Close()
		})
	}
}

// bufferedConn is a net.Conn whose reads come through r, so a fake server
// can hand a connection it has partly read to scripted.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// TestClientConnectFailsLoudly checks that a set but unusable PMI_FD or
// PMI_PORT is an error, never a silent singleton.
func TestClientConnectFailsLoudly(t *testing.T) {
	// An fd number that is not open in this process.
	closedFD := -1
	for fd := 900; fd < 1000; fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); errors.Is(err, unix.EBADF) {
			closedFD = fd
			break
		}
	}
	if closedFD < 0 {
		t.Fatal("no closed fd number found in [900, 1000)")
	}
	file, err := os.CreateTemp(t.TempDir(), "notasocket")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	fileFD := int(file.Fd())
	udp, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(udp)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadPort := ln.Addr().String()
	ln.Close()

	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"PMI_FD not a number", map[string]string{"PMI_FD": "abc"}, `PMI_FD="abc": not a file descriptor number`},
		{"PMI_FD negative", map[string]string{"PMI_FD": "-1"}, "not a file descriptor number"},
		{"PMI_FD not open", map[string]string{"PMI_FD": strconv.Itoa(closedFD)}, "not an open socket: bad file descriptor"},
		{"PMI_FD a regular file", map[string]string{"PMI_FD": strconv.Itoa(fileFD)}, "not an open socket: socket operation on non-socket"},
		{"PMI_FD a datagram socket", map[string]string{"PMI_FD": strconv.Itoa(udp)}, "is not a stream socket"},
		{"PMI_FD wins over PMI_PORT", map[string]string{"PMI_FD": "abc", "PMI_PORT": "127.0.0.1:1"}, `PMI_FD="abc"`},
		{"PMI_RANK not a number", map[string]string{"PMI_FD": "abc", "PMI_RANK": "x"}, `PMI_RANK="x"`},
		{"PMI_SIZE zero", map[string]string{"PMI_FD": "abc", "PMI_SIZE": "0"}, `PMI_SIZE="0"`},
		{"PMI_RANK not below PMI_SIZE", map[string]string{"PMI_FD": "abc", "PMI_RANK": "2", "PMI_SIZE": "2"}, "PMI_RANK=2: must be below PMI_SIZE=2"},
		{"PMI_PORT closed", map[string]string{"PMI_PORT": deadPort}, "PMI_PORT=" + deadPort + ": connect failed"},
		{"PMI_PORT not host:port", map[string]string{"PMI_PORT": "nocolon"}, `PMI_PORT="nocolon": not host:port`},
		{"PMI_ID empty is unset", map[string]string{"PMI_PORT": deadPort, "PMI_ID": ""}, "connection refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := connect(t, tc.env, nil)
			if err == nil || c != nil {
				t.Fatalf("Connect = %v, %v; want an error", c, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Connect error %q, want it to contain %q", err, tc.want)
			}
		})
	}
	// A descriptor Connect refused is left alone.
	if _, err := unix.FcntlInt(uintptr(fileFD), unix.F_GETFD, 0); err != nil {
		t.Errorf("the refused regular-file fd was closed: %v", err)
	}
}

// TestClientBarrierInterrupted: a barrier that never completes returns when
// the context's deadline passes or it is cancelled; when the server closes
// the connection or the client is closed it returns ErrClosed. Afterwards
// the connection refuses requests.
func TestClientBarrierInterrupted(t *testing.T) {
	tests := []struct {
		name    string
		step    fakeStep
		ctx     func(context.Context) (context.Context, context.CancelFunc)
		closeIn time.Duration // close the client after this long; 0 never
		want    error
	}{
		{name: "deadline", step: fakeStep{want: "cmd=barrier_in", stall: true}, want: context.DeadlineExceeded,
			ctx: func(p context.Context) (context.Context, context.CancelFunc) {
				return context.WithTimeout(p, 150*time.Millisecond)
			}},
		{name: "cancel without deadline", step: fakeStep{want: "cmd=barrier_in", stall: true}, want: context.Canceled,
			ctx: func(p context.Context) (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(p)
				time.AfterFunc(100*time.Millisecond, cancel)
				return ctx, cancel
			}},
		{name: "server closes mid-barrier", step: fakeStep{want: "cmd=barrier_in", hangup: true}, want: ErrClosed,
			ctx: func(p context.Context) (context.Context, context.CancelFunc) { return context.WithCancel(p) }},
		{name: "client closed mid-barrier", step: fakeStep{want: "cmd=barrier_in", stall: true}, want: ErrClosed, closeIn: 100 * time.Millisecond,
			ctx: func(p context.Context) (context.Context, context.CancelFunc) { return context.WithCancel(p) }},
	}
	for _, transport := range []string{viaFD, viaPort} {
		for _, tc := range tests {
			t.Run(transport+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				env := startFake(t, transport, nil, scripted(steps(hydraPrologue(), []fakeStep{tc.step})))
				c, err := connect(t, env, nil)
				if err != nil {
					t.Fatal(err)
				}
				if tc.closeIn > 0 {
					time.AfterFunc(tc.closeIn, func() { c.Close() })
				}
				ctx, cancel := tc.ctx(t.Context())
				defer cancel()
				start := time.Now()
				err = c.Barrier(ctx)
				if el := time.Since(start); el > 2*time.Second {
					t.Errorf("Barrier took %v", el)
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("Barrier = %v, want %v", err, tc.want)
				}
				if _, err := c.Get(bounded(t), "k"); !errors.Is(err, ErrClosed) {
					t.Errorf("Get after an interrupted barrier = %v, want ErrClosed", err)
				}
				c.Close()
			})
		}
	}
}

// TestClientContextDoneBeforeSend: a request whose context is already done
// sends nothing and leaves the connection usable.
func TestClientContextDoneBeforeSend(t *testing.T) {
	env := startFake(t, viaFD, nil, scripted(steps(hydraPrologue(), []fakeStep{
		{want: "cmd=put kvsname=kvs_1 key=k value=2", reply: "cmd=put_result rc=0 msg=success\n"},
	})))
	c, err := connect(t, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Put(done, "k", "1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put with a done context = %v, want context.Canceled", err)
	}
	if err := c.Put(bounded(t), "k", "2"); err != nil {
		t.Fatalf("Put after a refused request: %v", err)
	}
	c.Close()
}

// signalWriter closes ch the first time a write contains s.
type signalWriter struct {
	s    string
	once sync.Once
	ch   chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(w.s)) {
		w.once.Do(func() { close(w.ch) })
	}
	return len(p), nil
}

// TestClientAbort: abort is sent without waiting for a reply, and without
// waiting for a barrier that is in flight in another goroutine.
func TestClientAbort(t *testing.T) {
	t.Run("alone", func(t *testing.T) {
		env := startFake(t, viaFD, nil, scripted(steps(hydraPrologue(), []fakeStep{
			{want: "cmd=abort exitcode=7"},
		})))
		c, err := connect(t, env, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Abort(7, "rank failed"); err != nil {
			t.Fatal(err)
		}
		c.Close()
		if err := c.Abort(7, ""); !errors.Is(err, ErrClosed) {
			t.Errorf("Abort after Close = %v, want ErrClosed", err)
		}
	})
	t.Run("during barrier", func(t *testing.T) {
		env := startFake(t, viaFD, nil, scripted(steps(hydraPrologue(), []fakeStep{
			{want: "cmd=barrier_in"},
			{want: "cmd=abort exitcode=3", hangup: true},
		})))
		sig := &signalWriter{s: "C: cmd=barrier_in", ch: make(chan struct{})}
		c, err := connect(t, env, sig)
		if err != nil {
			t.Fatal(err)
		}
		barrier := make(chan error, 1)
		go func() { barrier <- c.Barrier(bounded(t)) }()
		select {
		case <-sig.ch:
		case <-time.After(fakeTimeout):
			t.Fatal("barrier_in never sent")
		}
		if err := c.Abort(3, "giving up"); err != nil {
			t.Fatal(err)
		}
		// The server kills the job; here it hangs up.
		if err := <-barrier; !errors.Is(err, ErrClosed) {
			t.Errorf("Barrier = %v, want ErrClosed", err)
		}
		c.Close()
	})
}

// TestClientFinalize: finalize waits for finalize_ack and closes; a second
// Finalize sends nothing; later requests fail with ErrClosed.
func TestClientFinalize(t *testing.T) {
	env := startFake(t, viaFD, nil, scripted(steps(hydraPrologue(), []fakeStep{
		{want: "cmd=finalize", reply: "cmd=finalize_ack\n"},
	})))
	c, err := connect(t, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := bounded(t)
	for i := range 2 {
		if err := c.Finalize(ctx); err != nil {
			t.Fatalf("Finalize #%d: %v", i+1, err)
		}
	}
	if err := c.Put(ctx, "k", "v"); !errors.Is(err, ErrClosed) {
		t.Errorf("Put after Finalize = %v, want ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close after Finalize = %v", err)
	}
}

// TestClientPutValidation: bad keys and values are refused before anything
// is sent (the fake server would reject an unexpected line).
func TestClientPutValidation(t *testing.T) {
	ok63 := strings.Repeat("k", 63)
	ok674 := strings.Repeat("V", 674)
	env := startFake(t, viaFD, nil, scripted(steps(hydraPrologue(), []fakeStep{
		{want: "cmd=put kvsname=kvs_1 key=" + ok63 + " value=v", reply: "cmd=put_result rc=0\n"},
		{want: "cmd=put kvsname=kvs_1 key=k value=" + ok674, reply: "cmd=put_result rc=0\n"},
		{want: "cmd=put kvsname=kvs_1 key=k value=", reply: "cmd=put_result rc=0\n"},
	})))
	c, err := connect(t, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := bounded(t)
	tests := []struct {
		name, key, val, wantErr string
	}{
		{"longest key", ok63, "v", ""},
		{"longest value", "k", ok674, ""},
		{"empty value", "k", "", ""},
		{"empty key", "", "v", "pmi: put: empty key"},
		{"key at keylen_max", strings.Repeat("k", 64), "v", "key is 64 bytes: the server allows at most 63"},
		{"key with space", "a b", "v", "contains whitespace"},
		{"key with =", "a=b", "v", `key contains '='`},
		{"key with NUL", "a\x00b", "v", `key contains '\x00'`},
		{"value with space", "k", "a b", "contains whitespace"},
		{"value with newline", "k", "a\nb", "contains whitespace"},
		{"value with NUL", "k", "a\x00", "value contains NUL"},
		{"value too long", "k", ok674 + "V", "value is 675 bytes: the server allows at most 674"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := c.Put(ctx, tc.key, tc.val)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Put = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
	if _, err := c.Get(ctx, "a b"); err == nil {
		t.Error("Get of a key with a space was sent")
	}
	c.Close()
}

// clExchange is one request of a transcript and the reply lines to it.
type clExchange struct {
	req     string
	replies []string
}

// clTranscript reads a transcript: "C: " lines are requests, "S: " lines
// and unprefixed lines (the rest of a multi-line burst in proto-port-n2)
// are replies to the request before them.
func clTranscript(t *testing.T, path string) []clExchange {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ex []clExchange
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSuffix(line, "\n")
		if req, ok := strings.CutPrefix(line, "C: "); ok {
			ex = append(ex, clExchange{req: req})
			continue
		}
		if len(ex) == 0 {
			t.Fatalf("%s: reply before any request: %q", path, line)
		}
		reply, _ := strings.CutPrefix(line, "S: ")
		ex[len(ex)-1].replies = append(ex[len(ex)-1].replies, reply)
	}
	return ex
}

// TestClientTranscripts drives the client through the same calls MPICH
// 4.0.2 made in each captured transcript, against a fake server that
// checks every line the client sends equals the captured one and answers
// with the captured reply. The client's trace must reproduce the
// transcript, except for MPICH's repeated get_my_kvsname, which this client
// answers from its cache.
func TestClientTranscripts(t *testing.T) {
	tests := []struct {
		file       string
		rank, size int
	}{
		{"hydra-n2-rank0.txt", 0, 2},
		{"hydra-n2-rank1.txt", 1, 2},
		{"hydra-n4-rank0.txt", 0, 4},
		{"hydra-n4-rank1.txt", 1, 4},
		{"hydra-n4-rank2.txt", 2, 4},
		{"hydra-n4-rank3.txt", 3, 4},
		{"hydra-pmiport-n2-rank0.txt", 0, 2},
		{"proto-fd-n2/rank0.txt", 0, 2},
		{"proto-fd-n2/rank1.txt", 1, 2},
		{"proto-fd-n4/rank2.txt", 2, 4},
		{"proto-flux-n2/rank0.txt", 0, 2},
		{"proto-flux-n2/rank1.txt", 1, 2},
		{"proto-port-n2/rank0.txt", 0, 2},
		{"proto-port-n2/rank1.txt", 1, 2},
		{"proto-nomap-n2/rank0.txt", 0, 2},
		{"proto-nomap-n2/rank1.txt", 1, 2},
		{"proto-emptymap-n2/rank0.txt", 0, 2},
		{"proto-twonode-n2/rank1.txt", 1, 2},
		{"proto-twonode-n4/rank3.txt", 3, 4},
		{"proto-smallval-n2/rank0.txt", 0, 2},
		{"proto-smallval-n2/rank1.txt", 1, 2},
		{"proto-abort-n2/rank0.txt", 0, 2},
		{"proto-abort-n2/rank1.txt", 1, 2},
		{"proto-usize-n2/rank0.txt", 0, 2},
		{"proto-usize-n2/rank1.txt", 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			all := clTranscript(t, "testdata/transcripts/"+tc.file)
			var script []fakeStep
			var want strings.Builder
			var calls []clExchange // what the client must do after Connect
			prologueDone := false
			for _, e := range all {
				if e.req == "cmd=get_my_kvsname" && prologueDone {
					continue // cached by this client
				}
				script = append(script, fakeStep{want: e.req, reply: joinLines(e.replies)})
				fmt.Fprintf(&want, "C: %s\n", e.req)
				for _, r := range e.replies {
					fmt.Fprintf(&want, "S: %s\n", r)
				}
				if prologueDone {
					calls = append(calls, e)
				}
				if e.req == "cmd=get_my_kvsname" {
					prologueDone = true
				}
			}
			env := map[string]string{"PMI_RANK": strconv.Itoa(tc.rank), "PMI_SIZE": strconv.Itoa(tc.size)}
			transport := viaFD
			if id, ok := strings.CutPrefix(all[0].req, "cmd=initack pmiid="); ok {
				transport = viaPort
				env = map[string]string{"PMI_ID": id}
			}
			env = startFake(t, transport, env, scripted(script))
			var trace bytes.Buffer
			c, err := connect(t, env, &trace)
			if err != nil {
				t.Fatal(err)
			}
			if c.Rank() != tc.rank || c.Size() != tc.size {
				t.Errorf("rank %d size %d, want %d %d", c.Rank(), c.Size(), tc.rank, tc.size)
			}
			ctx := bounded(t)
			for _, e := range calls {
				clReplay(t, ctx, c, e)
			}
			c.Close()
			if got := trace.String(); got != want.String() {
				t.Errorf("trace differs from the transcript:\n got:\n%s\nwant:\n%s", got, want.String())
			}
		})
	}
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// clReplay makes the API call that sends e.req and checks its result
// against e's reply.
func clReplay(t *testing.T, ctx context.Context, c *Client, e clExchange) {
	t.Helper()
	m, err := ParseLine(e.req)
	if err != nil {
		t.Fatal(err)
	}
	var reply Msg
	if len(e.replies) > 0 {
		if reply, err = ParseLine(e.replies[0]); err != nil {
			t.Fatal(err)
		}
	}
	key, _ := m.Get("key")
	switch m.Cmd {
	case "get":
		v, err := c.Get(ctx, key)
		if rc, _ := reply.RC(); rc != 0 {
			if !errors.Is(err, ErrNoKey) {
				t.Errorf("Get(%q) = %q, %v; want ErrNoKey", key, v, err)
			}
			return
		}
		if want, _ := reply.Get("value"); err != nil || v != want {
			t.Errorf("Get(%q) = %q, %v; want %q", key, clip(v), err, clip(want))
		}
	case "put":
		val, _ := m.Get("value")
		if err := c.Put(ctx, key, val); err != nil {
			t.Errorf("Put(%q): %v", key, err)
		}
	case "barrier_in":
		if err := c.Barrier(ctx); err != nil {
			t.Errorf("Barrier: %v", err)
		}
	case "get_universe_size":
		n, err := c.UniverseSize(ctx)
		if want, _ := reply.Get("size"); err != nil || strconv.Itoa(n) != want {
			t.Errorf("UniverseSize = %d, %v; want %s", n, err, want)
		}
	case "abort":
		code, _ := m.Get("exitcode")
		n, _ := strconv.Atoi(code)
		if err := c.Abort(n, "transcript"); err != nil {
			t.Errorf("Abort: %v", err)
		}
	case "finalize":
		if err := c.Finalize(ctx); err != nil {
			t.Errorf("Finalize: %v", err)
		}
	default:
		t.Fatalf("transcript request %q has no client call", e.req)
	}
}

// TestClientConcurrent: requests from many goroutines are serialized, one in
// flight at a time (the fake server fails if a second request arrives
// before it has answered the first).
func TestClientConcurrent(t *testing.T) {
	kvs := newFakeKVS(1024)
	c := kvs.connect(t)
	ctx := bounded(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				key := fmt.Sprintf("g%d-%d", g, i)
				if err := c.Put(ctx, key, strconv.Itoa(i)); err != nil {
					t.Error(err)
					return
				}
				if err := c.Barrier(ctx); err != nil {
					t.Error(err)
					return
				}
				if v, err := c.Get(ctx, key); err != nil || v != strconv.Itoa(i) {
					t.Errorf("Get(%q) = %q, %v", key, v, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := c.Finalize(ctx); err != nil {
		t.Fatal(err)
	}
}

// fakeKVS is a one-rank PMI server with a real store, used where a test
// needs put and get to work rather than follow a script.
type fakeKVS struct {
	vallen int
	mu     sync.Mutex
	kv     map[string]string
	puts   []string // put request lines, in order
}

func newFakeKVS(vallen int) *fakeKVS {
	return &fakeKVS{vallen: vallen, kv: map[string]string{}}
}

// connect starts the server over a socketpair and returns a client of it.
func (f *fakeKVS) connect(t *testing.T) *Client {
	t.Helper()
	env := startFake(t, viaFD, nil, f.serve)
	c, err := connect(t, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fakeKVS) serve(conn net.Conn) error {
	conn.SetDeadline(time.Now().Add(fakeTimeout))
	r := bufio.NewReaderSize(conn, 4*MaxLine)
	for {
		line, err := r.ReadString('\n')
		if errors.Is(err, io.EOF) && line == "" {
			return nil
		}
		if err != nil {
			return err
		}
		if len(line) > MaxLine {
			return fmt.Errorf("request of %d bytes exceeds MaxLine", len(line))
		}
		if r.Buffered() > 0 {
			return fmt.Errorf("request %q: another arrived before the reply", line)
		}
		m, err := ParseLine(line)
		if err != nil {
			return err
		}
		key, _ := m.Get("key")
		var reply string
		switch m.Cmd {
		case "init":
			reply = "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"
		case "get_maxes":
			reply = fmt.Sprintf("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=%d", f.vallen)
		case "get_appnum":
			reply = "cmd=appnum appnum=0"
		case "get_my_kvsname":
			reply = "cmd=my_kvsname kvsname=kvs_fake"
		case "put":
			val, _ := m.Get("value")
			if len(val) > f.vallen {
				return fmt.Errorf("put %q: value of %d bytes exceeds vallen_max %d", key, len(val), f.vallen)
			}
			f.mu.Lock()
			f.kv[key] = val
			f.puts = append(f.puts, strings.TrimSuffix(line, "\n"))
			f.mu.Unlock()
			reply = "cmd=put_result rc=0 msg=success"
		case "get":
			f.mu.Lock()
			val, ok := f.kv[key]
			f.mu.Unlock()
			if ok {
				reply = "cmd=get_result rc=0 msg=success value=" + val
			} else {
				reply = "cmd=get_result rc=-1 msg=key_" + key + "_not_found value=unknown"
			}
		case "barrier_in":
			reply = "cmd=barrier_out"
		case "get_universe_size":
			reply = "cmd=universe_size size=1"
		case "finalize":
			reply = "cmd=finalize_ack"
		default:
			return fmt.Errorf("unexpected request %q", line)
		}
		if _, err := io.WriteString(conn, reply+"\n"); err != nil {
			return err
		}
	}
}

// store returns a copy of the server's store and put lines.
func (f *fakeKVS) store() (map[string]string, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	kv := make(map[string]string, len(f.kv))
	for k, v := range f.kv {
		kv[k] = v
	}
	return kv, append([]string(nil), f.puts...)
}
