package engine

import (
	"context"
	"fmt"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/rpc"
)

// dispatch runs request m against the pool or one of the session's
// containers and returns the reply (its id and op are reply's to set).
func (ss *session) dispatch(ctx context.Context, m *request) rpc.Msg {
	var rep rpc.Msg
	err := ss.do(ctx, m, &rep)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %w", rpc.ErrCanceled, err)
		}
		rep.Kind, rep.S1 = rpc.KindOf(err), err.Error()
	}
	return rep
}

// do is dispatch's work: it fills rep and returns the operation's error.
func (ss *session) do(ctx context.Context, m *request, rep *rpc.Msg) error {
	if m.Mode == rpc.ModeRMA && (ss.rma == nil || (m.Op != rpc.OpWriteArray && m.Op != rpc.OpReadArray)) {
		return fmt.Errorf("%s: data by RMA on a connection without it, or for an operation that moves no array data: %w", m.Op, object.ErrInvalid)
	}
	if m.Op >= rpc.OpAllocOIDs && m.Op < rpc.OpMax || m.Op == rpc.OpContClose {
		c, ok := ss.handles[m.Handle]
		if !ok {
			return fmt.Errorf("%s: container handle %d is not open: %w", m.Op, m.Handle, object.ErrInvalid)
		}
		if m.Op == rpc.OpContClose {
			delete(ss.handles, m.Handle)
			return c.Close()
		}
		return ss.doCont(ctx, c, m, rep)
	}
	return ss.doPool(ctx, m, rep)
}

// doPool runs the pool's operations.
func (ss *session) doPool(ctx context.Context, m *request, rep *rpc.Msg) error {
	p := ss.srv.pool
	switch m.Op {
	case rpc.OpQuery:
		info, err := p.Query(ctx)
		rep.S1, rep.Data = info.UUID, rpc.AppendTargets(nil, info.Targets)
		return err
	case rpc.OpCreateCont:
		return p.CreateCont(ctx, m.S1, m.Props())
	case rpc.OpOpenCont:
		c, err := p.OpenCont(ctx, m.S1)
		if err != nil {
			return err
		}
		ss.next++
		ss.handles[ss.next] = c
		rep.Handle = ss.next
		rep.SetProps(c.Props())
		return nil
	case rpc.OpListConts:
		ls, err := p.ListConts(ctx)
		rep.Data = rpc.AppendStrings(nil, ls)
		return err
	case rpc.OpQueryCont:
		info, err := p.QueryCont(ctx, m.S1)
		rep.S1, rep.S2, rep.A, rep.B = info.Label, info.UUID, info.Objects, info.ArrayBytes
		rep.SetProps(info.Props)
		return err
	case rpc.OpDestroyCont:
		return p.DestroyCont(ctx, m.S1)
	}
	return fmt.Errorf("%s: %w", m.Op, errUnknownOp)
}

// errUnknownOp is a request's op code that names no operation.
var errUnknownOp = fmt.Errorf("unknown operation: %w", object.ErrInvalid)

// doCont runs a container's operations.
func (ss *session) doCont(ctx context.Context, c object.Container, m *request, rep *rpc.Msg) error {
	arr := object.Array{OID: m.OID, ChunkSize: m.C}
	switch m.Op {
	case rpc.OpAllocOIDs:
		oid, err := c.AllocOIDs(ctx, m.Class, int(m.A))
		rep.OID = oid
		return err
	case rpc.OpPut:
		return c.Put(ctx, m.OID, m.S1, m.S2, m.Data)
	case rpc.OpInsert:
		return c.Insert(ctx, m.OID, m.S1, m.S2, m.Data)
	case rpc.OpGet:
		v, err := c.Get(ctx, m.OID, m.S1, m.S2)
		rep.Data = v
		return err
	case rpc.OpRemove:
		return c.Remove(ctx, m.OID, m.S1)
	case rpc.OpRemoveIf:
		return c.RemoveIf(ctx, m.OID, m.S1, m.S2, m.Data)
	case rpc.OpUnlink:
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
	case rpc.OpList:
		keys, next, err := c.List(ctx, m.OID, m.S1, int(m.A))
		rep.Data, rep.S1 = rpc.AppendStrings(nil, keys), next
		return err
	case rpc.OpWriteArray:
		return c.WriteArray(ctx, arr, m.A, m.Data, m.Flags)
	case rpc.OpReadArray:
		if m.B < 0 || m.B > rpc.MaxData {
			return fmt.Errorf("%s of %d bytes: %w (from 0 to %d)", m.Op, m.B, object.ErrInvalid, rpc.MaxData)
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
	case rpc.OpArraySize:
		size, err := c.ArraySize(ctx, arr)
		rep.A = size
		return err
	case rpc.OpSetSize:
		return c.SetSize(ctx, arr, m.A)
	case rpc.OpSyncArray:
		return c.SyncArray(ctx, arr)
	case rpc.OpPunch:
		return c.Punch(ctx, m.OID)
	}
	return fmt.Errorf("%s: %w", m.Op, errUnknownOp)
}
