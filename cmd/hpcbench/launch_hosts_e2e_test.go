package main

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// fakeHosts runs `hpcbench launch --hosts SPEC` with fake hosts: each
// proxy runs on this machine with HPCBENCH_HOSTNAME set to its host's
// name, and the control port and the ranks on loopback (--iface lo).
func fakeHosts(t *testing.T, dir, spec string, n int, prog string, args ...string) testenv.Result {
	t.Helper()
	largs := append([]string{"launch", "-n", strconv.Itoa(n), "--hosts", spec, "--rsh", "env HPCBENCH_HOSTNAME={host}", "--iface", "lo", "--", prog}, args...)
	return testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, hpcbench, largs...)
}

// TestLaunchHostsFake runs every benchmark across 3 fake hosts of 2 ranks
// each: the proxies start the ranks, serve their PMI with one barrier per
// host, and pass their output on; the run records see 3 hosts.
func TestLaunchHostsFake(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"wireup", []string{"wireup"}, []string{"Ranks               : 6", "Hosts               : 3 (h1, h2, h3)"}},
		{"coll", []string{"coll", "-check", "-iter", "10", "-msglog", "0:8", "Allreduce", "Bcast", "Alltoall"}, []string{"# #processes = 6", "ALL BENCHMARKS SUCCESSFUL"}},
		{"ior", []string{"ior", "-a", "POSIX", "-b", "1m", "-t", "64k", "-w", "-r", "-W", "-R", "-C", "-o", filepath.Join(dir, "ior")}, []string{"tasks               : 6", "clients per node    : 2"}},
		{"mdtest", []string{"mdtest", "-n", "20", "-u", "-d", filepath.Join(dir, "md")}, []string{"6 tasks, 120 files/directories"}},
		{"allpairs", []string{"fabric", "allpairs", "-I", "20", "--bw-iters", "4"}, []string{"Hosts               : 3 (h1, h2, h3)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := fakeHosts(t, dir, "h1:2,h2:2,h3:2", 6, hpcbench, c.args...)
			mustExit0(t, r)
			wantIn(t, r.Stdout, c.want...)
		})
	}
}

