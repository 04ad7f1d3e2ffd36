package client

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/rpc"
)

// Cont is a container opened through a Client: an object.Container whose
// every call is forwarded to the engine.
type Cont struct {
	c      *Client
	handle uint64
	props  object.ContProps
}

var (
	_ object.Container = (*Cont)(nil)
	_ object.Unlinker  = (*Cont)(nil)
)

// Props returns the container's properties, as the engine gave them at
// open.
func (k *Cont) Props() object.ContProps { return k.props }

// AllocOIDs reserves n object ids in the engine.
func (k *Cont) AllocOIDs(ctx context.Context, cl object.Class, n int) (object.OID, error) {
	rep, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpAllocOIDs, Handle: k.handle, Class: cl, A: int64(n)}, nil)
	return rep.OID, err
}

// Put stores val in the engine.
func (k *Cont) Put(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	_, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpPut, Handle: k.handle, OID: oid, S1: dkey, S2: akey, Data: val}, nil)
	return err
}

// Insert stores val in the engine if dkey has no akey yet.
func (k *Cont) Insert(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	_, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpInsert, Handle: k.handle, OID: oid, S1: dkey, S2: akey, Data: val}, nil)
	return err
}

// Get returns a value from the engine.
func (k *Cont) Get(ctx context.Context, oid object.OID, dkey, akey string) ([]byte, error) {
	rep, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpGet, Handle: k.handle, OID: oid, S1: dkey, S2: akey}, nil)
	if err != nil {
		return nil, err
	}
	return rep.Data, nil
}

// Remove punches a dkey in the engine.
func (k *Cont) Remove(ctx context.Context, oid object.OID, dkey string) error {
	_, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpRemove, Handle: k.handle, OID: oid, S1: dkey}, nil)
	return err
}

// RemoveIf punches a dkey in the engine if its akey holds expect.
func (k *Cont) RemoveIf(ctx context.Context, oid object.OID, dkey, akey string, expect []byte) error {
	_, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpRemoveIf, Handle: k.handle, OID: oid, S1: dkey, S2: akey, Data: expect}, nil)
	return err
}

// Unlink removes dkey from oid (RemoveIf when expect is not nil) and
// then, only if that succeeded, punches victim, in one round trip
// (object.Unlinker). removed says the entry was removed: err is then the
// punch's.
func (k *Cont) Unlink(ctx context.Context, oid object.OID, dkey, akey string, expect []byte, victim object.OID) (removed bool, err error) {
	m := rpc.Msg{Op: rpc.OpUnlink, Handle: k.handle, OID: oid, S1: dkey, A: int64(victim.Hi), B: int64(victim.Lo)}
	if expect != nil {
		m.S2, m.Data, m.C = akey, expect, 1
	}
	rep, err := k.c.call(ctx, &m, nil)
	return rep.A == 1, err
}

// List lists dkeys in the engine.
func (k *Cont) List(ctx context.Context, oid object.OID, anchor string, max int) ([]string, string, error) {
	rep, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpList, Handle: k.handle, OID: oid, S1: anchor, A: int64(max)}, nil)
	if err != nil {
		return nil, "", err
	}
	keys, err := rpc.DecodeStrings(rep.Data)
	if err != nil {
		return nil, "", k.c.wrap(rpc.OpList, err)
	}
	return keys, rep.S1, nil
}

// bulk returns the data mode for a transfer of p: RMA when the client
// asked for it and the connection has it, or when the engine views p in
// place (one of the client's Alloc buffers on fabric/shm: the engine
// then moves it between p and its files with no copy of its own), else
// the client decides by size (rpc.ModeInline stands for "inline or message").
func (k *Cont) bulk(p []byte) rpc.Mode {
	if len(p) > rpc.InlineMax && (k.c.rma != nil || k.c.views != nil && k.c.views.PeerViews(p)) {
		return rpc.ModeRMA
	}
	return rpc.ModeInline
}

// WriteArray writes p in the engine, in calls of at most rpc.MaxData bytes.
func (k *Cont) WriteArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) error {
	for {
		n := min(len(p), rpc.MaxData)
		m := rpc.Msg{Op: rpc.OpWriteArray, Handle: k.handle, OID: a.OID, C: a.ChunkSize, A: off, Flags: f, Data: p[:n], Mode: k.bulk(p[:n])}
		if _, err := k.c.call(ctx, &m, nil); err != nil {
			return err
		}
		off, p = off+int64(n), p[n:]
		if len(p) == 0 {
			return nil
		}
	}
}

// ReadArray reads len(p) bytes from the engine, in calls of at most
// rpc.MaxData bytes, straight into p.
func (k *Cont) ReadArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) (int, error) {
	done := 0
	for {
		n := min(len(p)-done, rpc.MaxData)
		q := p[done : done+n]
		m := rpc.Msg{Op: rpc.OpReadArray, Handle: k.handle, OID: a.OID, C: a.ChunkSize, A: off, B: int64(n), Flags: f, Mode: k.bulk(q)}
		if m.Mode == rpc.ModeRMA {
			m.Data, m.DataLen = q, uint64(n)
		}
		rep, err := k.c.call(ctx, &m, q)
		if err != nil && err != io.EOF {
			return done, err
		}
		if rep.A < 0 || rep.A > int64(n) || int(rep.DataLen) != int(rep.A) {
			return done, k.c.wrap(rpc.OpReadArray, fmt.Errorf("%w: %d bytes read of %d asked, %d sent", rpc.ErrMalformed, rep.A, n, rep.DataLen))
		}
		done += int(rep.A)
		off += rep.A
		if err == io.EOF {
			return done, io.EOF
		}
		if done == len(p) {
			return done, nil
		}
	}
}

// ArraySize asks the engine for the array's size.
func (k *Cont) ArraySize(ctx context.Context, a object.Array) (int64, error) {
	rep, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpArraySize, Handle: k.handle, OID: a.OID, C: a.ChunkSize}, nil)
	return rep.A, err
}

// SetSize truncates or extends the array in the engine.
func (k *Cont) SetSize(ctx context.Context, a object.Array, size int64) error {
	_, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpSetSize, Handle: k.handle, OID: a.OID, C: a.ChunkSize, A: size}, nil)
	return err
}

// SyncArray makes the array stable in the engine.
func (k *Cont) SyncArray(ctx context.Context, a object.Array) error {
	_, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpSyncArray, Handle: k.handle, OID: a.OID, C: a.ChunkSize}, nil)
	return err
}

// Punch removes the object in the engine.
func (k *Cont) Punch(ctx context.Context, oid object.OID) error {
	_, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpPunch, Handle: k.handle, OID: oid}, nil)
	return err
}

// closeTimeout bounds Close's wait for the engine, which has no context.
const closeTimeout = 30 * time.Second

// Close releases the handle in the engine, waiting for it at most
// closeTimeout. A client whose connection is gone has no handle left to
// release (the engine dropped them), but Close says the call failed.
func (k *Cont) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	_, err := k.c.call(ctx, &rpc.Msg{Op: rpc.OpContClose, Handle: k.handle}, nil)
	return err
}
