package launch

import (
	"bufio"
	"bytes"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/version"
)

func TestProxyLine(t *testing.T) {
	secret := bytes.Repeat([]byte{0xab}, secretLen)
	line := proxyLine(3, "10.0.0.1:4000", secret)
	tk, err := parseProxyLine(strings.TrimSuffix(line, "\n"))
	if err != nil || tk.index != 3 || tk.addr != "10.0.0.1:4000" || !bytes.Equal(tk.secret, secret) {
		t.Fatalf("parseProxyLine(%q) = %+v, %v", line, tk, err)
	}
	hexSecret := strings.Repeat("ab", secretLen)
	for _, bad := range []string{
		"",
		"hello",
		"hpcbench-proxy 2 0 10.0.0.1:1 " + hexSecret,
		"hpcbench-proxy 1 -1 10.0.0.1:1 " + hexSecret,
		"hpcbench-proxy 1 0 nohostport " + hexSecret,
		"hpcbench-proxy 1 0 10.0.0.1:1 abcd",
		"hpcbench-proxy 1 0 10.0.0.1:1 " + hexSecret + " extra",
	} {
		_, err := parseProxyLine(bad)
		if err == nil {
			t.Errorf("parseProxyLine(%q) accepted it", bad)
		} else if strings.Contains(err.Error(), hexSecret) {
			t.Errorf("parseProxyLine(%q): the error quotes the secret: %v", bad, err)
		}
	}
}

func TestRshArgv(t *testing.T) {
	for _, tc := range []struct {
		rsh  []string
		want string
	}{
		{nil, "ssh -o BatchMode=yes h2 /bin/hpcbench __proxy"},
		{[]string{"ip", "netns", "exec", "{host}"}, "ip netns exec h2 /bin/hpcbench __proxy"},
		{[]string{"env", "HPCBENCH_HOSTNAME={host}"}, "env HPCBENCH_HOSTNAME=h2 /bin/hpcbench __proxy"},
	} {
		if got := strings.Join(rshArgv(tc.rsh, "h2", "/bin/hpcbench", ProxyCommand), " "); got != tc.want {
			t.Errorf("rshArgv(%q) = %q, want %q", tc.rsh, got, tc.want)
		}
	}
}

func TestProcessMappingOf(t *testing.T) {
	for _, tc := range []struct {
		hosts []HostRanks
		n     int
		want  string
	}{
		{[]HostRanks{{"a", []int{0, 1}}, {"b", []int{2, 3}}}, 4, "(vector,(0,2,2))"},
		{[]HostRanks{{"a", []int{0, 2}}, {"b", []int{1, 3}}}, 4, "(vector,(0,2,1))"},
		{[]HostRanks{{"a", []int{0, 1, 2}}, {"b", []int{3}}}, 4, "(vector,(0,1,3),(1,1,1))"},
	} {
		if got := processMappingOf(tc.hosts); got != tc.want {
			t.Errorf("processMappingOf(%v) = %q, want %q", tc.hosts, got, tc.want)
		}
	}
}

// testHostSet is a launcher's control port for two hosts, with its
// events and its lines.
func testHostSet(t *testing.T) (*hostSet, chan procEvent, *bytes.Buffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	secret := bytes.Repeat([]byte{7}, secretLen)
	events := make(chan procEvent, 8)
	var lines bytes.Buffer
	hs := &hostSet{o: Options{N: 2}, secret: secret, ln: ln, events: events, hostOf: []int{0, 1},
		stderr: &lineWriter{w: &lines}, quit: make(chan struct{}), ended: make(chan struct{}, 2), failed: make(chan struct{}),
		proxies: []*proxyConn{{index: 0, name: "h1", ranks: []int{0}}, {index: 1, name: "h2", ranks: []int{1}}}}
	hs.jobOf = func(p *proxyConn) *proxyJob {
		return &proxyJob{host: p.name, kvs: "kvs", mapping: "(vector,(0,2,1))", size: 2, ranks: p.ranks, command: []string{"true"}}
	}
	hs.wg.Go(hs.acceptLoop)
	t.Cleanup(func() {
		close(hs.quit)
		ln.Close()
		for _, p := range hs.proxies {
			if p.conn != nil {
				p.conn.Close()
			}
		}
		hs.wg.Wait()
	})
	return hs, events, &lines
}

