package verbs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/accept"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// Name is the transport's registry name and address scheme.
const Name = "verbs"

// errDeadline is a socket deadline expiring.
var errDeadline = os.ErrDeadlineExceeded

// Transport is the RDMA verbs transport: reliable-connected queue pairs,
// set up over a TCP side channel. It is safe for concurrent use and holds
// nothing but its options and opener.
type Transport struct {
	opts Options
	open Opener
}

var _ fabric.Transport = (*Transport)(nil)

// New returns a transport over this host's RDMA devices with options o
// (zero fields take their defaults), or o's validation error. Without
// -tags verbs it is still returned, and its Listen and Dial fail with
// ErrNotBuilt.
func New(o Options) (*Transport, error) { return NewWithOpener(o, OpenDevices) }

// NewWithOpener is New over the devices open returns (tests pass a
// fakeverbs fabric's opener). Listen opens the devices once for the
// listener and its connections; each Dial opens them for its connection.
func NewWithOpener(o Options, open Opener) (*Transport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if open == nil {
		return nil, errors.New("verbs: NewWithOpener: nil opener")
	}
	return &Transport{opts: o.withDefaults(), open: open}, nil
}

// Name returns "verbs".
func (t *Transport) Name() string { return Name }

// Reachable reports whether addr is a verbs address. Whether the fabric
// routes to it is only known by dialing.
func (t *Transport) Reachable(addr string) bool {
	_, _, err := parseAddr(addr)
	return err == nil
}

// Listen opens the device and the side channel of rank self. Its Addr is
// "verbs://HOST:PORT/DEVICE:PORT": the side channel's host and port, then
// the device and its port (for people; Dial needs only the first part).
func (t *Transport) Listen(ctx context.Context, self int) (fabric.Listener, error) {
	if self < 0 || self > 1<<31-1 {
		return nil, fmt.Errorf("verbs: listen: rank %d: must be in [0, %d]", self, 1<<31-1)
	}
	dev, err := openDevice(t.open, t.opts)
	if err != nil {
		return nil, fmt.Errorf("verbs: listen: %w", err)
	}
	tl, hostport, err := accept.ListenTCP(ctx, t.opts.Listen, t.opts.Publish)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("verbs: listen on %s: %w", t.opts.Listen, err), dev.release())
	}
	addr := fmt.Sprintf("%s://%s/%s:%d", Name, hostport, dev.dev.Name(), dev.port)
	return newListener(tl, self, addr, dev, t.opts), nil
}

// Dial connects rank self to the listener at addr: it opens the device,
// makes a queue pair, exchanges endpoint records over the side channel
// and returns once both queue pairs are in RTS.
func (t *Transport) Dial(ctx context.Context, self int, addr string) (fabric.Conn, error) {
	if self < 0 || self > 1<<31-1 {
		return nil, fmt.Errorf("verbs: dial %s: rank %d: must be in [0, %d]", addr, self, 1<<31-1)
	}
	hostport, _, err := parseAddr(addr)
	if err != nil {
		return nil, fmt.Errorf("verbs: dial: %w", err)
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", hostport)
	if err != nil {
		return nil, fmt.Errorf("verbs: dial %s: %w", addr, err)
	}
	dev, err := openDevice(t.open, t.opts)
	if err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("verbs: dial %s: %w", addr, err)
	}
	var c *conn
	err = deadline.Do(ctx, nc, t.opts.HandshakeTimeout, func() (err error) {
		c, err = dialHandshake(nc, dev, self, t.opts)
		return err
	})
	// The endpoint holds its own reference on the device.
	err = errors.Join(err, dev.release())
	if err != nil {
		if c != nil {
			_ = c.Close()
		}
		_ = nc.Close()
		return nil, fmt.Errorf("verbs: dial %s: %w", addr, err)
	}
	return c, nil
}

// parseAddr splits "verbs://HOST:PORT/DEVICE:PORT" into the side channel's
// host:port and the device part.
func parseAddr(addr string) (hostport, device string, err error) {
	rest, ok := strings.CutPrefix(addr, Name+"://")
	if !ok {
		return "", "", fmt.Errorf("address %q: want verbs://host:port/device:port", addr)
	}
	hostport, device, ok = strings.Cut(rest, "/")
	if !ok {
		return "", "", fmt.Errorf("address %q: want verbs://host:port/device:port", addr)
	}
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		return "", "", fmt.Errorf("address %q: want verbs://host:port/device:port: %w", addr, err)
	}
	name, port, ok := strings.Cut(device, ":")
	if n, err := strconv.Atoi(port); !ok || name == "" || err != nil || n < 1 || n > 255 {
		return "", "", fmt.Errorf("address %q: device part %q: want device:port with a port in [1, 255]", addr, device)
	}
	return hostport, device, nil
}
