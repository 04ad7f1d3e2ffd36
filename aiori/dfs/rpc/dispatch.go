package rpc

import (
	"context"
	"fmt"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// dispatch runs request m against the pool or one of the session's
// containers and returns the reply (its id and op are reply's to set).
func (ss *session) dispatch(ctx context.Context, m *msg) msg {
	var rep msg
	err := ss.do(ctx, m, &rep)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %w", errCanceled, err)
		}
		rep.kind, rep.s1 = kindOf(err), err.Error()
	}
	return rep
}

// do is dispatch's work: it fills rep and returns the operation's error.
func (ss *session) do(ctx context.Context, m *msg, rep *msg) error {
	if m.mode == modeRMA && (ss.rma == nil || (m.op != opWriteArray && m.op != opReadArray)) {
		return fmt.Errorf("%s: data by RMA on a connection without it, or for an operation that moves no array data: %w", m.op, object.ErrInvalid)
	}
	if m.op >= opAllocOIDs && m.op < opMax || m.op == opContClose {
		c, ok := ss.handles[m.handle]
		if !ok {
			return fmt.Errorf("%s: container handle %d is not open: %w", m.op, m.handle, object.ErrInvalid)
		}
		if m.op == opContClose {
			delete(ss.handles, m.handle)
			return c.Close()
		}
		return ss.doCont(ctx, c, m, rep)
	}
	return ss.doPool(ctx, m, rep)
}

// doPool runs the pool's operations.
func (ss *session) doPool(ctx context.Context, m *msg, rep *msg) error {
	p := ss.srv.pool
	switch m.op {
	case opQuery:
		info, err := p.Query(ctx)
		rep.s1, rep.data = info.UUID, appendTargets(nil, info.Targets)
		return err
	case opCreateCont:
		return p.CreateCont(ctx, m.s1, getProps(m))
	case opOpenCont:
		c, err := p.OpenCont(ctx, m.s1)
		if err != nil {
			return err
		}
		ss.next++
		ss.handles[ss.next] = c
		rep.handle = ss.next
		putProps(rep, c.Props())
		return nil
	case opListConts:
		ls, err := p.ListConts(ctx)
		rep.data = appendStrings(nil, ls)
		return err
	case opQueryCont:
		info, err := p.QueryCont(ctx, m.s1)
		rep.s1, rep.s2, rep.a, rep.b = info.Label, info.UUID, info.Objects, info.ArrayBytes
		putProps(rep, info.Props)
		return err
	case opDestroyCont:
		return p.DestroyCont(ctx, m.s1)
	}
	return fmt.Errorf("%s: %w", m.op, errUnknownOp)
}

// errUnknownOp is a request's op code that names no operation.
var errUnknownOp = fmt.Errorf("unknown operation: %w", object.ErrInvalid)

// doCont runs a container's operations.
func (ss *session) doCont(ctx context.Context, c object.Container, m *msg, rep *msg) error {
	arr := object.Array{OID: m.oid, ChunkSize: m.c}
	switch m.op {
	case opAllocOIDs:
		oid, err := c.AllocOIDs(ctx, m.class, int(m.a))
		rep.oid = oid
		return err
	case opPut:
		return c.Put(ctx, m.oid, m.s1, m.s2, m.data)
	case opInsert:
		return c.Insert(ctx, m.oid, m.s1, m.s2, m.data)
	case opGet:
		v, err := c.Get(ctx, m.oid, m.s1, m.s2)
		rep.data = v
		return err
	case opRemove:
		return c.Remove(ctx, m.oid, m.s1)
	case opRemoveIf:
		return c.RemoveIf(ctx, m.oid, m.s1, m.s2, m.data)
	case opUnlink:
		var expect []byte
		switch m.c {
		case 0:
		case 1:
			expect = m.data
		default:
			return fmt.Errorf("%s: condition %d: %w (0 plain, 1 conditional)", m.op, m.c, object.ErrInvalid)
		}
		victim := object.OID{Hi: uint64(m.a), Lo: uint64(m.b)}
		removed, err := object.Unlink(ctx, c, m.oid, m.s1, m.s2, expect, victim)
		if removed {
			rep.a = 1
		}
		return err
	case opList:
		keys, next, err := c.List(ctx, m.oid, m.s1, int(m.a))
		rep.data, rep.s1 = appendStrings(nil, keys), next
		return err
	case opWriteArray:
		return c.WriteArray(ctx, arr, m.a, m.data, m.flags)
	case opReadArray:
		if m.b < 0 || m.b > maxData {
			return fmt.Errorf("%s of %d bytes: %w (from 0 to %d)", m.op, m.b, object.ErrInvalid, maxData)
		}
		buf := ss.inPlace(m, int(m.b))
		if buf == nil {
			buf = ss.data(int(m.b))
		}
		n, err := c.ReadArray(ctx, arr, m.a, buf, m.flags)
		if n < 0 || n > len(buf) {
			return fmt.Errorf("%s: the container read %d bytes into %d", m.op, n, len(buf))
		}
		rep.a, rep.data = int64(n), buf[:n]
		return err
	case opArraySize:
		size, err := c.ArraySize(ctx, arr)
		rep.a = size
		return err
	case opSetSize:
		return c.SetSize(ctx, arr, m.a)
	case opSyncArray:
		return c.SyncArray(ctx, arr)
	case opPunch:
		return c.Punch(ctx, m.oid)
	}
	return fmt.Errorf("%s: %w", m.op, errUnknownOp)
}
