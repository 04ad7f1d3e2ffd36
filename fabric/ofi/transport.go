package ofi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/hpcbench/hpcbench/fabric"
)

// Endpoint types, as fabtests' -e spells them.
const (
	EndpointRDM = "rdm" // reliable datagrams: one endpoint per process (the default)
	EndpointMsg = "msg" // reliable connections
)

// Options choose the provider and its domain.
type Options struct {
	// Provider is libfabric's provider name: tcp, shm, udp, sockets,
	// verbs;ofi_rxm, … For RDM endpoints libfabric layers a utility
	// provider on a connection-oriented or unreliable one itself (tcp
	// becomes tcp;ofi_rxm, udp udp;ofi_rxd).
	Provider string
	// Domain is the domain to open (tcp: an interface such as "lo"; fi_info
	// lists them), or "" for the provider's first.
	Domain string
	// Endpoint is EndpointRDM ("" for it) or EndpointMsg.
	Endpoint string
}

// Validate checks o before any library is loaded.
func (o Options) Validate() error {
	if !validProvider(o.Provider) {
		return fmt.Errorf("ofi provider %q: want a libfabric provider name such as tcp, shm, udp or verbs;ofi_rxm", o.Provider)
	}
	switch o.Endpoint {
	case "", EndpointRDM, EndpointMsg:
	default:
		return fmt.Errorf("-e %s: want rdm or msg", o.Endpoint)
	}
	return nil
}

// Transport is a fabric.Transport over one libfabric RDM endpoint, opened
// by New and shared by every Listener and Conn the Transport makes, or,
// with EndpointMsg, over MSG endpoints: a passive one per Listener and an
// active one per Conn.
type Transport struct {
	o    Options
	e    *endpoint  // RDM
	m    *msgFabric // MSG
	host string

	closeOnce sync.Once
}

var _ fabric.Transport = (*Transport)(nil)

// New loads libfabric and opens the endpoint o names. It fails naming the
// library and its Debian package when libfabric is missing, and the
// provider when libfabric has none that fits.
func New(o Options) (*Transport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	l, err := load()
	if err != nil {
		return nil, err
	}
	if o.Endpoint == EndpointMsg {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("ofi: this host's name: %w", err)
		}
		m, err := newMsgFabric(l, o, host)
		if err != nil {
			return nil, err
		}
		return &Transport{o: o, m: m, host: host}, nil
	}
	if hostLocal(o.Provider) {
		removeStaleRegions(shmDir)
	}
	e, err := openEndpoint(l, o.Provider, o.Domain)
	if err != nil {
		return nil, err
	}
	host, err := os.Hostname()
	if err != nil {
		e.close()
		return nil, fmt.Errorf("ofi: this host's name: %w", err)
	}
	return &Transport{o: o, e: e, host: host}, nil
}

// Name is "ofi:" and the provider as Options named it.
func (t *Transport) Name() string { return "ofi:" + t.o.Provider }

// Provider returns the provider libfabric opened ("tcp;ofi_rxm" for tcp
// RDM endpoints) and its domain ("lo"); with MSG endpoints, those of the
// first Listener or Conn ("" before one).
func (t *Transport) Provider() (provider, domain string) {
	if t.m != nil {
		t.m.mu.Lock()
		defer t.m.mu.Unlock()
		if n := t.m.first; n != nil {
			return n.provider, n.domain
		}
		return "", ""
	}
	return t.e.provider, t.e.domain
}

// Close closes the endpoints; every Conn and Listener of t stops working.
func (t *Transport) Close() error {
	if t.m != nil {
		t.closeOnce.Do(t.m.close)
		return nil
	}
	t.closeOnce.Do(t.e.close)
	return nil
}

var _ fabric.HintedTransport = (*Transport)(nil)

// DialHint is Dial: libfabric sizes its own queues, whatever the job's
// shape.
func (t *Transport) DialHint(ctx context.Context, self int, addr string, _ fabric.Hint) (fabric.Conn, error) {
	return t.Dial(ctx, self, addr)
}

// Traits says what every Conn promises: a Send below the rendezvous
// threshold never waits for the peer's Recv (it is injected, or copied
// and sent from the copy), so that a collective posts both halves of a
// small exchange in one goroutine. Without it, an 8 B coll Sendrecv over
// ofi:shm took 29 µs (two goroutines polling one endpoint) against
// shm's 0.3-11 µs on the same loaded machine.
func (t *Transport) Traits(fabric.Hint) fabric.Traits {
	return fabric.Traits{EagerLimit: t.eagerLimit()}
}

