package client

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/rpc"
)

// ClientOptions configures Dial.
type ClientOptions struct {
	// Rank is this client's rank on the fabric (the transport's Dial
	// takes it) and its client id in the hello.
	Rank int
	// BulkRMA moves array data above the inline limit by one-sided RMA
	// when the connection has it (fabric.RMAConn, as fabric/shm's): the
	// client exposes its buffer and the engine reads or writes it. Off,
	// data moves as a message of its own: the default, because on
	// fabric/shm a message measured faster (see objstore/rpc's doc).
	BulkRMA bool
}

// viewConn is a connection whose engine maps some of this process's
// memory, and reaches it by RMA.
type viewConn interface {
	fabric.RMAConn
	fabric.PeerViewer
}

// Client is a connection to one engine. It implements object.Pool over
// the pool the engine serves, and the containers it opens implement
// object.Container; every call is forwarded to the engine. A Client may be
// used by many goroutines at once; their calls take turns (one call at a
// time on the connection: see the package doc), so goroutines that want
// calls in flight together dial a Client each.
type Client struct {
	addr string
	conn fabric.Conn
	rma  fabric.RMAConn // nil unless ClientOptions.BulkRMA and conn has RMA
	// views is conn's RMA when the engine maps some of this process's
	// memory (fabric.PeerViewer): transfers from and into such buffers
	// go by RMA whatever BulkRMA says, since the engine then moves them
	// in place.
	views viewConn
	alloc fabric.Allocator // nil unless the transport has one

	turn chan struct{} // holds one token: the right to use conn and what follows

	// Held with the turn.
	next   uint64 // the last request id used
	sbuf   []byte // the request being sent
	rbuf   []byte // the reply being received
	broken error  // why the connection can no longer be used, or nil
	busy   bool   // the last reply's rpc.HintBusy

	closeOnce sync.Once
	closeErr  error
}

var _ object.Pool = (*Client)(nil)

// Dial connects to the engine listening at addr through tr and says hello.
func Dial(ctx context.Context, tr fabric.Transport, addr string, o ClientOptions) (*Client, error) {
	return dial(ctx, tr, addr, o, rpc.Version)
}

// dial is Dial speaking protocol version v (tests speak others).
func dial(ctx context.Context, tr fabric.Transport, addr string, o ClientOptions, v uint16) (*Client, error) {
	conn, err := tr.Dial(ctx, o.Rank, addr)
	if err != nil {
		return nil, fmt.Errorf("dfs engine %s: dial: %w", addr, err)
	}
	if err := rpc.ClientHello(ctx, conn, rpc.Hello{Version: v, ClientID: uint64(o.Rank)}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("dfs engine %s: %w", addr, err)
	}
	c := &Client{
		addr: addr, conn: conn,
		turn: make(chan struct{}, 1),
		sbuf: make([]byte, 0, rpc.MaxMsg),
		rbuf: make([]byte, rpc.MaxMsg),
	}
	c.turn <- struct{}{}
	if r, ok := conn.(fabric.RMAConn); ok && o.BulkRMA {
		c.rma = r
	}
	c.views, _ = conn.(viewConn)
	c.alloc, _ = tr.(fabric.Allocator)
	return c, nil
}

// Addr returns the engine's address.
func (c *Client) Addr() string { return c.addr }

// Alloc returns a buffer of n bytes from the transport's allocator (the
// heap if it has none). Array transfers from and into such buffers move
// with the fewest copies (fabric/shm: one).
func (c *Client) Alloc(n int) []byte {
	if c.alloc == nil {
		return make([]byte, n)
	}
	return c.alloc.Alloc(n)
}

// Free gives back a buffer Alloc returned.
func (c *Client) Free(b []byte) {
	if c.alloc != nil {
		c.alloc.Free(b)
	}
}

// Close closes the connection; the engine releases the containers this
// client had open. Calls in progress return an error.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		if err := c.conn.Close(); err != nil {
			c.closeErr = fmt.Errorf("dfs engine %s: close: %w", c.addr, err)
		}
	})
	return c.closeErr
}

// call is one exchange: send m (and its data m.data), wait for the reply
// to it, and return the reply with its data: in dst when dst is not nil
// (it must hold all of it), in a new slice otherwise. The returned error
// is the transport's or the engine's.
func (c *Client) call(ctx context.Context, m *rpc.Msg, dst []byte) (rpc.Msg, error) {
	select {
	case <-c.turn:
	case <-ctx.Done():
		return rpc.Msg{}, c.wrap(m.Op, ctx.Err())
	}
	defer func() { c.turn <- struct{}{} }()
	if c.broken != nil {
		return rpc.Msg{}, c.wrap(m.Op, c.broken)
	}
	rep, err := c.exchange(ctx, m, dst)
	if err != nil {
		return rpc.Msg{}, c.wrap(m.Op, err)
	}
	return rep, rpc.ReplyErr(c.addr, rep.Kind, rep.S1)
}

// wrap names the engine and the operation in a transport error.
func (c *Client) wrap(o rpc.Op, err error) error {
	return fmt.Errorf("dfs engine %s: %s: %w", c.addr, o, err)
}

// errBroken wraps the cause of a connection left out of step.
var errBroken = errors.New("connection out of step after an interrupted transfer")

