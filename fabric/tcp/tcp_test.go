package tcp

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
)

// newTransport returns a transport with o, failing t on a validation error.
func newTransport(t testing.TB, o Options) *Transport {
	t.Helper()
	tr, err := New(o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	return tr
}

func TestConformance(t *testing.T) {
	fabrictest.TestTransport(t, newTransport(t, Options{}))
}

func TestConformanceLoopbackListen(t *testing.T) {
	if testing.Short() {
		t.Skip("the default listen address already runs the whole suite")
	}
	fabrictest.TestTransport(t, newTransport(t, Options{Listen: "127.0.0.1:0"}))
}

func BenchmarkTCP(b *testing.B) {
	tr := newTransport(b, Options{})
	fabrictest.BenchConnPair(b, func(b *testing.B) (x, y fabric.Conn) { return fabrictest.Pair(b, tr) })
}

// BenchmarkFiPingpong is the counterpart of `fi_pingpong -p tcp -e msg -S
// SIZE` for the sizes scripts compare: round trips whose ns/xfer is
// fi_pingpong's usec/xfer (one way) and whose MB/s counts both directions,
// as fi_pingpong's MB/sec does.
func BenchmarkFiPingpong(b *testing.B) {
	tr := newTransport(b, Options{})
	mk := func(b *testing.B) (x, y fabric.Conn) { return fabrictest.Pair(b, tr) }
	for _, tc := range []struct {
		name string
		size int
	}{{"8B", 8}, {"4MiB", 4 << 20}} {
		b.Run(tc.name, func(b *testing.B) { fabrictest.BenchRoundTrip(b, mk, tc.size) })
	}
}

// TestNoAllocs pins the hot path: a round trip with a reused context
// allocates nothing, on either side.
func TestNoAllocs(t *testing.T) {
	a, b := fabrictest.Pair(t, newTransport(t, Options{}))
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{
		{"Background", context.Background()},
		{"Cancellable", t.Context()},
	} {
		msg := make([]byte, 64)
		buf := make([]byte, 64)
		roundTrip := func() {
			if err := a.Send(tc.ctx, 1, msg); err != nil {
				t.Fatal(err)
			}
			n, err := b.Recv(tc.ctx, 1, buf)
			if err != nil || n != len(msg) {
				t.Fatalf("Recv = %d, %v", n, err)
			}
			if err := b.Send(tc.ctx, 2, buf[:n]); err != nil {
				t.Fatal(err)
			}
			if _, err := a.Recv(tc.ctx, 2, buf); err != nil {
				t.Fatal(err)
			}
		}
		roundTrip() // registers the cancellable context's watch
		if got := testing.AllocsPerRun(100, roundTrip); got != 0 {
			t.Errorf("%s: a round trip allocates %v times; want 0", tc.name, got)
		}
	}
}

// TestStrayConnections checks that Accept drops connections that are not
// ranks (garbage, silence, an early hang-up) and returns the real rank.
func TestStrayConnections(t *testing.T) {
	tr := newTransport(t, Options{Listen: "127.0.0.1:0", HandshakeTimeout: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ln, err := tr.Listen(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	hostport := strings.TrimPrefix(ln.Addr(), "tcp://")

	var strays []net.Conn
	defer func() {
		for _, c := range strays {
			c.Close()
		}
	}()
	for _, opening := range []string{"GET / HTTP/1.0\r\n\r\n", "", "HPC"} {
		c, err := net.Dial("tcp", hostport)
		if err != nil {
			t.Fatal(err)
		}
		strays = append(strays, c)
		if opening != "" {
			if _, err := io.WriteString(c, opening); err != nil {
				t.Fatal(err)
			}
		}
	}
	strays[2].(*net.TCPConn).CloseWrite() // "HPC", then a hang-up

	// The real rank waits behind the strays, so it must not share the
	// acceptor's short handshake timeout.
	dialer := newTransport(t, Options{})
	dialed := make(chan error, 1)
	go func() {
		c, err := dialer.Dial(ctx, 7, ln.Addr())
		if err == nil {
			c.Close()
		}
		dialed <- err
	}()
	c, peer, err := ln.Accept(ctx)
	if err != nil {
		t.Fatalf("Accept after stray connections: %v", err)
	}
	defer c.Close()
	if peer != 7 {
		t.Errorf("Accept returned rank %d; want 7", peer)
	}
	if err := <-dialed; err != nil {
		t.Errorf("Dial: %v", err)
	}
	// The strays were closed without an answer.
	for i, s := range strays {
		s.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := s.Read(make([]byte, 64)); n != 0 || err == nil || isTimeout(err) {
			t.Errorf("stray connection %d: Read = %d, %v; want the connection closed", i, n, err)
		}
	}
}

// TestVersionMismatch checks that an acceptor refuses a rank of another wire
// version with an error naming both, and answers first so the dialer can too.
func TestVersionMismatch(t *testing.T) {
	tr := newTransport(t, Options{Listen: "127.0.0.1:0"})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ln, err := tr.Listen(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", strings.TrimPrefix(ln.Addr(), "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := appendHello(nil, 9)
	h[4] = 99 // version 99
	if _, err := c.Write(h); err != nil {
		t.Fatal(err)
	}
	_, _, err = ln.Accept(ctx)
	if !errors.Is(err, errVersion) || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("Accept from a version-99 rank: %v; want a version mismatch naming 99", err)
	}
	reply := make([]byte, helloLen)
	if _, err := io.ReadFull(c, reply); err != nil {
		t.Fatalf("reading the acceptor's answer: %v", err)
	}
	if got, err := parseHello(reply); err != nil || got.version != WireVersion || got.rank != 3 {
		t.Errorf("acceptor answered %+v, %v; want version %d rank 3", got, err, WireVersion)
	}
}

// TestDialNotHPCB checks that dialing something that is not a rank fails
// in the handshake, and that a silent server fails within the timeout.
func TestDialNotHPCB(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan struct{})
	go func() {
		defer close(served)
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if i == 0 {
				io.WriteString(c, "SSH-2.0-OpenSSH_9.2\r\n")
			}
			defer c.Close() // keep the second one silent until the test ends
		}
	}()
	defer func() { ln.Close(); <-served }()

	tr := newTransport(t, Options{HandshakeTimeout: 300 * time.Millisecond})
	addr := "tcp://" + ln.Addr().String()
	if _, err := tr.Dial(t.Context(), 1, addr); !errors.Is(err, errStray) {
		t.Errorf("Dial of an ssh server: %v; want an error wrapping %v", err, errStray)
	}
	start := time.Now()
	_, err = tr.Dial(t.Context(), 1, addr)
	if err == nil || !strings.Contains(err.Error(), "no answer") {
		t.Errorf("Dial of a silent server: %v; want no answer within the handshake timeout", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Dial of a silent server took %v; handshake timeout is 300ms", took)
	}
}

// TestInterruptedSend checks what a Send interrupted within a message does:
// the peer's Recv fails with ErrClosed after the whole messages, later Sends
// fail, and the interrupted side can still receive.
func TestInterruptedSend(t *testing.T) {
	a, b := fabrictest.Pair(t, newTransport(t, Options{}))
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	big := make([]byte, 1<<20)
	var err error
	sent := 0
	for ; sent < 256 && err == nil; sent++ {
		err = a.Send(ctx, 1, big)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Send to a peer that does not receive: %v after %d MiB; want DeadlineExceeded", err, sent)
	}
	interrupted := strings.Contains(err.Error(), "interrupted after")
	t.Logf("Send timed out after %d MiB: %v", sent-1, err)

	got := 0
	for {
		n, err := b.Recv(t.Context(), 1, big)
		if err != nil {
			if interrupted && !errors.Is(err, fabric.ErrClosed) {
				t.Errorf("peer Recv after an interrupted Send: %v; want ErrClosed", err)
			}
			break
		}
		if n != len(big) {
			t.Fatalf("peer received a %d-byte message; want only whole %d-byte ones", n, len(big))
		}
		got++
		if !interrupted && got == sent-1 {
			break
		}
	}
	if interrupted {
		if err := a.Send(t.Context(), 1, []byte("x")); !errors.Is(err, fabric.ErrClosed) {
			t.Errorf("Send after an interrupted Send: %v; want ErrClosed", err)
		}
	}
	if err := b.Send(t.Context(), 2, []byte("still")); err != nil {
		t.Fatalf("peer Send back: %v", err)
	}
	buf := make([]byte, 16)
	if n, err := a.Recv(t.Context(), 2, buf); err != nil || string(buf[:n]) != "still" {
		t.Errorf("Recv on the interrupted side = %q, %v; want \"still\"", buf[:n], err)
	}
}

func TestAddr(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		opts Options
		want string // prefix of Addr; "" checks only its form
	}{
		{Options{Listen: "127.0.0.1:0"}, "tcp://127.0.0.1:"},
		{Options{Listen: "127.0.0.1:0", Publish: "node7.example"}, "tcp://node7.example:"},
		{Options{}, ""},
	} {
		ln, err := newTransport(t, tc.opts).Listen(ctx, 0)
		if err != nil {
			t.Fatalf("%+v: Listen: %v", tc.opts, err)
		}
		addr := ln.Addr()
		ln.Close()
		hostport, err := parseAddr(addr)
		if err != nil {
			t.Errorf("%+v: Addr() = %q: %v", tc.opts, addr, err)
			continue
		}
		if !strings.HasPrefix(addr, tc.want) {
			t.Errorf("%+v: Addr() = %q; want prefix %q", tc.opts, addr, tc.want)
		}
		if tc.want == "" {
			host, _, _ := net.SplitHostPort(hostport)
			if ip := net.ParseIP(host); ip == nil || ip.To4() == nil {
				t.Errorf("%+v: Addr() = %q; want an IPv4 address", tc.opts, addr)
			}
		}
	}
}

func TestPickIPv4(t *testing.T) {
	ips := func(s ...string) []net.IPAddr {
		var out []net.IPAddr
		for _, a := range s {
			out = append(out, net.IPAddr{IP: net.ParseIP(a)})
		}
		return out
	}
	tests := []struct {
		in   []net.IPAddr
		want string
	}{
		{ips("10.1.2.3"), "10.1.2.3"},                           // the plain case
		{ips("127.0.1.1", "fe80::1", "192.0.2.2"), "192.0.2.2"}, // Debian's 127.0.1.1 and IPv6 skipped
		{ips("192.0.2.2", "10.1.2.3"), "192.0.2.2"},             // the first one wins
		{ips("127.0.0.1"), "127.0.0.1"},                         // loopback only
		{ips("2001:db8::1"), "127.0.0.1"},                       // IPv6 only
		{nil, "127.0.0.1"},                                      // nothing resolved
	}
	for _, tt := range tests {
		if got := fabric.PickIPv4(tt.in); got != tt.want {
			t.Errorf("PickIPv4(%v) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestReachable(t *testing.T) {
	tr := newTransport(t, Options{})
	for addr, want := range map[string]bool{
		"tcp://10.0.0.1:7000":   true,
		"tcp://[2001:db8::1]:1": true,
		"tcp://node7:7000":      true,
		"shm://vm/123":          false,
		"10.0.0.1:7000":         false,
		"":                      false,
	} {
		if got := tr.Reachable(addr); got != want {
			t.Errorf("Reachable(%q) = %v; want %v", addr, got, want)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		opts   Options
		errHas string // "" means valid
	}{
		// HAPPY PATH
		{Options{}, ""},                               // all defaults
		{Options{Listen: "0.0.0.0:7000"}, ""},         // fixed port
		{Options{Listen: "[::1]:0"}, ""},              // IPv6
		{Options{Listen: ":0", Publish: "node7"}, ""}, // published name
		{Options{Publish: "2001:db8::1"}, ""},         // IPv6 published bare
		{Options{HandshakeTimeout: time.Second}, ""},  // explicit timeout

		// SAD PATH
		{Options{Listen: "0.0.0.0"}, "host:port"},         // no port
		{Options{Listen: ":http"}, "must be a number"},    // service names not accepted
		{Options{Listen: ":70000"}, "must be a number"},   // port out of range
		{Options{Publish: "node7:7000"}, "without port"},  // port in publish
		{Options{Publish: "[::1]"}, "without port"},       // brackets
		{Options{Publish: "tcp://node7"}, "without port"}, // a whole address
		{Options{HandshakeTimeout: -time.Second}, "negative"},
	}
	for _, tt := range tests {
		err := tt.opts.Validate()
		if tt.errHas == "" {
			if err != nil {
				t.Errorf("Validate(%+v) = %v; want nil", tt.opts, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.errHas) {
			t.Errorf("Validate(%+v) = %v; want an error containing %q", tt.opts, err, tt.errHas)
		}
		if _, err := New(tt.opts); err == nil {
			t.Errorf("New(%+v) succeeded; want Validate's error", tt.opts)
		}
	}
}

func TestDialBadAddress(t *testing.T) {
	tr := newTransport(t, Options{})
	for _, addr := range []string{"shm://vm/1", "tcp://nohostport", "127.0.0.1:1"} {
		if _, err := tr.Dial(t.Context(), 0, addr); err == nil || !strings.Contains(err.Error(), "tcp://host:port") {
			t.Errorf("Dial(%q) = %v; want an address error", addr, err)
		}
	}
	if _, err := tr.Dial(t.Context(), -1, "tcp://127.0.0.1:1"); err == nil {
		t.Error("Dial as rank -1 succeeded")
	}
}

func FuzzParseHello(f *testing.F) {
	f.Add(appendHello(nil, 0))
	f.Add(appendHello(nil, math.MaxInt32))
	f.Add([]byte("GET / HTTP/1.0\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parseHello(b)
		if err != nil {
			if !errors.Is(err, errStray) {
				t.Fatalf("parseHello(%q): error %v does not wrap errStray", b, err)
			}
			return
		}
		if h.rank < 0 {
			t.Fatalf("parseHello(%q): rank %d", b, h.rank)
		}
		if h.version == WireVersion {
			if again := appendHello(nil, h.rank); string(again[:4]) != string(b[:4]) || string(again[8:]) != string(b[8:]) {
				t.Fatalf("parseHello(%q) = %+v does not round-trip: %q", b, h, again)
			}
		}
	})
}
