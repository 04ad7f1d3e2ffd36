package rpc

import (
	"context"
	"fmt"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/object"
)

// session is the engine's side of one client's connection: its open
// container handles and its buffers. One goroutine runs it.
type session struct {
	srv  *server
	conn fabric.Conn
	rma  fabric.RMAConn // nil when the connection has no RMA
	view fabric.RMAViewer

	handles map[uint64]object.Container
	next    uint64 // the last handle given out

	rbuf []byte // the request
	sbuf []byte // the reply
	dbuf []byte // data, from the allocator; grows
}

func newSession(s *server, conn fabric.Conn) *session {
	ss := &session{srv: s, conn: conn, handles: make(map[uint64]object.Container),
		rbuf: make([]byte, maxMsg), sbuf: make([]byte, 0, maxMsg)}
	ss.rma, _ = conn.(fabric.RMAConn)
	ss.view, _ = conn.(fabric.RMAViewer)
	return ss
}

// close releases the client's handles and the data buffer.
func (ss *session) close() {
	for h, c := range ss.handles {
		if err := c.Close(); err != nil {
			ss.srv.logf("dfs engine: close container handle %d of a client gone: %v", h, err)
		}
		delete(ss.handles, h)
	}
	if ss.dbuf != nil && ss.srv.opts.Alloc != nil {
		ss.srv.opts.Alloc.Free(ss.dbuf)
	}
	ss.dbuf = nil
}

// data returns the data buffer cut to n bytes, growing it if need be.
func (ss *session) data(n int) []byte {
	if n <= cap(ss.dbuf) {
		return ss.dbuf[:n]
	}
	if a := ss.srv.opts.Alloc; a != nil {
		if ss.dbuf != nil {
			a.Free(ss.dbuf)
		}
		ss.dbuf = a.Alloc(n)
	} else {
		ss.dbuf = make([]byte, n)
	}
	return ss.dbuf[:n]
}

// run serves requests until the connection fails, ctx ends or a request
// is malformed, and returns why.
//
// After a request that moved longBulk bytes or more, on a busy host, it
// waits for the next one without spinning (see the package doc's
// "Waiting").
func (ss *session) run(ctx context.Context) error {
	long := false
	for {
		n, err := recv(ctx, ss.conn, tagReq, ss.rbuf, long)
		if err != nil {
			return fmt.Errorf("receive request: %w", err)
		}
		var m msg
		if err := m.decode(ss.rbuf[:n]); err != nil {
			// The stream can no longer be trusted: say why, and drop it.
			ss.reply(ctx, &m, &msg{kind: kindInvalid, s1: "dfs engine: request: " + err.Error()})
			return fmt.Errorf("request: %w", err)
		}
		if err := ss.requestData(ctx, &m); err != nil {
			return err
		}
		rep := ss.dispatch(ctx, &m)
		if err := ss.reply(ctx, &m, &rep); err != nil {
			return err
		}
		long = m.bulk() >= longBulk && ss.srv.opts.Load.busy()
	}
}

// requestData fetches a request's data that is not inline: the next
// message, or an RMA read of the client's buffer.
func (ss *session) requestData(ctx context.Context, m *msg) error {
	switch {
	case m.mode == modeMsg:
		buf := ss.data(int(m.dataLen))
		got, err := ss.conn.Recv(ctx, tagData, buf)
		if err != nil {
			return fmt.Errorf("receive %d bytes of %s data: %w", m.dataLen, m.op, err)
		}
		if got != len(buf) {
			return fmt.Errorf("%s data: %w: %d bytes, the request says %d", m.op, errMalformed, got, len(buf))
		}
		m.data = buf
	case m.mode == modeRMA && m.op == opWriteArray && ss.rma != nil:
		if v := ss.inPlace(m, int(m.dataLen)); v != nil {
			m.data = v // the container writes from the client's buffer
			return nil
		}
		buf := ss.data(int(m.dataLen))
		if err := ss.rma.Read(ctx, m.key, 0, buf); err != nil {
			return fmt.Errorf("RMA read of %d bytes of %s data: %w", m.dataLen, m.op, err)
		}
		m.data = buf
	}
	return nil
}

// inPlace returns the first n bytes of the client's RMA region of m as a
// slice of this process's memory, when the connection reaches it so (the
// client's shm arena): then the container moves the data between that
// buffer and its files with one copy, as a POSIX pwrite or pread makes. It
// marks m so, and returns nil otherwise.
func (ss *session) inPlace(m *msg, n int) []byte {
	if ss.view == nil || m.mode != modeRMA {
		return nil
	}
	v := ss.view.View(m.key, 0, n)
	m.inPlace = v != nil
	return v
}

// reply sends rep, the answer to m, and its data: inline when it is
// small, by RMA into the client's buffer when m asked for that, as a
// message of its own otherwise.
func (ss *session) reply(ctx context.Context, m, rep *msg) error {
	rep.id, rep.op = m.id, m.op
	if ss.srv.opts.Load.busy() {
		rep.hints |= hintBusy
	}
	rep.dataLen = uint64(len(rep.data))
	if over := rep.encodedLen() + inlineMax - maxMsg; over > 0 && rep.kind != kindOK {
		rep.s1 = rep.s1[:max(0, len(rep.s1)-over)] // an error text too long to carry whole
	}
	if rep.encodedLen() > maxMsg {
		*rep = msg{id: m.id, op: m.op, kind: kindInvalid, s1: fmt.Sprintf("%s: a reply of %d bytes, more than a message holds", m.op, rep.encodedLen())}
	}
	switch {
	case m.mode == modeRMA && m.op == opReadArray && len(rep.data) > 0:
		rep.mode = modeRMA
		if m.inPlace {
			break // read straight into the client's buffer
		}
		if err := ss.rma.Write(ctx, m.key, 0, rep.data); err != nil {
			return fmt.Errorf("RMA write of %d bytes of %s data: %w", len(rep.data), m.op, err)
		}
	case len(rep.data) <= inlineMax && rep.encodedLen()+len(rep.data) <= maxMsg:
		rep.mode = modeInline
	default:
		rep.mode = modeMsg
	}
	ss.sbuf = rep.encode(ss.sbuf)
	if err := ss.conn.Send(ctx, tagRep, ss.sbuf); err != nil {
		return fmt.Errorf("send reply to %s: %w", m.op, err)
	}
	if rep.mode == modeMsg {
		if err := ss.conn.Send(ctx, tagData, rep.data); err != nil {
			return fmt.Errorf("send %d bytes of %s data: %w", len(rep.data), m.op, err)
		}
	}
	return nil
}

// recv receives a tag message on c into b: by fabric.RecvLong when long
// (see the package doc's "Waiting"), by Recv otherwise.
func recv(ctx context.Context, c fabric.Conn, tag uint32, b []byte, long bool) (int, error) {
	if long {
		return fabric.RecvLong(ctx, c, tag, b)
	}
	return c.Recv(ctx, tag, b)
}
