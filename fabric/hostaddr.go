package fabric

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

// IfaceEnv names the environment variable that gives the interface (or
// local address) a job's ranks listen on and publish in their business
// cards, as Hydra's -iface does: the network between hosts, where a
// host's name resolves to loopback or to another network. Unset, a
// transport listening on every address publishes HostIPv4's.
const IfaceEnv = "HPCBENCH_IFACE"

// resolveTimeout bounds the host name lookup behind a published address.
const resolveTimeout = 2 * time.Second

// HostIPv4 returns the first non-loopback IPv4 address this host's name
// resolves to, or 127.0.0.1: the address a transport listening on every
// interface publishes in its business card, for peers on other hosts.
func HostIPv4(ctx context.Context) string {
	name, err := os.Hostname()
	if err != nil {
		return "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, name)
	if err != nil {
		return "127.0.0.1"
	}
	return PickIPv4(ips)
}

// PickIPv4 returns the first non-loopback IPv4 address in ips, or
// 127.0.0.1.
func PickIPv4(ips []net.IPAddr) string {
	for _, ip := range ips {
		if v4 := ip.IP.To4(); v4 != nil && !v4.IsLoopback() && !v4.IsUnspecified() {
			return v4.String()
		}
	}
	return "127.0.0.1"
}

// LocalIP is the local address name names: an interface's first address
// (IPv4 first), or one of this host's addresses as it is (what IfaceEnv
// and a fabric test's -d take).
func LocalIP(name string) (net.IP, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("list the network interfaces: %w", err)
	}
	var names []string
	for _, ifc := range ifaces {
		names = append(names, ifc.Name)
		addrs, _ := ifc.Addrs()
		var first net.IP
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			if ipn.IP.String() == name {
				return ipn.IP, nil
			}
			if first == nil || (first.To4() == nil && ipn.IP.To4() != nil) {
				first = ipn.IP
			}
		}
		if ifc.Name == name {
			if first == nil {
				return nil, errors.New("the interface has no IP address")
			}
			return first, nil
		}
	}
	return nil, fmt.Errorf("no such interface or local address: have %s", strings.Join(names, ", "))
}

// Iface returns IfaceEnv's value, read with getenv (nil: os.LookupEnv),
// and the address it names; nil when it is unset. A value that names no
// interface or address of this host is an error naming the variable.
func Iface(getenv func(string) (string, bool)) (string, net.IP, error) {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	name, ok := getenv(IfaceEnv)
	if !ok || name == "" {
		return "", nil, nil
	}
	ip, err := LocalIP(name)
	if err != nil {
		return name, nil, fmt.Errorf("%s=%s: %w", IfaceEnv, name, err)
	}
	return name, ip, nil
}
