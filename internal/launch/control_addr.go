package launch

import (
	"context"
	"net"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// resolveBudget bounds the host name lookups behind the control address.
const resolveBudget = 2 * time.Second

// controlIP is the address the launcher's control port listens on, the
// one its proxies dial: HPCBENCH_IFACE's in the job's environment (what
// --iface sets), else the source address of the route to the first host
// of the job that is not reached through loopback, else loopback when
// every host resolves to it (a job of one machine's fake hosts), else
// this host's own address (fabric.HostIPv4: hosts whose names only the
// remote shell knows, such as ssh aliases).
func controlIP(ctx context.Context, o Options) (net.IP, error) {
	_, ip, err := fabric.Iface(func(k string) (string, bool) { return lookupEnv(o.Env, k) })
	if err != nil || ip != nil {
		return ip, err
	}
	ctx, cancel := context.WithTimeout(ctx, resolveBudget)
	defer cancel()
	loopback := false
	for _, h := range o.Hosts {
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, h.Name)
		if err != nil || len(addrs) == 0 {
			continue
		}
		src := routeSource(addrs[0].IP)
		switch {
		case src == nil:
		case src.IsLoopback():
			loopback = true
		default:
			return src, nil
		}
	}
	if loopback {
		return net.IPv4(127, 0, 0, 1), nil
	}
	return net.ParseIP(fabric.HostIPv4(ctx)), nil
}

// routeSource is this host's address on the route to ip, as the kernel
// picks it for a datagram socket connected there (which sends nothing).
func routeSource(ip net.IP) net.IP {
	c, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: ip, Port: 9})
	if err != nil {
		return nil
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).IP
}

// lookupEnv finds key in env, the last setting winning as in a process's.
func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v, true
		}
	}
	return "", false
}