// exchange is call's work, with the turn held.
func (c *Client) exchange(ctx context.Context, m *rpc.Msg, dst []byte) (rpc.Msg, error) {
	release, err := c.post(ctx, m)
	if release != nil {
		defer release()
	}
	if err != nil {
		return rpc.Msg{}, err
	}
	rep, err := c.await(ctx, m.ID, dst, m.Bulk() >= rpc.LongBulk && c.busy)
	if err != nil && m.Mode == rpc.ModeRMA && c.broken == nil {
		// The engine may still reach the exposed buffer, which the
		// caller gets back: nothing may go on this connection.
		c.broken = fmt.Errorf("%w: %w", errBroken, err)
	}
	return rep, err
}

// post sends request m and its data, numbering it, with the turn held. It
// returns, when m's buffer is exposed to the engine, the function that
// ends that, to call once the reply is in (or the call given up).
func (c *Client) post(ctx context.Context, m *rpc.Msg) (release func() error, err error) {
	c.next++
	m.ID = c.next
	if m.EncodedLen() > rpc.MaxMsg {
		return nil, fmt.Errorf("%d bytes of keys and labels, more than a message holds: %w", m.EncodedLen()-rpc.PrefixLen, object.ErrInvalid)
	}
	switch {
	case m.Mode == rpc.ModeRMA:
		r := c.rma
		if r == nil {
			r = c.views // bulk chose RMA for a buffer the engine views
		}
		key, rel, err := r.Expose(m.Data)
		if err != nil {
			return nil, fmt.Errorf("expose %d bytes for the engine: %w", len(m.Data), err)
		}
		m.Key, release = key, rel
	case len(m.Data) <= rpc.InlineMax && m.EncodedLen()+len(m.Data) <= rpc.MaxMsg:
		m.Mode = rpc.ModeInline
	default:
		m.Mode = rpc.ModeMsg
	}
	if m.Op != rpc.OpReadArray {
		m.DataLen = uint64(len(m.Data))
	}
	c.sbuf = m.Encode(c.sbuf)
	if err := c.conn.Send(ctx, rpc.TagReq, c.sbuf); err != nil {
		// A request cut off by its context may have gone all the same:
		// harmless when it is whole in itself (its late reply is
		// dropped), not when data was to follow or stays exposed.
		switch {
		case ctx.Err() == nil:
			c.broken = err
		case m.Mode != rpc.ModeInline:
			c.broken = fmt.Errorf("%w: %w", errBroken, err)
		}
		return release, fmt.Errorf("send request: %w", err)
	}
	if m.Mode == rpc.ModeMsg {
		if err := c.conn.Send(ctx, rpc.TagData, m.Data); err != nil {
			c.broken = fmt.Errorf("%w: %w", errBroken, err)
			return release, fmt.Errorf("send %d bytes of data: %w", len(m.Data), err)
		}
	}
	return release, nil
}

// await receives replies until the one to request id, dropping those to
// earlier requests whose callers gave up waiting. long says the request
// moves rpc.LongBulk bytes or more and the engine's host is busy: the
// wait sleeps at once (fabric.RecvLong; see objstore/rpc's doc,
// "Waiting").
func (c *Client) await(ctx context.Context, id uint64, dst []byte, long bool) (rpc.Msg, error) {
	for {
		n, err := rpc.Recv(ctx, c.conn, rpc.TagRep, c.rbuf, long)
		if err != nil {
			if ctx.Err() == nil {
				c.broken = err
			}
			return rpc.Msg{}, fmt.Errorf("receive reply: %w", err)
		}
		var rep rpc.Msg
		if err := rep.Decode(c.rbuf[:n]); err != nil {
			c.broken = err
			return rpc.Msg{}, fmt.Errorf("reply: %w", err)
		}
		c.busy = rep.Hints&rpc.HintBusy != 0
		if rep.ID > id {
			c.broken = fmt.Errorf("%w: a reply to request %d while waiting for %d", rpc.ErrMalformed, rep.ID, id)
			return rpc.Msg{}, c.broken
		}
		if rep.ID < id {
			dst = nil // a stale reply: its data goes to a fresh buffer, dropped
		}
		if err := c.replyData(ctx, &rep, dst); err != nil {
			return rpc.Msg{}, err
		}
		if rep.ID == id {
			return rep, nil
		}
	}
}

// replyData puts rep's data in dst, or a new buffer if dst is nil, and
// points rep.data at it.
func (c *Client) replyData(ctx context.Context, rep *rpc.Msg, dst []byte) error {
	n := int(rep.DataLen)
	if dst == nil {
		dst = make([]byte, n)
	} else if len(dst) < n {
		c.broken = fmt.Errorf("%w: %d bytes of reply data for a %d-byte buffer", rpc.ErrMalformed, n, len(dst))
		return c.broken
	}
	switch rep.Mode {
	case rpc.ModeInline:
		copy(dst, rep.Data)
	case rpc.ModeMsg:
		got, err := c.conn.Recv(ctx, rpc.TagData, dst[:n])
		if err == nil && got != n {
			err = fmt.Errorf("%w: %d bytes of data, the reply says %d", rpc.ErrMalformed, got, n)
		}
		if err != nil {
			c.broken = fmt.Errorf("%w: %w", errBroken, err)
			return fmt.Errorf("receive %d bytes of data: %w", n, err)
		}
	}
	rep.Data = dst[:n]
	return nil
}