// eagerLimit is the largest message a Send delivers without waiting for
// the peer: just below the mode's rendezvous threshold.
func (t *Transport) eagerLimit() int {
	if t.m != nil {
		return msgEager - 1
	}
	return rdvMin - 1
}

// EagerLimit returns the largest message Send delivers without waiting
// for the peer to Recv it.
func (c *Conn) EagerLimit() int { return rdvMin - 1 }

// EagerLimit returns the largest message Send delivers without waiting
// for the peer to Recv it.
func (c *msgConn) EagerLimit() int { return msgEager - 1 }

// Listen opens a listener for rank self on the endpoint.
func (t *Transport) Listen(ctx context.Context, self int) (fabric.Listener, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t.m != nil {
		ln, err := t.m.listen(self)
		if err != nil {
			return nil, err
		}
		return ln, nil
	}
	e := t.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, fmt.Errorf("ofi: listen: %w", fabric.ErrClosed)
	}
	ln := &Listener{t: t, id: e.newIDLocked(), self: self}
	ln.addr = address{provider: t.o.Provider, host: t.host, name: e.name, ln: ln.id}.String()
	e.lns[ln.id] = ln
	return ln, nil
}

// ErrRefused means the listener a Dial named is closed.
var ErrRefused = errors.New("the listener is closed")

// Dial connects rank self to the listener at addr: it sends a hello and
// waits for the welcome (or the refusal of a closed listener).
func (t *Transport) Dial(ctx context.Context, self int, addr string) (fabric.Conn, error) {
	a, err := parseAddress(addr)
	if err != nil {
		return nil, fmt.Errorf("ofi: dial: %w", err)
	}
	if a.provider != t.o.Provider {
		return nil, fmt.Errorf("ofi: dial %s: the peer uses provider %s, this rank %s", addr, a.provider, t.o.Provider)
	}
	if a.msg != (t.m != nil) {
		return nil, fmt.Errorf("ofi: dial %s: the peer uses %s endpoints, this rank %s", addr, endpointOf(a.msg), endpointOf(t.m != nil))
	}
	if t.m != nil {
		return t.m.dial(ctx, self, a, addr)
	}
	e := t.e
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, fmt.Errorf("ofi: dial %s: %w", addr, fabric.ErrClosed)
	}
	fa, err := e.insertLocked(a.name)
	if err != nil {
		e.mu.Unlock()
		return nil, fmt.Errorf("ofi: dial %s: %w", addr, err)
	}
	c := &Conn{e: e, id: e.newIDLocked(), rank: -1, addr: fa, state: stateDialing}
	e.conns[c.id] = c
	e.sendControlLocked(fa, ctlTag(a.ln, kindHello), hello{rank: self, id: c.id, name: e.name}.encode())
	e.mu.Unlock()
	err = e.wait(ctx, func() bool { return c.state != stateDialing }, func() error { return c.stopErr(false) })
	e.mu.Lock()
	state := c.state
	e.mu.Unlock()
	switch {
	case err != nil:
		_ = c.Close()
		return nil, fmt.Errorf("ofi: dial %s: no answer: %w", addr, err)
	case state == stateRefused:
		_ = c.Close()
		return nil, fmt.Errorf("ofi: dial %s: %w: %w", addr, ErrRefused, fabric.ErrClosed)
	}
	return c, nil
}

// Reachable reports whether addr is an address of this transport's
// provider, on this host when the provider is shared memory.
func (t *Transport) Reachable(addr string) bool {
	a, err := parseAddress(addr)
	if err != nil || a.provider != t.o.Provider || a.msg != (t.m != nil) {
		return false
	}
	if t.m == nil && hostLocal(t.e.provider) {
		return a.host == t.host
	}
	return true
}

// hostLocal reports whether a provider reaches only its own host.
func hostLocal(provider string) bool {
	first, _, _ := strings.Cut(provider, ";")
	return first == "shm"
}

// endpointOf names the endpoint type of an address: msg or rdm.
func endpointOf(msg bool) string {
	if msg {
		return EndpointMsg
	}
	return EndpointRDM
}
