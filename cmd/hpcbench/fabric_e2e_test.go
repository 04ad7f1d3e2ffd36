package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/report"
)

// background is an hpcbench process started in its own process group.
type background struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	code           int
	took           time.Duration
}

// startBackground starts hpcbench args; the test's cleanup kills its
// process group if it is still running and waits for it.
func startBackground(t *testing.T, args ...string) *background {
	t.Helper()
	b := &background{done: make(chan struct{})}
	b.cmd = exec.Command(hpcbench, args...)
	b.cmd.Env = append(os.Environ(), noPMIEnv...)
	b.cmd.Dir = t.TempDir()
	b.cmd.Stdout, b.cmd.Stderr = &b.stdout, &b.stderr
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(b.done)
		err := b.cmd.Wait()
		b.took = time.Since(start)
		b.code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			b.code = ee.ExitCode()
		} else if err != nil {
			b.code = -1
		}
	}()
	t.Cleanup(func() {
		select {
		case <-b.done:
		default:
			_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
			<-b.done
		}
	})
	return b
}

// wait waits up to d for the process to exit and returns its status.
func (b *background) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-b.done:
		return b.code
	case <-time.After(d):
		t.Fatalf("still running after %v\nstdout:\n%s\nstderr:\n%s", d, b.stdout.String(), b.stderr.String())
		return -1
	}
}

