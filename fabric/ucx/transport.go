package ucx

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// Options choose the UCX configuration of a Transport's context. UCX reads
// its UCX_* environment variables first, as it does for every program;
// a non-empty option overrides the variable of the same name for this
// transport only.
type Options struct {
	// TLS is UCX_TLS: the transports UCX may use ("posix,self", "tcp").
	TLS string
	// NetDevices is UCX_NET_DEVICES: the devices ("lo", "mlx5_0:1"); what
	// hpcbench's -d sets.
	NetDevices string
	// ConnectTimeout bounds a Dial's or an Accept's handshake when its
	// context has no deadline; 0 means DefaultConnectTimeout.
	ConnectTimeout time.Duration
}

// DefaultConnectTimeout bounds a handshake whose context has no deadline.
const DefaultConnectTimeout = time.Minute

// settings is what o sets over the environment, as ucp_config_modify
// names it.
func (o Options) settings() [][2]string {
	var s [][2]string
	if o.TLS != "" {
		s = append(s, [2]string{"TLS", o.TLS})
	}
	if o.NetDevices != "" {
		s = append(s, [2]string{"NET_DEVICES", o.NetDevices})
	}
	return s
}

// Transport is the UCX transport: one UCP context and worker per
// Transport, shared by its Listeners and Conns. It is a fabric.Transport.
type Transport struct {
	o    Options
	wk   *worker
	pid  int
	host [hostIDLen]byte
}

// New loads libucp (ErrNoLibrary, naming the Debian package, when it is
// missing) and creates the transport's context and worker with o.
func New(o Options) (*Transport, error) {
	l, err := openLib()
	if err != nil {
		return nil, err
	}
	wk, err := newWorker(l, o.settings())
	if err != nil {
		return nil, err
	}
	return &Transport{o: o, wk: wk, pid: os.Getpid(), host: hostID()}, nil
}

// Available reports whether UCX's library can be loaded, and why not.
func Available() error {
	_, err := openLib()
	return err
}

// Name returns "ucx".
func (t *Transport) Name() string { return Name }

// Reachable reports whether addr is a UCX address. Whether UCX can reach
// the peer's worker is UCX's to decide when Dial creates the endpoint.
func (t *Transport) Reachable(addr string) bool {
	_, _, err := parseAddr(addr)
	return err == nil
}

// Close destroys the worker and the context. Conns and Listeners should
// be closed first: afterwards their calls fail with fabric.ErrClosed, and
// whatever they had under way is dropped with the worker.
func (t *Transport) Close() error {
	t.wk.mu.Lock()
	defer t.wk.mu.Unlock()
	t.wk.destroy()
	return nil
}

// handshakeCtx bounds ctx by the connect timeout when it has no deadline.
func (t *Transport) handshakeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	d := t.o.ConnectTimeout
	if d <= 0 {
		d = DefaultConnectTimeout
	}
	return context.WithTimeout(ctx, d)
}

// newConn creates an endpoint to the worker at workerAddr, with error
// handling that reports a dead peer, and the Conn around it with a new
// id. Caller holds mu.
func (t *Transport) newConn(workerAddr []byte) (*Conn, error) {
	wk := t.wk
	if !wk.open {
		return nil, fmt.Errorf("ucx: transport closed: %w", fabric.ErrClosed)
	}
	id, err := wk.newID()
	if err != nil {
		return nil, err
	}
	// UCX's default error handling (none), as ucx_perftest and MPI
	// use it: UCX 1.13's shared-memory transports cannot report a peer's
	// failure (UCP_ERR_HANDLING_MODE_PEER leaves them out), so a dead
	// peer is found by this package instead (see peerGone).
	p := &wk.s.epP
	*p = epParams{fieldMask: epFieldRemoteAddress, address: ptr(workerAddr)}
	c := &Conn{t: t, wk: wk, id: id, byeBuf: make([]byte, 8), spin: spinFor}
	c.sendReq, c.recvReq = wk.newRequest(), wk.newRequest()
	c.sendP = requestParam{opAttrMask: opFieldRequest, request: c.sendReq.handle}
	c.recvP = requestParam{opAttrMask: opFieldRequest | opFlagNoImmCmpl, request: c.recvReq.handle}
	c.immP = requestParam{opAttrMask: opFlagForceImm}
	if st := status(wk.call(wk.l.epCreate, wk.w, uintptr(unsafe.Pointer(p)), wk.outPtr(0))); st != statusOK {
		return nil, wk.l.err("ucp_ep_create", st)
	}
	c.ep = wk.s.out[0]
	runtime.KeepAlive(workerAddr)
	return c, nil
}

// postBye posts the receive of the peer's goodbye. Caller holds mu.
func (c *Conn) postBye() error {
	req := c.wk.call(c.wk.l.tagRecvNbx, c.wk.w, ptr(c.byeBuf), uintptr(len(c.byeBuf)), uintptr(ctrlTag(c.id, kindBye)), uintptr(fullMask), uintptr(unsafe.Pointer(&c.probeP)))
	switch {
	case req == 0:
		c.peerClosed = true
	case isErrPtr(req):
		return c.wk.l.err("ucp_tag_recv_nbx", status(req))
	default:
		c.byeReq = req
	}
	return nil
}

