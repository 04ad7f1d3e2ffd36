package tcp

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Defaults for Options.
const (
	DefaultListen           = ":0" // all interfaces, a port the kernel picks
	DefaultHandshakeTimeout = 10 * time.Second
	// DefaultRecvSpin is long enough to cover a 64 KiB round trip on
	// loopback (the receiver waits for the whole of it): with 50 µs the
	// budget ran out, the Recv parked, and 64 KiB ping-pongs took 72 µs one
	// way against 42 with 500 µs. The spin yields the CPU on every turn,
	// so with four ranks on two CPUs collectives got faster too (64 KiB
	// Allreduce 455 -> 324 µs).
	DefaultRecvSpin = 500 * time.Microsecond
)

// Options configures the TCP transport. The zero value is valid and means
// the defaults.
type Options struct {
	// Listen is the host:port every rank listens on; DefaultListen when
	// empty. A fixed port only works with one rank per host.
	Listen string
	// Publish is the host name or IP address that goes into the listener's
	// address, the one peers dial. When empty: the IP address Listen names,
	// or, when Listen is all interfaces, the first non-loopback IPv4 address
	// this host's name resolves to, else 127.0.0.1 (then only ranks on this
	// host can connect; set Publish, or Listen to an interface's address, on
	// multi-host jobs where the host name resolves to loopback only).
	Publish string
	// HandshakeTimeout bounds the hello exchange on each new connection; a
	// connection that does not complete it in time is dropped as stray.
	// DefaultHandshakeTimeout when 0.
	HandshakeTimeout time.Duration
	// RecvSpin is how long a Recv that finds no bytes on the socket keeps
	// trying nonblocking reads before it parks the goroutine in the
	// network poller. A wake-up from the poller costs tens of
	// microseconds, more than a small message's round trip, so a short
	// busy-poll cuts latency when the peer answers soon, at the price of a
	// CPU spinning meanwhile. DefaultRecvSpin when 0; a negative value
	// turns the busy-poll off.
	RecvSpin time.Duration
}

// withDefaults returns o with empty fields set to their defaults.
func (o Options) withDefaults() Options {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if o.HandshakeTimeout == 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.RecvSpin == 0 {
		o.RecvSpin = DefaultRecvSpin
	}
	return o
}

// Validate reports the first invalid field.
func (o *Options) Validate() error {
	if o.Listen != "" {
		_, port, err := net.SplitHostPort(o.Listen)
		if err != nil {
			return fmt.Errorf("tcp listen address %q: want host:port, [ipv6]:port or :port: %w", o.Listen, err)
		}
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return fmt.Errorf("tcp listen address %q: port %q must be a number in [0, 65535]", o.Listen, port)
		}
	}
	if o.Publish != "" {
		if _, _, err := net.SplitHostPort(o.Publish); err == nil || strings.ContainsAny(o.Publish, "/[] \t") {
			return fmt.Errorf("tcp publish host %q: want a host name or IP address, without port or brackets", o.Publish)
		}
	}
	if o.HandshakeTimeout < 0 {
		return fmt.Errorf("tcp handshake timeout %v: must not be negative", o.HandshakeTimeout)
	}
	return nil
}
