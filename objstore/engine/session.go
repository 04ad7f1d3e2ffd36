package engine

import (
	"context"
	"fmt"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/rpc"
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

// request is a request as a session serves it: the message, and where
// its data is.
type request struct {
	rpc.Msg
	// inPlace says Data is the client's own buffer, reached through
	// fabric.RMAViewer: a read's bytes are there already, with nothing
	// to write back.
	inPlace bool
}

func newSession(s *server, conn fabric.Conn) *session {
	ss := &session{srv: s, conn: conn, handles: make(map[uint64]object.Container),
		rbuf: make([]byte, rpc.MaxMsg), sbuf: make([]byte, 0, rpc.MaxMsg)}
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
// After a request that moved rpc.LongBulk bytes or more, on a busy host,
// it waits for the next one without spinning (see objstore/rpc's doc,
// "Waiting").
func (ss *session) run(ctx context.Context) error {
	long := false
	for {
		n, err := rpc.Recv(ctx, ss.conn, rpc.TagReq, ss.rbuf, long)
		if err != nil {
			return fmt.Errorf("receive request: %w", err)
		}
		var m request
		if err := m.Decode(ss.rbuf[:n]); err != nil {
			// The stream can no longer be trusted: say why, and drop it.
			ss.reply(ctx, &m, &rpc.Msg{Kind: rpc.KindInvalid, S1: "dfs engine: request: " + err.Error()})
			return fmt.Errorf("request: %w", err)
		}
		if err := ss.requestData(ctx, &m); err != nil {
			return err
		}
		rep := ss.dispatch(ctx, &m)
		if err := ss.reply(ctx, &m, &rep); err != nil {
			return err
		}
		long = m.Bulk() >= rpc.LongBulk && ss.srv.opts.Load.busy()
	}
}

// requestData fetches a request's data that is not inline: the next
// message, or an RMA read of the client's buffer.
func (ss *session) requestData(ctx context.Context, m *request) error {
	switch {
	case m.Mode == rpc.ModeMsg:
		buf := ss.data(int(m.DataLen))
		got, err := ss.conn.Recv(ctx, rpc.TagData, buf)
		if err != nil {
			return fmt.Errorf("receive %d bytes of %s data: %w", m.DataLen, m.Op, err)
		}
		if got != len(buf) {
			return fmt.Errorf("%s data: %w: %d bytes, the request says %d", m.Op, rpc.ErrMalformed, got, len(buf))
		}
		m.Data = buf
	case m.Mode == rpc.ModeRMA && m.Op == rpc.OpWriteArray && ss.rma != nil:
		if v := ss.inPlace(m, int(m.DataLen)); v != nil {
			m.Data = v // the container writes from the client's buffer
			return nil
		}
		buf := ss.data(int(m.DataLen))
		if err := ss.rma.Read(ctx, m.Key, 0, buf); err != nil {
			return fmt.Errorf("RMA read of %d bytes of %s data: %w", m.DataLen, m.Op, err)
		}
		m.Data = buf
	}
	return nil
}

// inPlace returns the first n bytes of the client's RMA region of m as a
// slice of this process's memory, when the connection reaches it so (the
// client's shm arena): then the container moves the data between that
// buffer and its files with one copy, as a POSIX pwrite or pread makes. It
// marks m so, and returns nil otherwise.
func (ss *session) inPlace(m *request, n int) []byte {
	if ss.view == nil || m.Mode != rpc.ModeRMA {
		return nil
	}
	v := ss.view.View(m.Key, 0, n)
	m.inPlace = v != nil
	return v
}

// reply sends rep, the answer to m, and its data: inline when it is
// small, by RMA into the client's buffer when m asked for that, as a
// message of its own otherwise.
func (ss *session) reply(ctx context.Context, m *request, rep *rpc.Msg) error {
	rep.ID, rep.Op = m.ID, m.Op
	if ss.srv.opts.Load.busy() {
		rep.Hints |= rpc.HintBusy
	}
	rep.DataLen = uint64(len(rep.Data))
	if over := rep.EncodedLen() + rpc.InlineMax - rpc.MaxMsg; over > 0 && rep.Kind != rpc.KindOK {
		rep.S1 = rep.S1[:max(0, len(rep.S1)-over)] // an error text too long to carry whole
	}
	if rep.EncodedLen() > rpc.MaxMsg {
		*rep = rpc.Msg{ID: m.ID, Op: m.Op, Kind: rpc.KindInvalid, S1: fmt.Sprintf("%s: a reply of %d bytes, more than a message holds", m.Op, rep.EncodedLen())}
	}
	switch {
	case m.Mode == rpc.ModeRMA && m.Op == rpc.OpReadArray && len(rep.Data) > 0:
		rep.Mode = rpc.ModeRMA
		if m.inPlace {
			break // read straight into the client's buffer
		}
		if err := ss.rma.Write(ctx, m.Key, 0, rep.Data); err != nil {
			return fmt.Errorf("RMA write of %d bytes of %s data: %w", len(rep.Data), m.Op, err)
		}
	case len(rep.Data) <= rpc.InlineMax && rep.EncodedLen()+len(rep.Data) <= rpc.MaxMsg:
		rep.Mode = rpc.ModeInline
	default:
		rep.Mode = rpc.ModeMsg
	}
	ss.sbuf = rep.Encode(ss.sbuf)
	if err := ss.conn.Send(ctx, rpc.TagRep, ss.sbuf); err != nil {
		return fmt.Errorf("send reply to %s: %w", m.Op, err)
	}
	if rep.Mode == rpc.ModeMsg {
		if err := ss.conn.Send(ctx, rpc.TagData, rep.Data); err != nil {
			return fmt.Errorf("send %d bytes of %s data: %w", len(rep.Data), m.Op, err)
		}
	}
	return nil
}