// peer records what the peer's handshake says.
func (c *Conn) peer(h hello, host [hostIDLen]byte) {
	c.peerID, c.peerRank, c.peerPid = h.ID, int(h.Rank), int(h.Pid)
	c.sameHost = h.Host == host
}

var _ fabric.HintedTransport = (*Transport)(nil)

// DialHint is Dial: a UCX connection is the same whatever the job's
// shape (UCX sizes its own queues).
func (t *Transport) DialHint(ctx context.Context, self int, addr string, _ fabric.Hint) (fabric.Conn, error) {
	return t.Dial(ctx, self, addr)
}

// Traits says what every Conn promises: Sends of up to EagerLimit bytes
// that never wait for the peer (see eager.go).
func (t *Transport) Traits(fabric.Hint) fabric.Traits {
	return fabric.Traits{EagerLimit: EagerLimit}
}

// Dial connects rank self to the listener at addr: it creates an endpoint
// to the listener's worker, sends its hello (rank, endpoint id, worker
// address) to the listener, and waits for the acceptor's answer.
func (t *Transport) Dial(ctx context.Context, self int, addr string) (fabric.Conn, error) {
	lid, workerAddr, err := parseAddr(addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := t.handshakeCtx(ctx)
	defer cancel()
	wk := t.wk
	wk.mu.Lock()
	c, err := t.newConn(workerAddr)
	if err != nil {
		wk.mu.Unlock()
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	h := hello{Rank: uint32(self), ID: c.id, Pid: uint32(t.pid), Host: t.host, WorkerAddr: wk.addr}
	msg := h.encode()
	rs := newSlot(maxHello)
	rreq := wk.call(wk.l.tagRecvNbx, wk.w, ptr(rs.buf), uintptr(len(rs.buf)), uintptr(ctrlTag(c.id, kindAccept)), uintptr(fullMask), uintptr(unsafe.Pointer(&rs.p)))
	sreq := wk.call(wk.l.tagSendNbx, c.ep, ptr(msg), uintptr(len(msg)), uintptr(ctrlTag(lid, kindHello)), uintptr(unsafe.Pointer(&c.ctrlP)))
	wk.mu.Unlock()
	// The answer's receive is posted until waited for: a failure before
	// that cancels it, so that UCX never writes into rs after Dial.
	rpending := rreq != 0 && !isErrPtr(rreq)
	fail := func(err error) (fabric.Conn, error) {
		wk.mu.Lock()
		if rpending {
			wk.cancel(rreq, nil)
			if wk.waitBounded(rreq, closeWait) == statusInProgress {
				wk.lost = append(wk.lost, rs) // UCX may still write into it
			}
		}
		c.closed = true
		c.closeEp(true)
		wk.mu.Unlock()
		runtime.KeepAlive(rs)
		return nil, fmt.Errorf("dial %s as rank %d: %w", addr, self, err)
	}
	stop := func(*waiter) error {
		if err := deadline.ContextErr(ctx); err != nil {
			return fmt.Errorf("no answer from the listener: %w", err)
		}
		return nil
	}
	if isErrPtr(sreq) {
		return fail(wk.l.err("ucp_tag_send_nbx", status(sreq)))
	}
	if sreq != 0 {
		st, stopped := wk.waitReq(sreq, nil, stop, func(uintptr, error) {})
		wk.mu.Unlock()
		if stopped == nil && st != statusOK {
			stopped = wk.l.err("ucp_tag_send_nbx", st)
		}
		if stopped != nil {
			return fail(stopped)
		}
	}
	switch {
	case isErrPtr(rreq):
		return fail(wk.l.err("ucp_tag_recv_nbx", status(rreq)))
	case rreq != 0:
		st, stopped := wk.waitReq(rreq, &rs.info, stop, wk.cancel)
		rpending = false
		wk.mu.Unlock()
		if st != statusOK {
			if stopped == nil {
				stopped = wk.l.err("ucp_tag_recv_nbx", st)
			}
			return fail(stopped)
		}
	}
	runtime.KeepAlive(msg)
	a, err := parseHello(rs.buf[:rs.info.length])
	if err != nil {
		return fail(err)
	}
	wk.mu.Lock()
	c.peer(a, t.host)
	err = c.postBye()
	wk.mu.Unlock()
	if err != nil {
		return fail(err)
	}
	return c, nil
}

// slot is a receive's buffer, parameters and result: memory UCX writes
// after the call that gave it, so it must not be on a goroutine stack
// (which moves when it grows). newSlot allocates it on the heap.
type slot struct {
	p    requestParam
	info tagRecvInfo
	buf  []byte
}

// newSlot returns a slot with an n-byte buffer whose parameters deny
// immediate completion: UCX 1.13 does not fill recv_info when a receive
// completes at once, so the length comes from ucp_tag_recv_request_test. It is not inlined, so that what it allocates
// escapes to the heap.
//
//go:noinline
func newSlot(n int) *slot {
	s := &slot{buf: make([]byte, n)}
	s.p = requestParam{opAttrMask: opFlagNoImmCmpl}
	return s
}
