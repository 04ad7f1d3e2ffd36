package tcp

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// FrameHeaderLen is the size of a frame's header on the wire: tag
// (uint32) and the length word (uint64: the frame's kind in its top byte,
// the payload's length below), little-endian.
const FrameHeaderLen = 12

// MaxMessageSize is the largest message Send accepts, 4 GiB (beyond MPI's
// int count of bytes). A received header that announces more is a protocol
// error, not an allocation: it means the stream is corrupt.
const MaxMessageSize = 1 << 32

// conn is a fabric.Conn over one TCP connection. The read side (Recv) and
// the write side (Send) have their own lock, header buffer and deadline, so
// one Send and one Recv run at the same time without touching each other;
// Close takes neither lock and closes the socket, which ends both.
type conn struct {
	nc     *net.TCPConn
	peer   int         // the peer's rank, for errors
	closed atomic.Bool // Close was called

	wmu  sync.Mutex
	wd   side                 // write deadline and cancellation
	whdr [FrameHeaderLen]byte // header of the message being sent
	iov  [3][]byte            // header, prefix and payload for one writev
	bufs net.Buffers          // iov as net.Buffers; WriteTo consumes it
	werr error                // sticky: the write side is unusable

	rmu sync.Mutex
	rd  side // read deadline and cancellation
	rs  recvState

	rma rmaState // one-sided RMA (rma.go)

	// The receive busy-poll (see spinRead); spinFn is nil when it is off.
	spin   time.Duration         // Options.RecvSpin: the most one read spins
	rc     syscall.RawConn       // nc's, for nonblocking reads
	spinFn func(fd uintptr) bool // c.spinPoll, made once
	sp     spinState             // under rmu
	// singleP: GOMAXPROCS was 1 when the Conn was made; the busy-poll
	// then lets this process's other goroutines (a Sendrecv's send) run
	// between reads.
	singleP bool
}

// spinState is one spinning read's input and result.
type spinState struct {
	p      []byte          // where to read
	budget time.Duration   // how long to spin now, adapted (see adapt)
	start  time.Time       // when the last spin began
	done   <-chan struct{} // the Recv's ctx.Done(): stop spinning when closed
	dl     time.Time       // the Recv's deadline: stop spinning there
	res    spinResult
	n      int   // bytes read, when res is spinGot
	errno  error // read(2)'s error, when res is spinGot
}

// spinResult is what a spinning read saw.
type spinResult uint8

const (
	spinNothing spinResult = iota // no bytes, no end, no error
	spinGot                       // bytes, end of stream or an error
)

var _ fabric.Conn = (*conn)(nil)

// newConn wraps a connected, handshaken socket to rank peer. A Recv that
// waits for bytes busy-polls the socket for up to spin before parking;
// spin <= 0 turns that off.
func newConn(nc *net.TCPConn, peer int, spin time.Duration) *conn {
	c := &conn{nc: nc, peer: peer, singleP: runtime.GOMAXPROCS(0) == 1}
	c.rma.done, c.rma.wake = make(chan error, 1), make(chan struct{}, 1)
	c.wd.set = nc.SetWriteDeadline
	c.rd.set = nc.SetReadDeadline
	if spin > 0 && spinSupported {
		if rc, err := nc.SyscallConn(); err == nil {
			c.spin, c.rc, c.spinFn = spin, rc, c.spinPoll
			c.sp.budget = spin
		}
	}
	return c
}

// read reads from the socket into p for the read side: first by
// busy-polling, when that is on, then the ordinary way, which parks until
// bytes arrive, the deadline passes or Close runs.
func (c *conn) read(p []byte) (int, error) {
	if c.spinFn != nil && len(p) > 0 {
		if n, err, ok := c.spinRead(p); ok {
			return n, err
		}
		n, err := c.nc.Read(p)
		if err == nil {
			c.sp.adapt(time.Since(c.sp.start), c.spin)
		}
		return n, err
	}
	return c.nc.Read(p)
}

// adapt sets the busy-poll budget after a read that spun out and then
// waited waited in all (spin included) for its bytes. When a spin of max
// would have caught them, the budget doubles back towards max: the peer
// answers fast, but a park and wake-up costs more than the spin (and
// slows the peer's next answer in turn, so a too short spin never
// recovers on its own). When not, the spin burnt a CPU for nothing,
// perhaps one the peer needed (more ranks than CPUs), and the budget
// halves, down to a single nonblocking read.
func (s *spinState) adapt(waited, max time.Duration) {
	if waited <= max {
		s.budget = min(max, 2*s.budget+time.Microsecond)
	} else {
		s.budget /= 2
	}
}

