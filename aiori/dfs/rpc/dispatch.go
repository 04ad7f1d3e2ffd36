package rpc

import (
	"context"
	"fmt"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// dispatch runs request m against the pool or one of the session's
// containers and returns the reply (its id and op are reply's to set).
func (ss *session) dispatch(ctx context.Context, m *request) Msg {
	var rep Msg
	err := ss.do(ctx, m, &rep)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %w", ErrCanceled, err)
		}
		rep.Kind, rep.S1 = KindOf(err), err.Error()
	}
	return rep
}

// do is dispatch's work: it fills rep and returns the operation's error.
func (ss *session) do(ctx context.Context, m *request, rep *Msg) error {
	if m.Mode == ModeRMA && (ss.rma == nil || (m.Op != OpWriteArray && m.Op != OpReadArray)) {
		return fmt.Errorf("%s: data by RMA on a connection without it, or for an operation that moves no array data: %w", m.Op, object.ErrInvalid)
	}
	if m.Op >= OpAllocOIDs && m.Op < OpMax || m.Op == OpContClose {
		c, ok := ss.handles[m.Handle]
		if !ok {
			return fmt.Errorf("%s: container handle %d is not open: %w", m.Op, m.Handle, object.ErrInvalid)
		}
		if m.Op == OpContClose {
			delete(ss.handles, m.Handle)
			return c.Close()
		}
		return ss.doCont(ctx, c, m, rep)
	}
	return ss.doPool(ctx, m, rep)
}

// doPool runs the pool's operations.
func (ss *session) doPool(ctx context.Context, m *request, rep *Msg) error {
	p := ss.srv.pool
	switch m.Op {
	case OpQuery:
		info, err := p.Query(ctx)
		rep.S1, rep.Data = info.UUID, AppendTargets(nil, info.Targets)
		return err
	case OpCreateCont:
		return p.CreateCont(ctx, m.S1, m.Props())
	case OpOpenCont:
		c, err := p.OpenCont(ctx, m.S1)
		if err != nil {
			return err
		}
		ss.next++
		ss.handles[ss.next] = c
		rep.Handle = ss.next
		rep.SetProps(c.Props())
		return nil
	case OpListConts:
		ls, err := p.ListConts(ctx)
		rep.Data = AppendStrings(nil, ls)
		return err
	case OpQueryCont:
		info, err := p.QueryCont(ctx, m.S1)
		rep.S1, rep.S2, rep.A, rep.B = info.Label, info.UUID, info.Objects, info.ArrayBytes
		rep.SetProps(info.Props)
		return err
	case OpDestroyCont:
		return p.DestroyCont(ctx, m.S1)
	}
	return fmt.Errorf("%s: %w", m.Op, errUnknownOp)
}

// errUnknownOp is a request's op code that names no operation.
var errUnknownOp = fmt.Errorf("unknown operation: %w", object.ErrInvalid)

// doCont runs a container's operations.
func (ss *session) doCont(ctx context.Context, c object.Container, m *request, rep *Msg) error {
	arr := object.Array{OID: m.OID, ChunkSize: m.C}
	switch m.Op {
	case OpAllocOIDs:
		oid, err := c.AllocOIDs(ctx, m.Class, int(m.A))
		rep.OID = oid
		return err
	case OpPut:
		return c.Put(ctx, m.OID, m.S1, m.S2, m.Data)
	case OpInsert:
		return c.Insert(ctx, m.OID, m.S1, m.S2, m.Data)
	case OpGet:
		v, err := c.Get(ctx, m.OID, m.S1, m.S2)
		rep.Data = v
		return err
	case OpRemove:
		return c.Remove(ctx, m.OID, m.S1)
	case OpRemoveIf:
		return c.RemoveIf(ctx, m.OID, m.S1, m.S2, m.Data)
	case OpUnlink:
		var expect []byte
		switch m.C {
		case 0:
		case 1:
			expect = m.Data
		default:
			return fmt.Errorf("%s: condition %d: %w (0 plain, 1 conditional)", m.Op, m.C, object.ErrInvalid)
		}
		victim := object.OID{Hi: uint64(m.A), Lo: uint64(m.B)}
		removed, err := object.Unlink(ctx, c, m.OID, m.S1, m.S2, expect, victim)
		if removed {
			rep.A = 1
		}
		return err
	case OpList:
		keys, next, err := c.List(ctx, m.OID, m.S1, int(m.A))
		rep.Data, rep.S1 = AppendStrings(nil, keys), next
		return err
	case OpWriteArray:
		return c.WriteArray(ctx, arr, m.A, m.Data, m.Flags)
	case OpReadArray:
		if m.B < 0 || m.B > MaxData {
			return fmt.Errorf("%s of %d bytes: %w (from 0 to %d)", m.Op, m.B, object.ErrInvalid, MaxData)
		}
		buf := ss.inPlace(m, int(m.B))
		if buf == nil {
			buf = ss.data(int(m.B))
		}
		n, err := c.ReadArray(ctx, arr, m.A, buf, m.Flags)
		if n < 0 || n > len(buf) {
			return fmt.Errorf("%s: the container read %d bytes into %d", m.Op, n, len(buf))
		}
		rep.A, rep.Data = int64(n), buf[:n]
		return err
	case OpArraySize:
		size, err := c.ArraySize(ctx, arr)
		rep.A = size
		return err
	case OpSetSize:
		return c.SetSize(ctx, arr, m.A)
	case OpSyncArray:
		return c.SyncArray(ctx, arr)
	case OpPunch:
		return c.Punch(ctx, m.OID)
	}
	return fmt.Errorf("%s: %w", m.Op, errUnknownOp)
}
