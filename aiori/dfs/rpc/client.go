package rpc

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/object"
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
	// fabric/shm a message measured faster (see the package doc).
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
	busy   bool   // the last reply's hintBusy

	closeOnce sync.Once
	closeErr  error
}

var _ object.Pool = (*Client)(nil)

// Dial connects to the engine listening at addr through tr and says hello.
func Dial(ctx context.Context, tr fabric.Transport, addr string, o ClientOptions) (*Client, error) {
	return dial(ctx, tr, addr, o, Version)
}

// dial is Dial speaking protocol version v (tests speak others).
func dial(ctx context.Context, tr fabric.Transport, addr string, o ClientOptions, v uint16) (*Client, error) {
	conn, err := tr.Dial(ctx, o.Rank, addr)
	if err != nil {
		return nil, fmt.Errorf("dfs engine %s: dial: %w", addr, err)
	}
	if err := clientHello(ctx, conn, hello{version: v, clientID: uint64(o.Rank)}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("dfs engine %s: %w", addr, err)
	}
	c := &Client{
		addr: addr, conn: conn,
		turn: make(chan struct{}, 1),
		sbuf: make([]byte, 0, maxMsg),
		rbuf: make([]byte, maxMsg),
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
func (c *Client) call(ctx context.Context, m *msg, dst []byte) (msg, error) {
	select {
	case <-c.turn:
	case <-ctx.Done():
		return msg{}, c.wrap(m.op, ctx.Err())
	}
	defer func() { c.turn <- struct{}{} }()
	if c.broken != nil {
		return msg{}, c.wrap(m.op, c.broken)
	}
	rep, err := c.exchange(ctx, m, dst)
	if err != nil {
		return msg{}, c.wrap(m.op, err)
	}
	return rep, replyErr(c.addr, rep.kind, rep.s1)
}

// wrap names the engine and the operation in a transport error.
func (c *Client) wrap(o op, err error) error {
	return fmt.Errorf("dfs engine %s: %s: %w", c.addr, o, err)
}

// errBroken wraps the cause of a connection left out of step.
var errBroken = errors.New("connection out of step after an interrupted transfer")

// exchange is call's work, with the turn held.
func (c *Client) exchange(ctx context.Context, m *msg, dst []byte) (msg, error) {
	release, err := c.post(ctx, m)
	if release != nil {
		defer release()
	}
	if err != nil {
		return msg{}, err
	}
	rep, err := c.await(ctx, m.id, dst, m.bulk() >= longBulk && c.busy)
	if err != nil && m.mode == modeRMA && c.broken == nil {
		// The engine may still reach the exposed buffer, which the
		// caller gets back: nothing may go on this connection.
		c.broken = fmt.Errorf("%w: %w", errBroken, err)
	}
	return rep, err
}

// post sends request m and its data, numbering it, with the turn held. It
// returns, when m's buffer is exposed to the engine, the function that
// ends that, to call once the reply is in (or the call given up).
func (c *Client) post(ctx context.Context, m *msg) (release func() error, err error) {
	c.next++
	m.id = c.next
	if m.encodedLen() > maxMsg {
		return nil, fmt.Errorf("%d bytes of keys and labels, more than a message holds: %w", m.encodedLen()-prefixLen, object.ErrInvalid)
	}
	switch {
	case m.mode == modeRMA:
		r := c.rma
		if r == nil {
			r = c.views // bulk chose RMA for a buffer the engine views
		}
		key, rel, err := r.Expose(m.data)
		if err != nil {
			return nil, fmt.Errorf("expose %d bytes for the engine: %w", len(m.data), err)
		}
		m.key, release = key, rel
	case len(m.data) <= inlineMax && m.encodedLen()+len(m.data) <= maxMsg:
		m.mode = modeInline
	default:
		m.mode = modeMsg
	}
	if m.op != opReadArray {
		m.dataLen = uint64(len(m.data))
	}
	c.sbuf = m.encode(c.sbuf)
	if err := c.conn.Send(ctx, tagReq, c.sbuf); err != nil {
		// A request cut off by its context may have gone all the same:
		// harmless when it is whole in itself (its late reply is
		// dropped), not when data was to follow or stays exposed.
		switch {
		case ctx.Err() == nil:
			c.broken = err
		case m.mode != modeInline:
			c.broken = fmt.Errorf("%w: %w", errBroken, err)
		}
		return release, fmt.Errorf("send request: %w", err)
	}
	if m.mode == modeMsg {
		if err := c.conn.Send(ctx, tagData, m.data); err != nil {
			c.broken = fmt.Errorf("%w: %w", errBroken, err)
			return release, fmt.Errorf("send %d bytes of data: %w", len(m.data), err)
		}
	}
	return release, nil
}

// await receives replies until the one to request id, dropping those to
// earlier requests whose callers gave up waiting. long says the request
// moves longBulk bytes or more and the engine's host is busy: the wait
// sleeps at once (fabric.RecvLong; see the package doc's "Waiting").
func (c *Client) await(ctx context.Context, id uint64, dst []byte, long bool) (msg, error) {
	for {
		n, err := recv(ctx, c.conn, tagRep, c.rbuf, long)
		if err != nil {
			if ctx.Err() == nil {
				c.broken = err
			}
			return msg{}, fmt.Errorf("receive reply: %w", err)
		}
		var rep msg
		if err := rep.decode(c.rbuf[:n]); err != nil {
			c.broken = err
			return msg{}, fmt.Errorf("reply: %w", err)
		}
		c.busy = rep.hints&hintBusy != 0
		if rep.id > id {
			c.broken = fmt.Errorf("%w: a reply to request %d while waiting for %d", errMalformed, rep.id, id)
			return msg{}, c.broken
		}
		if rep.id < id {
			dst = nil // a stale reply: its data goes to a fresh buffer, dropped
		}
		if err := c.replyData(ctx, &rep, dst); err != nil {
			return msg{}, err
		}
		if rep.id == id {
			return rep, nil
		}
	}
}

// replyData puts rep's data in dst, or a new buffer if dst is nil, and
// points rep.data at it.
func (c *Client) replyData(ctx context.Context, rep *msg, dst []byte) error {
	n := int(rep.dataLen)
	if dst == nil {
		dst = make([]byte, n)
	} else if len(dst) < n {
		c.broken = fmt.Errorf("%w: %d bytes of reply data for a %d-byte buffer", errMalformed, n, len(dst))
		return c.broken
	}
	switch rep.mode {
	case modeInline:
		copy(dst, rep.data)
	case modeMsg:
		got, err := c.conn.Recv(ctx, tagData, dst[:n])
		if err == nil && got != n {
			err = fmt.Errorf("%w: %d bytes of data, the reply says %d", errMalformed, got, n)
		}
		if err != nil {
			c.broken = fmt.Errorf("%w: %w", errBroken, err)
			return fmt.Errorf("receive %d bytes of data: %w", n, err)
		}
	}
	rep.data = dst[:n]
	return nil
}
