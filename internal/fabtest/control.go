package fabtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// DefaultPort is the control port of server/client mode, fabtests'.
const DefaultPort = 47592

// controlVersion is the version of the control exchange; both ends must
// speak the same.
const controlVersion = 1

// hello is the client's first line on the control connection; welcome the
// server's answer.
type hello struct {
	Version  int    `json:"version"`
	Test     string `json:"test"`
	Provider string `json:"provider"`
}

type welcome struct {
	Addr  string `json:"addr,omitempty"`  // the data listener, for Dial
	Error string `json:"error,omitempty"` // why the server refuses
}

// OpenFunc returns the transport of the run's provider for an end whose
// control connection runs over the local IP address local: a TCP
// transport publishes that address, which the other end can reach.
type OpenFunc func(local net.IP) (fabric.Transport, error)

// Accept is the server's side of server/client mode: it waits on the
// control port of listen (":47592") for one client until ctx ends,
// checks that the client runs the same test over the same provider, opens
// the data listener of open's transport, sends its address, and returns
// the client's connection and its control address. timeout bounds each
// step after the client connects.
func Accept(ctx context.Context, listen, test, provider string, open OpenFunc, timeout time.Duration) (fabric.Conn, string, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", listen)
	if err != nil {
		return nil, "", fmt.Errorf("control port %s: %w", listen, err)
	}
	defer ln.Close()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	c, err := ln.Accept()
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", fmt.Errorf("no client connected to %s: %w", listen, context.Cause(ctx))
		}
		return nil, "", fmt.Errorf("control port %s: %w", listen, err)
	}
	defer c.Close()
	peer := c.RemoteAddr().String()
	_ = c.SetDeadline(deadline(timeout))
	var h hello
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&h); err != nil {
		return nil, peer, fmt.Errorf("control connection from %s: not an hpcbench fabric client: %w", peer, err)
	}
	refuse := func(why string) (fabric.Conn, string, error) {
		_ = json.NewEncoder(c).Encode(welcome{Error: why})
		return nil, peer, fmt.Errorf("client %s: %s", peer, why)
	}
	switch {
	case h.Version != controlVersion:
		return refuse(fmt.Sprintf("control version %d, this server speaks %d: run the same hpcbench on both ends", h.Version, controlVersion))
	case h.Test != test:
		return refuse(fmt.Sprintf("the client runs %s, this server %s", h.Test, test))
	case h.Provider != provider:
		return refuse(fmt.Sprintf("the client asked for -p %s, this server runs -p %s", h.Provider, provider))
	}
	local := c.LocalAddr().(*net.TCPAddr).IP
	tr, err := open(local)
	if err != nil {
		return refuse(err.Error())
	}
	l, err := tr.Listen(ctx, 0)
	if err != nil {
		return refuse(fmt.Sprintf("open the %s listener: %v", provider, err))
	}
	defer l.Close()
	if err := json.NewEncoder(c).Encode(welcome{Addr: l.Addr()}); err != nil {
		return nil, peer, fmt.Errorf("control connection to %s: %w", peer, err)
	}
	actx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	conn, _, err := l.Accept(actx)
	if err != nil {
		return nil, peer, fmt.Errorf("client %s did not connect to %s within %v: %w", peer, l.Addr(), timeout, err)
	}
	return conn, peer, nil
}

// Connect is the client's side: it connects to the server's control port
// at server (host:port), from local port src unless it is 0, sends its
// test and provider, and dials the data listener the server names. Every
// step has timeout.
func Connect(ctx context.Context, server string, src int, test, provider string, open OpenFunc, timeout time.Duration) (fabric.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	if src > 0 {
		d.LocalAddr = &net.TCPAddr{Port: src}
	}
	c, err := d.DialContext(ctx, "tcp", server)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Timeout() {
			return nil, fmt.Errorf("server %s: no answer within %v (--timeout)", server, timeout)
		}
		return nil, fmt.Errorf("server %s: %w (is hpcbench fabric %s running there?)", server, err, test)
	}
	defer c.Close()
	_ = c.SetDeadline(deadline(timeout))
	if err := json.NewEncoder(c).Encode(hello{Version: controlVersion, Test: test, Provider: provider}); err != nil {
		return nil, fmt.Errorf("server %s: %w", server, err)
	}
	var w welcome
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&w); err != nil {
		return nil, fmt.Errorf("server %s: no answer to the hello: %w", server, err)
	}
	if w.Error != "" {
		return nil, fmt.Errorf("server %s refused: %s", server, w.Error)
	}
	tr, err := open(c.LocalAddr().(*net.TCPAddr).IP)
	if err != nil {
		return nil, err
	}
	if !tr.Reachable(w.Addr) {
		return nil, fmt.Errorf("server %s: its %s address %s cannot be reached from here", server, provider, w.Addr)
	}
	dctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	conn, err := tr.Dial(dctx, 1, w.Addr)
	if err != nil {
		return nil, fmt.Errorf("server %s: connect to %s: %w", server, w.Addr, err)
	}
	return conn, nil
}

// HostPort returns host with port added when it has none.
func HostPort(host string, port int) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// deadline is now plus d, or no deadline for d <= 0.
func deadline(d time.Duration) time.Time {
	if d <= 0 {
		return time.Time{}
	}
	return time.Now().Add(d)
}

// withTimeout is context.WithTimeout, without a limit for d <= 0.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