// dialProxy connects to hs as proxy index with secret and version.
func dialProxy(t *testing.T, hs *hostSet, index int, secret []byte, ver string) (*proxyJob, error) {
	t.Helper()
	c, err := net.Dial("tcp", hs.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return proxyHandshake(c, bufio.NewReader(c), proxyTicket{index: index, addr: hs.ln.Addr().String(), secret: secret}, ver)
}

// TestHandshake: a proxy with the job's secret gets its part of the job;
// a connection without it is refused and logged, and the job goes on; a
// proxy of another version ends the job naming its host and both
// versions.
func TestHandshake(t *testing.T) {
	hs, events, lines := testHostSet(t)
	said := func() string { // the launcher's lines so far
		hs.stderr.mu.Lock()
		defer hs.stderr.mu.Unlock()
		return lines.String()
	}
	state := func(p *proxyConn) (connected, over bool) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.connected, p.over
	}
	job, err := dialProxy(t, hs, 1, hs.secret, version.String())
	if err != nil || job.host != "h2" || len(job.ranks) != 1 || job.ranks[0] != 1 {
		t.Fatalf("the proxy of h2 got %+v, %v", job, err)
	}
	if c, _ := state(hs.proxies[1]); !c {
		t.Error("h2's proxy is not recorded connected")
	}

	// An impostor: the wrong secret, then no proof at all.
	if _, err := dialProxy(t, hs, 0, bytes.Repeat([]byte{8}, secretLen), version.String()); err == nil {
		t.Error("a proxy with the wrong secret got the job")
	}
	c, err := net.Dial("tcp", hs.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [512]byte
	for {
		if _, err := c.Read(b[:]); err != nil {
			break // closed by the launcher, after its hello
		}
	}
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(said(), "no job secret") < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for _, l := range strings.Split(strings.TrimSpace(said()), "\n") {
		if !strings.HasPrefix(l, "launch: refused a control connection from 127.0.0.1:") || !strings.HasSuffix(l, ": no job secret") {
			t.Errorf("launcher line %q", l)
		}
	}
	if n := strings.Count(said(), "\n"); n != 2 {
		t.Errorf("%d launcher lines, want 2:\n%s", n, said())
	}
	if c, o := state(hs.proxies[0]); c || o {
		t.Error("an impostor took h1's place")
	}
	select {
	case ev := <-events:
		t.Fatalf("an impostor ended the job: %+v", ev)
	default:
	}

	// A proxy of another version: refused, and the job ends.
	if _, err := dialProxy(t, hs, 0, hs.secret, "hpcbench 0.9"); err == nil || !strings.Contains(err.Error(), "version mismatch") {
		t.Errorf("the proxy of another version was told %v", err)
	}
	select {
	case ev := <-events:
		want := "host h1: its proxy is hpcbench 0.9, the launcher " + version.String() + ": run the same hpcbench on every host (--proxy-path)"
		if ev.kind != evHostLost || ev.err.Error() != want || len(ev.lost) != 1 || ev.lost[0] != 0 {
			t.Errorf("event %+v (%v), want the loss of h1: %s", ev, ev.err, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a proxy of another version did not end the job")
	}
}

// TestJobBeforeBeats: a heartbeat (or any frame) sent to every proxy while
// one is finishing its handshake never reaches it before its job; before
// attach, one of 1,000 simulated hosts' proxies now and then read a beat
// where its job belonged ("the launcher sent a frame of type 12").
func TestJobBeforeBeats(t *testing.T) {
	for i := 0; i < 200; i++ {
		hs, _, _ := testHostSet(t)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			beat := emptyFrame(ctlBeat)
			for {
				select {
				case <-stop:
					return
				default:
					hs.proxies[1].send(beat)
				}
			}
		})
		job, err := dialProxy(t, hs, 1, hs.secret, version.String())
		close(stop)
		wg.Wait()
		if err != nil || job.host != "h2" {
			t.Fatalf("try %d: the proxy of h2 got %+v, %v", i, job, err)
		}
	}
}
