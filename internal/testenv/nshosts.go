package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// NSHosts are hosts on this machine for tests across hosts: network
// namespaces joined by a veth pair, each end named NSIface inside its
// namespace with an address of its own, and a launcher script (Exec) that
// runs a command "on" a host the way ssh would, with the host's own host
// name (a UTS namespace). The file system is shared.
type NSHosts struct {
	// Names are the namespaces, Addrs their addresses, Hostnames the
	// host names commands see there, in host order.
	Names, Addrs, Hostnames []string
	// Exec is the launcher script: Exec HOST CMD... runs CMD (one shell
	// word list, as rsh takes it) in HOST's namespace; HOST is an
	// address of Addrs or a name of Hostnames.
	Exec string

	ip string // the ip command
}

// NSIface is the name of every host's interface on the network between
// the hosts.
const NSIface = "hb0"

// RequireNSHosts makes two namespace hosts for the test and removes them
// when it ends. It skips, saying why, where this machine forbids it (not
// root, no CAP_NET_ADMIN, no ip or unshare), or fails under
// RequireToolsEnv=1.
func RequireNSHosts(t testing.TB) *NSHosts {
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
	id := os.Getpid() % 200
	h := &NSHosts{ip: ip}
	run := func(args ...string) error {
		out, err := exec.Command(ip, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	for i := range 2 {
		name := fmt.Sprintf("hbt%d%c", id, 'a'+i)
		h.Names = append(h.Names, name)
		h.Addrs = append(h.Addrs, fmt.Sprintf("10.213.%d.%d", 20+id, i+1))
		h.Hostnames = append(h.Hostnames, fmt.Sprintf("nshost%d", i+1))
	}
	t.Cleanup(func() {
		for _, n := range h.Names {
			_ = exec.Command(ip, "netns", "del", n).Run() // the veth goes with it
		}
	})
	a, b := h.Names[0], h.Names[1]
	va, vb := a+"v", b+"v"
	if err := run("netns", "add", a); err != nil {
		skip("this machine forbids network namespaces: %v", err)
	}
	steps := [][]string{
		{"netns", "add", b},
		{"link", "add", va, "type", "veth", "peer", "name", vb},
		{"link", "set", va, "netns", a},
		{"link", "set", vb, "netns", b},
		{"-n", a, "link", "set", va, "name", NSIface},
		{"-n", b, "link", "set", vb, "name", NSIface},
	}
	for i, n := range h.Names {
		steps = append(steps,
			[]string{"-n", n, "addr", "add", h.Addrs[i] + "/24", "dev", NSIface},
			[]string{"-n", n, "link", "set", NSIface, "up"},
			[]string{"-n", n, "link", "set", "lo", "up"})
	}
	for _, s := range steps {
		if err := run(s...); err != nil {
			t.Fatalf("namespace hosts: %v", err)
		}
	}
	// The launcher script: the host, then the command as rsh gives it.
	var cases strings.Builder
	for i, n := range h.Names {
		fmt.Fprintf(&cases, "%s|%s) ns=%s name=%s ;;\n", h.Addrs[i], h.Hostnames[i], n, h.Hostnames[i])
	}
	script := fmt.Sprintf(`#!/bin/sh
# %s HOST CMD...: run CMD on namespace host HOST, with its host name.
host=$1; shift
[ "$host" = "-x" ] && { host=$1; shift; }
case $host in
%s*) echo "nsexec: unknown host $host" >&2; exit 255 ;;
esac
exec %s netns exec "$ns" %s --uts sh -c "hostname $name; $*"
`, "nsexec", cases.String(), ip, unshare)
	h.Exec = filepath.Join(t.TempDir(), "nsexec")
	if err := os.WriteFile(h.Exec, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// In returns the command line that runs name with args in host i's
// namespace (ip netns exec), as the first host of a job runs mpiexec.
func (h *NSHosts) In(i int, name string, args ...string) (string, []string) {
	return h.ip, append([]string{"netns", "exec", h.Names[i], name}, args...)
}
