package main

import (
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric/ucx"
	"github.com/hpcbench/hpcbench/internal/testenv"
)

// requireUCX skips a test when UCX's library is not installed, naming the
// package, and sets UCX_TLS (unless tls is empty) for the processes it
// starts.
func requireUCX(t *testing.T, tls string) {
	t.Helper()
	if err := ucx.Available(); err != nil {
		t.Skipf("UCX is not installed (Debian: apt-get install libucx0): %v", err)
	}
	if tls != "" {
		t.Setenv("UCX_TLS", tls)
	}
}

// TestFabricUCXServerClient: a server and a client on this host over
// -p ucx, by shared memory and by TCP, messages and RMA, print the same
// table with every transfer acknowledged and checked.
func TestFabricUCXServerClient(t *testing.T) {
	for _, tc := range []struct{ test, tls string }{
		{"pingpong", "posix,self"}, {"bw", "posix,self"}, {"rma_bw", "cma,posix,self"}, {"pingpong", "tcp"}, {"rma_pingpong", "tcp"},
	} {
		t.Run(tc.test+"/"+tc.tls, func(t *testing.T) {
			requireUCX(t, tc.tls)
			serverClient(t, tc.test, nil, "-p", "ucx")
		})
	}
}

// TestFabricUCXLaunched: under hpcbench launch -n 2, -p ucx pingpong and
// rma_bw with every transfer checked; on 3 ranks, allpairs -p ucx (checked)
// and coll --fabric ucx -check.
func TestFabricUCXLaunched(t *testing.T) {
	requireUCX(t, "posix,self")
	for _, test := range []string{"pingpong", "rma_bw"} {
		r := run(t, time.Minute, "launch", "-n", "2", "--", "hpcbench", "fabric", test, "-p", "ucx", "-S", "1,4k,1m", "-I", "200", "-c", "--format", "json")
		res := fabricJSON(t, r, test, 3)
		if res.Run.Env["provider"] != "ucx" || res.Run.Env["transport"] != "ucx" {
			t.Errorf("%s: env %v", test, res.Run.Env)
		}
		for _, row := range res.Tables[0].Rows {
			if row.Metrics[0] != 200 || row.Metrics[1] != 200 {
				t.Errorf("%s, %s bytes: sent %g acked %g", test, row.Labels[0], row.Metrics[0], row.Metrics[1])
			}
		}
	}
	r := run(t, 2*time.Minute, "launch", "-n", "3", "--", "hpcbench", "fabric", "allpairs", "-p", "ucx", "--ranks", "--bw-size", "64k", "--bw-iters", "8", "-I", "20", "-c")
	if r.Code != 0 || !strings.Contains(r.Stdout, "bandwidth matrix") {
		t.Fatalf("allpairs -p ucx: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r = run(t, 2*time.Minute, "launch", "-n", "3", "--", "hpcbench", "coll", "--fabric", "ucx", "-check", "-msglog", "0:16", "-iter", "20", "Allreduce", "Bcast", "Barrier")
	if r.Code != 0 || !strings.Contains(r.Stdout, "ALL BENCHMARKS SUCCESSFUL") {
		t.Fatalf("coll --fabric ucx: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// ucxVolatile are the parts of fabric info -p ucx that depend on the
// host: UCX's version and its transports and devices.
var ucxVolatile = []*regexp.Regexp{
	regexp.MustCompile(`UCX [0-9][0-9.]*`),
	regexp.MustCompile(`transports/devices: .*`),
}

// TestFabricInfoUCX: fabric info -p ucx as testdata/fabric-info-ucx.golden
// has it, with the version and the host's transports masked; the
// transports of this host include shared memory and tcp on lo, and -d lo
// keeps lo and the memory transports only.
func TestFabricInfoUCX(t *testing.T) {
	requireUCX(t, "")
	r := testenv.Run(t, testenv.Context(t, 30*time.Second), "", []string{"UCX_TLS=all"}, hpcbench, "fabric", "info", "-p", "ucx")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, w := range []string{"posix/memory", "tcp/lo"} {
		if !strings.Contains(r.Stdout, w) {
			t.Errorf("info lacks %q:\n%s", w, r.Stdout)
		}
	}
	masked := r.Stdout
	for _, re := range ucxVolatile {
		masked = re.ReplaceAllString(masked, "<"+strings.Fields(re.String())[0]+">")
	}
	testenv.Golden(t, "testdata/fabric-info-ucx.golden", []byte(masked), *update)
	r = testenv.Run(t, testenv.Context(t, 30*time.Second), "", []string{"UCX_TLS=all"}, hpcbench, "fabric", "info", "-p", "ucx", "-d", "lo")
	if r.Code != 0 || !strings.Contains(r.Stdout, "tcp/lo") || strings.Contains(r.Stdout, "tcp/eth") {
		t.Errorf("-d lo: exit %d\n%s", r.Code, r.Stdout)
	}
	r = run(t, 30*time.Second, "fabric", "info", "-p", "ucx", "-d", "nosuchdev")
	if r.Code != 2 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, "-d nosuchdev") {
		t.Errorf("-d nosuchdev: exit %d, stderr %q: want 2 and one line naming it", r.Code, r.Stderr)
	}
}

// TestFabricUCXPeerGone: a -p ucx server whose client is killed mid-test
// fails with exit 1 well before its --timeout (the client's pid is gone),
// in one line naming the client.
func TestFabricUCXPeerGone(t *testing.T) {
	requireUCX(t, "posix,self")
	port := strconv.Itoa(freePort(t))
	srv := startBackground(t, "fabric", "pingpong", "-p", "ucx", "-B", port, "--timeout", "30s")
	waitListening(t, srv, mustAtoi(t, port))
	cl := startBackground(t, "fabric", "pingpong", "-p", "ucx", "-P", port, "-S", "64", "-D", "60", "127.0.0.1")
	time.Sleep(time.Second)
	if err := syscall.Kill(-cl.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	if code := srv.wait(t, 20*time.Second); code != 1 {
		t.Fatalf("server: exit %d, want 1\n%s", code, srv.stderr.String())
	}
	if d := time.Since(at); d > 5*time.Second {
		t.Errorf("the server took %v after the client's SIGKILL (its --timeout is 30s)", d)
	}
	msg := srv.stderr.String()
	if !strings.Contains(msg, "client 127.0.0.1:") || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
		t.Errorf("server's message %q: want one line naming the client", msg)
	}
}

// TestFabricUCXBadDevice: a -d that UCX does not list is one line and
// exit 2, before any work.
func TestFabricUCXBadDevice(t *testing.T) {
	requireUCX(t, "")
	r := run(t, 30*time.Second, "fabric", "pingpong", "-p", "ucx", "-d", "nosuchdev", "127.0.0.1")
	if r.Code != 2 || r.Stdout != "" || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, "-d nosuchdev: UCX has no network device") {
		t.Errorf("exit %d, stdout %q, stderr %q: want 2 and one line naming -d", r.Code, r.Stdout, r.Stderr)
	}
}