// freePort returns a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitListening waits until some socket of this host listens on port, by
// /proc/net/tcp and tcp6 (a connection would be taken for the client).
func waitListening(t *testing.T, b *background, port int) {
	t.Helper()
	hex := fmt.Sprintf(":%04X ", port)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
			data, _ := os.ReadFile(f)
			for _, l := range strings.Split(string(data), "\n") {
				fields := strings.Fields(l)
				if len(fields) > 3 && strings.HasSuffix(fields[1]+" ", hex) && fields[3] == "0A" {
					return
				}
			}
		}
		select {
		case <-b.done:
			t.Fatalf("the server exited %d before listening:\n%s", b.code, b.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("nothing listens on port %d after 20 s", port)
}

// fabricJSON parses a fabric run's JSON and checks its sizes.
func fabricJSON(t *testing.T, r testenv.Result, test string, sizes int) *report.Result {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	res, err := report.ReadJSON(strings.NewReader(r.Stdout))
	if err != nil {
		t.Fatalf("JSON: %v\n%s", err, r.Stdout)
	}
	if res.Run.Benchmark != "fabric-"+test || len(res.Tables) != 1 || len(res.Tables[0].Rows) != sizes {
		t.Fatalf("benchmark %q, %d tables, want fabric-%s with %d rows\n%s", res.Run.Benchmark, len(res.Tables), test, sizes, r.Stdout)
	}
	return res
}

// TestFabricServerClient: a server and a client on 127.0.0.1 (tcp, and
// the RMA tests over tcp and shm) both print the same fi_pingpong table,
// every message acknowledged and checked.
func TestFabricServerClient(t *testing.T) {
	for _, tc := range []struct{ test, provider string }{{"pingpong", "tcp"}, {"bw", "tcp"}, {"rma_pingpong", "tcp"}, {"rma_bw", "tcp"}, {"rma_pingpong", "shm"}, {"rma_bw", "shm"}} {
		test := tc.test
		t.Run(test+"/"+tc.provider, func(t *testing.T) {
			// The server is given another -I: it runs the client's plan and says so.
			srv := serverClient(t, test, []string{"-I", "7"}, "-p", tc.provider)
			if want := "ran the client's plan; this server's -I differ(s) from it"; !strings.Contains(srv.stderr.String(), want) {
				t.Errorf("server's stderr %q: want %q", srv.stderr.String(), want)
			}
		})
	}
}

// serverClient runs fabric test as a server (with serverOnly added) and a
// client on 127.0.0.1, both with flags, 64 B, 4 KiB and 1 MiB, 300
// iterations checked, and fails t unless both exit 0 and print the same
// fi_pingpong table with every message acknowledged. It returns the server.
func serverClient(t *testing.T, test string, serverOnly []string, flags ...string) *background {
	t.Helper()
	port := strconv.Itoa(freePort(t))
	srv := startBackground(t, append(append(append([]string{"fabric", test}, flags...), "-B", port, "--timeout", "20s"), serverOnly...)...)
	waitListening(t, srv, mustAtoi(t, port))
	r := run(t, time.Minute, append(append([]string{"fabric", test}, flags...), "-P", port, "-S", "64,4k,1m", "-I", "300", "-c", "127.0.0.1")...)
	if r.Code != 0 {
		t.Fatalf("client: exit %d\n%s", r.Code, r.Stderr)
	}
	if code := srv.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("server: exit %d\n%s", code, srv.stderr.String())
	}
	if srv.stdout.String() != r.Stdout {
		t.Errorf("the two ends differ:\nserver:\n%s\nclient:\n%s", srv.stdout.String(), r.Stdout)
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "bytes   #sent   #ack     total") {
		t.Fatalf("table:\n%s", r.Stdout)
	}
	for i, size := range []string{"64", "4k", "1m"} {
		f := strings.Fields(lines[i+1])
		if f[0] != size || f[1] != "300" || f[2] != "=300" {
			t.Errorf("row %q: want %s, 300 sent, all acknowledged", lines[i+1], size)
		}
	}
	return srv
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFabricLaunched: launched on 2 ranks, over shm and tcp, -S all, the
// RMA tests over both, and under Debian's mpiexec.
func TestFabricLaunched(t *testing.T) {
	for _, p := range []string{"shm", "tcp"} {
		r := run(t, time.Minute, "launch", "-n", "2", "--", "hpcbench", "fabric", "pingpong", "-p", p, "-S", "all", "--max-size", "4k", "-I", "200", "-c", "--format", "json")
		res := fabricJSON(t, r, "pingpong", 13)
		if res.Run.Env["provider"] != p || res.Run.Env["role"] != "launched" || res.Run.Env["transport"] != p {
			t.Errorf("%s: env %v", p, res.Run.Env)
		}
	}
	r := run(t, time.Minute, "launch", "-n", "2", "--", "hpcbench", "fabric", "bw", "-p", "shm", "-S", "1m", "-D", "0.6", "--report-interval", "100ms", "--format", "json")
	res := fabricJSON(t, r, "bw", 1)
	row := res.Tables[0].Rows[0]
	if n := len(row.Samples[report.FabMinMBps]); n != 6 {
		t.Errorf("-D 0.6 --report-interval 100ms: %d intervals, want 6 (the last one too)", n)
	}
	// The RMA tests over shm's cross-memory attach and over tcp's
	// frames, every write checked.
	for _, p := range []string{"shm", "tcp"} {
		for _, test := range []string{"rma_bw", "rma_pingpong"} {
			r = run(t, time.Minute, "launch", "-n", "2", "--", "hpcbench", "fabric", test, "-p", p, "-S", "1,4k,1m", "-I", "200", "-c", "--format", "json")
			res := fabricJSON(t, r, test, 3)
			for _, row := range res.Tables[0].Rows {
				if row.Metrics[0] != 200 || row.Metrics[1] != 200 {
					t.Errorf("%s -p %s, %s bytes: sent %g acked %g", test, p, row.Labels[0], row.Metrics[0], row.Metrics[1])
				}
			}
		}
	}
	mpiexec := testenv.RequireTool(t, "mpiexec.mpich", "mpiexec.hydra", "mpiexec")
	r = testenv.Run(t, testenv.Context(t, time.Minute), "", noPMIEnv, mpiexec, "-n", "2", hpcbench, "fabric", "pingpong", "-p", "shm", "-S", "64", "-I", "500", "--format", "json")
	fabricJSON(t, r, "pingpong", 1)
}

// TestFabricPeerGone: a server whose client is killed mid-test, or
// stopped, fails with exit 1 within its --timeout, naming the client.
func TestFabricPeerGone(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGSTOP} {
		t.Run(sig.String(), func(t *testing.T) {
			port := strconv.Itoa(freePort(t))
			srv := startBackground(t, "fabric", "pingpong", "-B", port, "--timeout", "2s")
			waitListening(t, srv, mustAtoi(t, port))
			cl := startBackground(t, "fabric", "pingpong", "-P", port, "-S", "64", "-D", "60", "127.0.0.1")
			time.Sleep(time.Second)
			if err := syscall.Kill(-cl.cmd.Process.Pid, sig); err != nil {
				t.Fatal(err)
			}
			at := time.Now()
			if code := srv.wait(t, 10*time.Second); code != 1 {
				t.Fatalf("server: exit %d, want 1\n%s", code, srv.stderr.String())
			}
			if d := time.Since(at); d > 4*time.Second {
				t.Errorf("the server took %v after the client's %v", d, sig)
			}
			msg := srv.stderr.String()
			if !strings.Contains(msg, "client 127.0.0.1:") || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
				t.Errorf("server's message %q: want one line naming the client", msg)
			}
			if sig == syscall.SIGSTOP && !strings.Contains(msg, "for 2s (--timeout)") {
				t.Errorf("server's message %q: want the timeout", msg)
			}
		})
	}
}