// TestLaunchHostsStdio: output lines are tagged with the job's ranks,
// each rank sees its host's share of the job, and stdin reaches rank 0
// through its proxy, the others reading nothing.
func TestLaunchHostsStdio(t *testing.T) {
	script := `echo "rank $PMI_RANK of $PMI_SIZE on $HPCBENCH_HOSTNAME local $MPI_LOCALRANKID/$MPI_LOCALNRANKS"; read x; echo "rank $PMI_RANK read <$x>"`
	largs := []string{"launch", "-n", "4", "--hosts", "h1:2,h2:2", "--rsh", "env HPCBENCH_HOSTNAME={host}", "--iface", "lo", "--tag-output", "--", "sh", "-c", script}
	cmd := testenv.Context(t, time.Minute)
	stdin := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(stdin, []byte("from the launcher\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := testenv.Run(t, cmd, "", noPMIEnv, "sh", append([]string{"-c", `exec "$0" "$@" <` + stdin, hpcbench}, largs...)...)
	mustExit0(t, r)
	wantIn(t, r.Stdout, "[0] rank 0 of 4 on h1 local 0/2", "[1] rank 1 of 4 on h1 local 1/2", "[2] rank 2 of 4 on h2 local 0/2",
		"[3] rank 3 of 4 on h2 local 1/2", "[0] rank 0 read <from the launcher>", "[1] rank 1 read <>", "[3] rank 3 read <>")
}

// TestLaunchHostsFailFast: a rank's failure names the rank and its host;
// a proxy killed mid-job ends the job at once naming its host; a program
// the hosts cannot start is a failure to start.
func TestLaunchHostsFailFast(t *testing.T) {
	t.Run("rank exits 3", func(t *testing.T) {
		r := fakeHosts(t, "", "h1:2,h2:2", 4, "sh", "-c", `[ "$PMI_RANK" = 3 ] && exit 3; exec sleep 60`)
		if r.Code != 3 || !strings.Contains(r.Stderr, "launch: rank 3 on host h2 exited with status 3; the other 3 ranks still running were terminated") {
			t.Errorf("exit %d, stderr:\n%s", r.Code, r.Stderr)
		}
	})
	t.Run("proxy killed", func(t *testing.T) {
		// Rank 2 kills its proxy, its parent (the proxy forks its ranks), by pid.
		start := time.Now()
		r := fakeHosts(t, "", "h1:2,h2:2", 4, "sh", "-c", `if [ "$PMI_RANK" = 2 ]; then kill -9 $PPID; fi; exec sleep 60`)
		if r.Code != 1 || !strings.Contains(r.Stderr, "launch: host h2: proxy lost: connection") {
			t.Errorf("exit %d, stderr:\n%s", r.Code, r.Stderr)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("the job took %v to end", d)
		}
	})
	t.Run("PMI failure names the host", func(t *testing.T) {
		// Rank 3 opens PMI and exits without finalize: its proxy's PMI
		// server sees the connection close and says so upstream.
		r := fakeHosts(t, "", "h1:2,h2:2", 4, "sh", "-c", `[ "$PMI_RANK" = 3 ] && { echo "cmd=init pmi_version=1 pmi_subversion=1" >&3; sleep 0.2; exit 0; }; exec sleep 60`)
		if r.Code != 1 || !strings.Contains(r.Stderr, "launch: rank 3 closed its PMI connection before finalize (on host h2)") {
			t.Errorf("exit %d, stderr:\n%s", r.Code, r.Stderr)
		}
	})
}

// TestLaunchHostsForkLauncher: --launcher fork (Hydra's -launcher fork)
// starts each host's proxy here with HPCBENCH_HOSTNAME set to its name,
// through no remote shell, and the job sees the hosts; -launcher rsh with
// -launcher-exec, Hydra's spelling of --rsh, runs the proxies through it.
func TestLaunchHostsForkLauncher(t *testing.T) {
	r := testenv.Run(t, testenv.Context(t, time.Minute), "", noPMIEnv, hpcbench, "launch", "-f", writeHostfile(t, "h1:2\nh2\nh3\n"),
		"-launcher", "fork", "--iface", "lo", "--", hpcbench, "wireup")
	mustExit0(t, r)
	wantIn(t, r.Stdout, "Ranks               : 4", "Hosts               : 3 (h1, h2, h3)")
	r = testenv.Run(t, testenv.Context(t, time.Minute), "", noPMIEnv, hpcbench, "launch", "-hosts", "h1,h2", "-launcher", "rsh",
		"-launcher-exec", "env HPCBENCH_HOSTNAME={host}", "--iface", "lo", "--tag-output", "--", "sh", "-c", `echo "on $HPCBENCH_HOSTNAME"`)
	mustExit0(t, r)
	wantIn(t, r.Stdout, "[0] on h1", "[1] on h2")
}

// writeHostfile writes a host file of text and returns its path.
func writeHostfile(t *testing.T, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestLaunchHostsProxyStopped: a proxy stopped mid-job (SIGSTOP: alive,
// its connection open, silent) is lost when its heartbeats stop, within
// the heartbeat deadline, and the launcher names its host.
func TestLaunchHostsProxyStopped(t *testing.T) {
	start := time.Now()
	// Rank 2 stops its proxy, its parent, by pid; the launcher's kill of
	// the job's ranks (process groups) does not reach the stopped proxy,
	// which dies with the launcher (its parent-death signal).
	r := fakeHosts(t, "", "h1:2,h2:2", 4, "sh", "-c", `if [ "$PMI_RANK" = 2 ]; then kill -STOP $PPID; fi; exec sleep 60`)
	if r.Code != 1 || !strings.Contains(r.Stderr, "launch: host h2: proxy lost: no heartbeat for 5s") {
		t.Errorf("exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the job took %v to end", d)
	}
}

// TestLaunchHostsVersionMismatch: a proxy of another hpcbench build
// (--proxy-path) is refused in one line naming its host and both
// versions (the proxy itself says nothing more), and the job ends at once
// with exit 1.
func TestLaunchHostsVersionMismatch(t *testing.T) {
	other := testenv.BuildVersion(t, "9.9-other")
	start := time.Now()
	r := testenv.Run(t, testenv.Context(t, time.Minute), "", noPMIEnv, hpcbench, "launch", "--hosts", "h1,h2",
		"--launcher", "fork", "--proxy-path", other, "--iface", "lo", "--", "sleep", "60")
	lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
	// Whichever proxy is first to connect is named; both are of the other build.
	first := strings.Contains(lines[0], "launch: host h1: its proxy is hpcbench 9.9-other") || strings.Contains(lines[0], "launch: host h2: its proxy is hpcbench 9.9-other")
	if r.Code != 1 || len(lines) != 1 || !first ||
		!strings.Contains(lines[0], ", the launcher hpcbench dev") || !strings.HasSuffix(lines[0], ": run the same hpcbench on every host (--proxy-path)") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and one line naming a host and both versions", r.Code, r.Stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the job took %v to end", d)
	}
}

// TestLaunchHostsImpostor: a connection to the control port that cannot
// prove the job's secret is refused and logged in one line, and the job
// goes on to exit 0.
func TestLaunchHostsImpostor(t *testing.T) {
	dir := t.TempDir()
	spy := filepath.Join(testenv.RepoRoot(t), "cmd", "hpcbench", "testdata", "launch", "rsh-spy.sh")
	done := make(chan string, 1)
	go func() {
		done <- impostor(filepath.Join(dir, "addr"), filepath.Join(dir, "go"))
	}()
	r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, "launch", "-n", "2", "--hosts", "h1,h2",
		"--rsh", spy+" "+dir+" {host}", "--iface", "lo", "--", "sh", "-c", `i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; [ -e go ]`)
	if msg := <-done; msg != "" {
		t.Fatal(msg)
	}
	mustExit0(t, r)
	lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "launch: refused a control connection from 127.0.0.1:") || !strings.HasSuffix(lines[0], ": no job secret") {
		t.Errorf("stderr:\n%s\nwant one line refusing the impostor", r.Stderr)
	}
}

