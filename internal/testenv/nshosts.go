package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// NSHosts are hosts on this machine for tests across hosts: network
// namespaces on one network (a bridge), each host's interface named
// NSIface with an address of its own, and a launcher script (Exec) that
// runs a command "on" a host the way ssh would, with the host's own host
// name (a UTS namespace). The file system is shared. scripts/nshosts.sh
// makes and removes them: the one home of the fixture, which
// scripts/faults.sh uses too.
type NSHosts struct {
	// Names are the namespaces, Addrs their addresses, Hostnames the
	// host names commands see there, in host order.
	Names, Addrs, Hostnames []string
	// Exec is the launcher script: Exec HOST CMD... runs CMD (one shell
	// word list, as rsh takes it) in HOST's namespace; HOST is an
	// address of Addrs or a name of Hostnames.
	Exec string

	ip, unshare string // the commands
	script, dir string // scripts/nshosts.sh and the hosts' directory
}

// NSIface is the name of every host's interface on the network between
// the hosts.
const NSIface = "hb0"

// RequireNSHosts makes two namespace hosts for the test (RequireNSHostsN).
func RequireNSHosts(t testing.TB) *NSHosts { return RequireNSHostsN(t, 2) }

// RequireNSHostsN makes n namespace hosts (2 to 8) for the test with
// scripts/nshosts.sh and removes them when it ends. It skips, saying why,
// where this machine forbids it (not root, no CAP_NET_ADMIN, no ip or
// unshare), or fails under RequireToolsEnv=1.
func RequireNSHostsN(t testing.TB, n int) *NSHosts {
	t.Helper()
	ip := RequireTool(t, "ip")
	unshare := RequireTool(t, "unshare")
	skip := func(format string, a ...any) {
		t.Helper()
		what := fmt.Sprintf(format, a...)
		if os.Getenv(RequireToolsEnv) == "1" {
			t.Fatalf("%s (%s=1 makes a missing fixture a failure)", what, RequireToolsEnv)
		}
		t.Skip(what)
	}
	if os.Geteuid() != 0 {
		skip("network-namespace hosts need root (ip netns add, veth)")
	}
	script := filepath.Join(RepoRoot(t), "scripts", "nshosts.sh")
	dir := t.TempDir()
	t.Cleanup(func() {
		if out, err := exec.Command(script, "down", dir).CombinedOutput(); err != nil {
			t.Errorf("nshosts.sh down: %v: %s", err, out)
		}
	})
	out, err := exec.Command(script, "up", dir, strconv.Itoa(n), strconv.Itoa(os.Getpid())).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "Operation not permitted") {
			skip("this machine forbids network namespaces: %s", strings.TrimSpace(string(out)))
		}
		t.Fatalf("nshosts.sh up: %v: %s", err, out)
	}
	h := &NSHosts{ip: ip, unshare: unshare, script: script, dir: dir, Exec: filepath.Join(dir, "nsexec")}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("nshosts.sh up printed %q: want namespace, address, host name", line)
		}
		h.Names, h.Addrs, h.Hostnames = append(h.Names, f[0]), append(h.Addrs, f[1]), append(h.Hostnames, f[2])
	}
	if len(h.Names) != n {
		t.Fatalf("nshosts.sh up made %d hosts, want %d:\n%s", len(h.Names), n, out)
	}
	return h
}

// Throttle limits host i's link to rate (tc's spelling, "200mbit") both
// ways (scripts/nshosts.sh throttle); it goes with the hosts.
func (h *NSHosts) Throttle(t testing.TB, i int, rate string) {
	t.Helper()
	RequireTool(t, "tc")
	if out, err := exec.Command(h.script, "throttle", h.dir, h.Hostnames[i], rate).CombinedOutput(); err != nil {
		t.Fatalf("throttle %s: %v: %s", h.Hostnames[i], err, out)
	}
}

// In returns the command line that runs name with args on host i, as
// the first host of a job runs mpiexec: in its namespace (ip netns exec)
// with its host name (a UTS namespace), as Exec runs commands there.
func (h *NSHosts) In(i int, name string, args ...string) (string, []string) {
	return h.ip, append([]string{"netns", "exec", h.Names[i], h.unshare, "--uts", "sh", "-c",
		`hostname "$0"; exec "$@"`, h.Hostnames[i], name}, args...)
}