// TestFabricNoServer: a client whose server is not there says so and
// exits 1: at once when nothing listens, within --timeout when the port
// takes the connection and never answers.
func TestFabricNoServer(t *testing.T) {
	port := strconv.Itoa(freePort(t))
	r := run(t, time.Minute, "fabric", "pingpong", "-P", port, "127.0.0.1")
	if r.Code != 1 || !strings.Contains(r.Stderr, "server 127.0.0.1:"+port) || !strings.Contains(r.Stderr, "is hpcbench fabric pingpong running there?") {
		t.Errorf("nothing listening: exit %d, %q", r.Code, r.Stderr)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	start := time.Now()
	r = run(t, time.Minute, "fabric", "pingpong", "--timeout", "1s", "-P", strconv.Itoa(l.Addr().(*net.TCPAddr).Port), "127.0.0.1")
	if r.Code != 1 || !strings.Contains(r.Stderr, "no answer to the hello") {
		t.Errorf("silent server: exit %d, %q", r.Code, r.Stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("silent server: took %v with --timeout 1s", d)
	}
}

// TestFabricBadInput: bad options exit 2 with one line naming the option,
// before any work.
func TestFabricBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frob"}, `unknown test "frob": want one of pingpong, bw, rma_bw, rma_pingpong, allpairs, info`},
		{[]string{"pingpong", "-e", "rdm"}, "-e rdm: -p tcp has one endpoint type, msg"},
		{[]string{"pingpong", "-p", "shm", "--event"}, "--event are verbs' options: -p shm has none of them"},
		{[]string{"rma_pingpong", "-p", "shm", "-S", "0"}, "-S 0: must be 1 to"},
		{[]string{"pingpong", "-p", "ib"}, "-p ib: no such provider: want one of tcp, shm, verbs"},
		{[]string{"pingpong", "-p", "tcp", "-d", "nosuch0"}, "-d nosuch0: no such interface or local address: have lo"},
		{[]string{"pingpong", "-p", "shm", "-d", "mlx5_0"}, "-d mlx5_0: shm has no devices"},
		{[]string{"pingpong", "-S", "2g"}, `-S "2g": want sizes of 0 to 1g`},
		{[]string{"pingpong", "-S", "x"}, `-S "x"`},
		{[]string{"bw", "-W", "0"}, "-W 0: must be 1 to"},
		{[]string{"pingpong", "-I", "0"}, "-I 0: must be 1 to"},
		{[]string{"pingpong", "--report-interval", "1s"}, "--report-interval needs -D"},
		{[]string{"pingpong", "-D", "1", "--report-interval", "2s"}, "must not be longer than -D"},
		{[]string{"pingpong", "-D", "soon"}, "want seconds"},
		{[]string{"pingpong", "-P", "70000", "h"}, "-P 70000: must be a port"},
		{[]string{"pingpong", "h1", "h2"}, "one server HOST at most"},
		{[]string{"pingpong", "--json", "--csv"}, "--csv"},
		{[]string{"info", "-p", "ib"}, "-p ib: no such provider"},
		{[]string{"info", "-p", "tcp", "-d", "nosuch0"}, "-d nosuch0: no such interface"},
		{[]string{"allpairs", "-p", "verbs"}, "-p verbs: fabric/verbs: built without -tags verbs"},
		{[]string{"allpairs", "-p", "ib"}, "-p ib: no such provider: want one of tcp, shm, verbs"},
		{[]string{"coll", "--fabric", "verbs", "Barrier"}, "coll: --fabric verbs: fabric/verbs: built without -tags verbs"},
		{[]string{"coll", "--fabric", "ib", "Barrier"}, `coll: --fabric "ib": want auto, ofi:PROVIDER or one of shm, tcp`},
	} {
		args := append([]string{"fabric"}, tc.args...)
		if tc.args[0] == "coll" {
			args = tc.args
		}
		r := run(t, 30*time.Second, args...)
		if r.Code != 2 || !strings.Contains(r.Stderr, tc.want) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || r.Stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q: want 2 and one line with %q", tc.args, r.Code, r.Stdout, r.Stderr, tc.want)
		}
	}
}

// TestFabricInfo lists every provider, and one with -p.
func TestFabricInfo(t *testing.T) {
	r := run(t, 30*time.Second, "fabric", "info")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, w := range []string{"provider: tcp\n    interface lo: 127.0.0.1/8", "a 12-byte header per message", "    RMA: one-sided writes and reads", "provider: shm\n    host: ", "/dev/shm: ", "provider: verbs\n"} {
		if !strings.Contains(r.Stdout, w) {
			t.Errorf("info lacks %q:\n%s", w, r.Stdout)
		}
	}
	r = run(t, 30*time.Second, "fabric", "info", "-p", "tcp", "-d", "lo")
	if r.Code != 0 || strings.Contains(r.Stdout, "provider: shm") || !strings.Contains(r.Stdout, "interface lo:") {
		t.Errorf("-p tcp -d lo: exit %d\n%s", r.Code, r.Stdout)
	}
}

