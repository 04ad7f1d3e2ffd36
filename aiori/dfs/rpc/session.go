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

// request is a request as a session serves it: the message, and where
// its data is.
type request struct {
	Msg
	// inPlace says Data is the client's own buffer, reached through
	// fabric.RMAViewer: a read's bytes are there already, with nothing
	// to write back.
	inPlace bool
}

func newSession(s *server, conn fabric.Conn) *session {
	ss := &session{srv: s, conn: conn, handles: make(map[uint64]object.Container),
		rbuf: make([]byte, MaxMsg), sbuf: make([]byte, 0, MaxMsg)}
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
		n, err := Recv(ctx, ss.conn, TagReq, ss.rbuf, long)
		if err != nil {
			return fmt.Errorf("receive request: %w", err)
		}
		var m request
		if err := m.Decode(ss.rbuf[:n]); err != nil {
			// The stream can no longer be trusted: say why, and drop it.
			ss.reply(ctx, &m, &Msg{Kind: KindInvalid, S1: "dfs engine: request: " + err.Error()})
			return fmt.Errorf("request: %w", err)
		}
		if err := ss.requestData(ctx, &m); err != nil {
			return err
		}
		rep := ss.dispatch(ctx, &m)
		if err := ss.reply(ctx, &m, &rep); err != nil {
			return err
		}
		long = m.Bulk() >= LongBulk && ss.srv.opts.Load.busy()
	}
}

// requestData fetches a request's data that is not inline: the next
// message, or an RMA read of the client's buffer.
func (ss *session) requestData(ctx context.Context, m *request) error {
	switch {
	case m.Mode == ModeMsg:
		buf := ss.data(int(m.DataLen))
		got, err := ss.conn.Recv(ctx, TagData, buf)
		if err != nil {
			return fmt.Errorf("receive %d bytes of %s data: %w", m.DataLen, m.Op, err)
		}
		if got != len(buf) {
			return fmt.Errorf("%s data: %w: %d bytes, the request says %d", m.Op, ErrMalformed, got, len(buf))
		}
		m.Data = buf
	case m.Mode == ModeRMA && m.Op == OpWriteArray && ss.rma != nil:
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
	if ss.view == nil || m.Mode != ModeRMA {
		return nil
	}
	v := ss.view.View(m.Key, 0, n)
	m.inPlace = v != nil
	return v
}

// reply sends rep, the answer to m, and its data: inline when it is
// small, by RMA into the client's buffer when m asked for that, as a
// message of its own otherwise.
func (ss *session) reply(ctx context.Context, m *request, rep *Msg) error {
	rep.ID, rep.Op = m.ID, m.Op
	if ss.srv.opts.Load.busy() {
		rep.Hints |= HintBusy
	}
	rep.DataLen = uint64(len(rep.Data))
	if over := rep.EncodedLen() + InlineMax - MaxMsg; over > 0 && rep.Kind != KindOK {
		rep.S1 = rep.S1[:max(0, len(rep.S1)-over)] // an error text too long to carry whole
	}
	if rep.EncodedLen() > MaxMsg {
		*rep = Msg{ID: m.ID, Op: m.Op, Kind: KindInvalid, S1: fmt.Sprintf("%s: a reply of %d bytes, more than a message holds", m.Op, rep.EncodedLen())}
	}
	switch {
	case m.Mode == ModeRMA && m.Op == OpReadArray && len(rep.Data) > 0:
		rep.Mode = ModeRMA
		if m.inPlace {
			break // read straight into the client's buffer
		}
		if err := ss.rma.Write(ctx, m.Key, 0, rep.Data); err != nil {
			return fmt.Errorf("RMA write of %d bytes of %s data: %w", len(rep.Data), m.Op, err)
		}
	case len(rep.Data) <= InlineMax && rep.EncodedLen()+len(rep.Data) <= MaxMsg:
		rep.Mode = ModeInline
	default:
		rep.Mode = ModeMsg
	}
	ss.sbuf = rep.Encode(ss.sbuf)
	if err := ss.conn.Send(ctx, TagRep, ss.sbuf); err != nil {
		return fmt.Errorf("send reply to %s: %w", m.Op, err)
	}
	if rep.Mode == ModeMsg {
		if err := ss.conn.Send(ctx, TagData, rep.Data); err != nil {
			return fmt.Errorf("send %d bytes of %s data: %w", len(rep.Data), m.Op, err)
		}
	}
	return nil
}
