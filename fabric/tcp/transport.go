package tcp

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/accept"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// Name is the transport's registry name and address scheme.
const Name = "tcp"

// Transport is the TCP transport. It is safe for concurrent use and holds
// nothing but its options.
type Transport struct {
	opts Options
}

var _ fabric.Transport = (*Transport)(nil)

// New returns a TCP transport with options o (zero fields take their
// defaults), or o's validation error.
func New(o Options) (*Transport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return &Transport{opts: o.withDefaults()}, nil
}

// Name returns "tcp".
func (t *Transport) Name() string { return Name }

// Reachable reports whether addr is a tcp address. Whether the network
// routes to it is only known by dialing.
func (t *Transport) Reachable(addr string) bool { return fabric.Scheme(addr) == Name }

// Listen opens rank self's listener on Options.Listen. Its Addr is
// "tcp://host:port" with the host chosen as Options.Publish describes.
func (t *Transport) Listen(ctx context.Context, self int) (fabric.Listener, error) {
	if err := checkRank(self); err != nil {
		return nil, fmt.Errorf("tcp: listen: %w", err)
	}
	tl, hostport, err := accept.ListenTCP(ctx, t.opts.Listen, t.opts.Publish)
	if err != nil {
		return nil, fmt.Errorf("tcp: listen on %s: %w", t.opts.Listen, err)
	}
	return newListener(tl, self, Name+"://"+hostport, t.opts), nil
}

// Dial connects rank self to the listener at addr ("tcp://host:port") and
// exchanges hellos; the Conn knows the acceptor's rank from its hello.
func (t *Transport) Dial(ctx context.Context, self int, addr string) (fabric.Conn, error) {
	if err := checkRank(self); err != nil {
		return nil, fmt.Errorf("tcp: dial %s: %w", addr, err)
	}
	hostport, err := parseAddr(addr)
	if err != nil {
		return nil, fmt.Errorf("tcp: dial: %w", err)
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", hostport)
	if err != nil {
		return nil, fmt.Errorf("tcp: dial %s: %w", addr, err)
	}
	tc := nc.(*net.TCPConn)
	if err := tc.SetNoDelay(true); err != nil {
		_ = tc.Close()
		return nil, fmt.Errorf("tcp: dial %s: setting TCP_NODELAY: %w", addr, err)
	}
	var peer int
	err = deadline.Do(ctx, tc, t.opts.HandshakeTimeout, func() (err error) {
		peer, err = dialHandshake(tc, self)
		return err
	})
	if err != nil {
		_ = tc.Close()
		return nil, fmt.Errorf("tcp: dial %s: handshake: %w", addr, err)
	}
	return newConn(tc, peer, t.opts.RecvSpin), nil
}

// parseAddr returns the host:port of a "tcp://host:port" address.
func parseAddr(addr string) (string, error) {
	hostport, ok := strings.CutPrefix(addr, Name+"://")
	if !ok {
		return "", fmt.Errorf("address %q: want tcp://host:port", addr)
	}
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		return "", fmt.Errorf("address %q: want tcp://host:port: %w", addr, err)
	}
	return hostport, nil
}