// TestFabricAllpairs: on 4 and 5 ranks, each on a host of its own name
// (HPCBENCH_HOSTNAME), every pair of hosts is measured once, the matrices
// are full, and the pair slowed on purpose (100 ms a message: 2.6 MB/s,
// where the others make hundreds of MB/s even with test.sh's packages
// running beside them; at 10 ms the spread of a loaded machine hid it in
// one run of several) is named first; on one
// host without --ranks there is no pair, said in one line, exit 2.
func TestFabricAllpairs(t *testing.T) {
	for _, n := range []int{4, 5} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			script := `HPCBENCH_HOSTNAME=node$PMI_RANK; export HPCBENCH_HOSTNAME; exec "$0" fabric allpairs -p tcp --bw-size 256k --bw-iters 16 -W 8 -I 20 -w 1 --test-slow-link 1:3:100ms --format json`
			r := testenv.Run(t, testenv.Context(t, 2*time.Minute), "", noPMIEnv, hpcbench, "launch", "-n", strconv.Itoa(n), "--", "sh", "-c", script, hpcbench)
			if r.Code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
			res, err := report.ReadJSON(strings.NewReader(r.Stdout))
			if err != nil {
				t.Fatal(err)
			}
			if res.Run.Benchmark != report.BenchmarkFabricAllpairs || len(res.Tables) != 3 {
				t.Fatalf("benchmark %q, %d tables", res.Run.Benchmark, len(res.Tables))
			}
			pairs := res.Tables[0]
			if len(pairs.Rows) != n*(n-1)/2 {
				t.Fatalf("%d pairs, want %d", len(pairs.Rows), n*(n-1)/2)
			}
			seen := map[string]bool{}
			for _, row := range pairs.Rows {
				k := row.Labels[0] + "-" + row.Labels[1]
				if seen[k] || row.Labels[0] >= row.Labels[1] {
					t.Errorf("pair %s twice or out of order", k)
				}
				seen[k] = true
			}
			var slow []string
			for _, note := range pairs.Notes {
				if strings.HasPrefix(note, "slow link: ") {
					slow = append(slow, note)
				}
			}
			// Slowest first. Five processes on two shared CPUs can slow
			// another link by half now and then, which is named too.
			if len(slow) == 0 || !strings.HasPrefix(slow[0], "slow link: node1 <-> node3: ") {
				t.Errorf("slow links %q: want node1 <-> node3 first", slow)
			}
			for _, m := range res.Tables[1:] {
				if len(m.Rows) != n || len(m.Columns) != n+1 {
					t.Errorf("%s: %d rows, %d columns", m.Name, len(m.Rows), len(m.Columns))
				}
			}
		})
	}
	// One host: its ranks are the pairs, said in one line.
	r := run(t, time.Minute, "launch", "-n", "3", "--", "hpcbench", "fabric", "allpairs", "-I", "50", "--bw-iters", "8", "--format", "json")
	res := allpairsJSON(t, r)
	if r.Stderr != "hpcbench: fabric allpairs: note: the job has one host ("+res.Run.Hostnames[0]+"): measuring every pair of its 3 ranks, as --ranks does\n" ||
		len(res.Tables) == 0 || len(res.Tables[0].Rows) != 3 {
		t.Errorf("one host: stderr %q, want the one note and 3 pairs", r.Stderr)
	}
	// One rank: no pair at all, refused in one line from the rank, then the launcher's.
	r = run(t, time.Minute, "launch", "-n", "1", "--", "hpcbench", "fabric", "allpairs")
	if r.Code != 2 || strings.Count(r.Stderr, "no pair to measure") != 1 || !strings.HasPrefix(r.Stderr, "hpcbench: fabric allpairs: the job has 1 rank on ") {
		t.Errorf("one rank: exit %d, %q", r.Code, r.Stderr)
	}
}

// TestFabricCSVHeader: the CSV header says each unit once, and the unit
// the values are in (seconds under sec/xfer and p50(s), not "usec/xfer(s)";
// "MB/sec", not "MB/sec(MB/s)").
func TestFabricCSVHeader(t *testing.T) {
	r := run(t, time.Minute, "launch", "-n", "2", "--", "hpcbench", "fabric", "pingpong", "-p", "shm", "-S", "64", "-I", "100", "--format", "csv")
	mustExit0(t, r)
	header, _, _ := strings.Cut(r.Stdout, "\n")
	testenv.Golden(t, filepath.Join("testdata", "fabric_csv_header.golden"), []byte(header+"\n"), *update)
}
