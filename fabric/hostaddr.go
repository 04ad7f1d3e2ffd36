package fabric

import (
	"context"
	"net"
	"os"
	"time"
)

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