// Send writes the header and b with one writev, without copying b. If ctx
// ends before any byte is written, the connection stays usable. If it ends
// in the middle of the message, the message cannot be completed or taken
// back, so the write side is shut down: the peer's Recv then fails with
// ErrClosed instead of reading half a message, this side's later Sends fail,
// and its Recvs keep working.
func (c *conn) Send(ctx context.Context, tag uint32, b []byte) error {
	if uint64(len(b)) > MaxMessageSize {
		return fmt.Errorf("tcp: %s rank %d: %d-byte message: more than MaxMessageSize (%d)", sendOp(tag), c.peer, len(b), uint64(MaxMessageSize))
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeFrame(ctx, frameOp{tag: tag}, tag, uint64(len(b)), nil, b)
}

// frameOp names what a frame carries, for errors: a message's tag, or one
// of the RMA frames (rma.go).
type frameOp struct {
	kind uint64 // the header's frame kind; kindMessage for a Send
	tag  uint32
}

// String is the operation as an error names it, before "rank N".
func (o frameOp) String() string {
	switch o.kind {
	case kindWrite:
		return "RMA write to"
	case kindReadReq:
		return "RMA read request to"
	case kindReadResp:
		return "RMA read reply to"
	}
	return sendOp(o.tag)
}

// writeFrame writes one frame, the header (tag, and word: the frame's kind
// in its top byte and the payload's length), then pre and b, with one
// writev and without copying. The caller holds wmu. Errors are Send's (see
// there).
func (c *conn) writeFrame(ctx context.Context, op frameOp, tag uint32, word uint64, pre, b []byte) error {
	if c.closed.Load() {
		return c.brokenErr(op.String(), nil)
	}
	if c.werr != nil {
		return c.werr
	}
	if err := c.wd.arm(ctx); err != nil {
		c.dropIfClosed()
		return fmt.Errorf("tcp: %s rank %d: %w", op, c.peer, err)
	}
	binary.LittleEndian.PutUint32(c.whdr[0:4], tag)
	binary.LittleEndian.PutUint64(c.whdr[4:12], word)
	c.iov[0] = c.whdr[:]
	if pre == nil {
		c.iov[1] = b
		c.bufs = c.iov[:2]
	} else {
		c.iov[1], c.iov[2] = pre, b
		c.bufs = c.iov[:3]
	}
	n, err := c.bufs.WriteTo(c.nc)
	c.iov[1], c.iov[2], c.bufs = nil, nil, nil // do not keep the caller's buffers
	c.dropIfClosed()
	if err == nil {
		return nil
	}
	total := int64(FrameHeaderLen + len(pre) + len(b))
	if isTimeout(err) {
		cerr := deadline.ContextErr(ctx)
		if cerr == nil {
			cerr = err
		}
		if n == 0 {
			return fmt.Errorf("tcp: %s rank %d: %w", op, c.peer, cerr)
		}
		c.werr = fmt.Errorf("tcp: %s rank %d: %w: an earlier send was interrupted after %d of %d bytes",
			op, c.peer, fabric.ErrClosed, n, total)
		_ = c.nc.CloseWrite()
		return fmt.Errorf("tcp: %s rank %d: interrupted after %d of %d bytes, so the write side is shut down: %w",
			op, c.peer, n, total, cerr)
	}
	c.werr = c.brokenErr(op.String(), err)
	return c.werr
}

// sendOp names a Send for errors.
func sendOp(tag uint32) string { return fmt.Sprintf("send tag %d to", tag) }

// Close closes the socket, which ends any Send or Recv in progress with an
// error wrapping fabric.ErrClosed. Messages that arrived but were not
// received are dropped. A second Close returns an error wrapping ErrClosed.
func (c *conn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return fmt.Errorf("tcp: close connection to rank %d: %w already", c.peer, fabric.ErrClosed)
	}
	err := c.nc.Close()
	c.wd.drop()
	c.rd.drop()
	c.closeRMA()
	if err != nil {
		return fmt.Errorf("tcp: close connection to rank %d: %w", c.peer, err)
	}
	return nil
}

// dropIfClosed unregisters both sides' context watches when Close has run:
// a Send or Recv that raced with Close may have registered one after Close
// dropped them. Close sets closed before dropping, so one of the two sees
// the other's work.
func (c *conn) dropIfClosed() {
	if c.closed.Load() {
		c.wd.drop()
		c.rd.drop()
	}
}