// impostor waits for the control address in addrFile, connects without the
// secret, sends what a confused client might, checks that the launcher
// closes the connection, and then creates goFile to let the job end. It
// returns what went wrong, "" for nothing.
func impostor(addrFile, goFile string) string {
	defer os.WriteFile(goFile, nil, 0o644)
	var addr []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(addrFile); err == nil {
			addr = b
			break
		}
		if time.Now().After(deadline) {
			return "no control address within 30s"
		}
	}
	c, err := net.DialTimeout("tcp", strings.TrimSpace(string(addr)), 5*time.Second)
	if err != nil {
		return "impostor: " + err.Error()
	}
	defer c.Close()
	c.Write([]byte{0, 0, 0, 9, 2, 'n', 'o', 's', 'e', 'c', 'r', 'e', 't'})
	c.SetReadDeadline(time.Now().Add(15 * time.Second))
	b := make([]byte, 4096)
	for {
		if _, err := c.Read(b); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return "the launcher kept the impostor's connection open"
			}
			return ""
		}
	}
}

// TestLaunchHostsNS runs every benchmark across two network-namespace
// hosts under hpcbench launch: the launcher in the first host, a proxy
// on each started through the hosts' launcher script, the control port
// and the ranks on the hosts' network.
func TestLaunchHostsNS(t *testing.T) {
	h := testenv.RequireNSHosts(t)
	dir := t.TempDir()
	launch := func(prog string, args ...string) testenv.Result {
		t.Helper()
		largs := append([]string{"launch", "-n", "4", "--hosts", h.Addrs[0] + ":2," + h.Addrs[1] + ":2", "--rsh", h.Exec,
			"--iface", testenv.NSIface, "--", prog}, args...)
		name, cargs := h.In(0, hpcbench, largs...)
		return testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, name, cargs...)
	}
	acrossHosts(t, h, dir, filepath.Join(dir, "coll.json"), launch)
}

// TestLaunchHostsBind: --bind-to binds each host's ranks as the one-host
// launcher binds a job's: the proxy gives its local rank k the k-th core
// (round robin) of its host, so on two hosts of two ranks ranks 0 and 2
// share a CPU, as ranks 1 and 3 do, and no rank may run on two.
func TestLaunchHostsBind(t *testing.T) {
	r := testenv.Run(t, testenv.Context(t, time.Minute), "", noPMIEnv, hpcbench, "launch", "-n", "4", "--hosts", "h1:2,h2:2",
		"--rsh", "env HPCBENCH_HOSTNAME={host}", "--iface", "lo", "--bind-to", "hwthread", "--tag-output", "--",
		"sh", "-c", "grep Cpus_allowed_list /proc/self/status")
	mustExit0(t, r)
	cpus := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		rank, list, ok := strings.Cut(l, " Cpus_allowed_list:")
		if !ok {
			t.Fatalf("line %q\n%s", l, r.Stdout)
		}
		cpus[rank] = strings.TrimSpace(list)
	}
	if len(cpus) != 4 || cpus["[0]"] != cpus["[2]"] || cpus["[1]"] != cpus["[3]"] ||
		strings.ContainsAny(cpus["[0]"]+cpus["[1]"], ",-") || (runtime.NumCPU() > 1 && cpus["[0]"] == cpus["[1]"]) {
		t.Errorf("each host's local ranks should each have one CPU of their own, the same on both hosts: %v", cpus)
	}
}
