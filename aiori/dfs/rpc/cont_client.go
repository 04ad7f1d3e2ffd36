package rpc

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hpcbench/hpcbench/objstore/object"
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
	rep, err := k.c.call(ctx, &msg{op: opAllocOIDs, handle: k.handle, class: cl, a: int64(n)}, nil)
	return rep.oid, err
}

// Put stores val in the engine.
func (k *Cont) Put(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	_, err := k.c.call(ctx, &msg{op: opPut, handle: k.handle, oid: oid, s1: dkey, s2: akey, data: val}, nil)
	return err
}

// Insert stores val in the engine if dkey has no akey yet.
func (k *Cont) Insert(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	_, err := k.c.call(ctx, &msg{op: opInsert, handle: k.handle, oid: oid, s1: dkey, s2: akey, data: val}, nil)
	return err
}

// Get returns a value from the engine.
func (k *Cont) Get(ctx context.Context, oid object.OID, dkey, akey string) ([]byte, error) {
	rep, err := k.c.call(ctx, &msg{op: opGet, handle: k.handle, oid: oid, s1: dkey, s2: akey}, nil)
	if err != nil {
		return nil, err
	}
	return rep.data, nil
}

// Remove punches a dkey in the engine.
func (k *Cont) Remove(ctx context.Context, oid object.OID, dkey string) error {
	_, err := k.c.call(ctx, &msg{op: opRemove, handle: k.handle, oid: oid, s1: dkey}, nil)
	return err
}

// RemoveIf punches a dkey in the engine if its akey holds expect.
func (k *Cont) RemoveIf(ctx context.Context, oid object.OID, dkey, akey string, expect []byte) error {
	_, err := k.c.call(ctx, &msg{op: opRemoveIf, handle: k.handle, oid: oid, s1: dkey, s2: akey, data: expect}, nil)
	return err
}

// Unlink removes dkey from oid (RemoveIf when expect is not nil) and
// then, only if that succeeded, punches victim, in one round trip
// (object.Unlinker). removed says the entry was removed: err is then the
// punch's.
func (k *Cont) Unlink(ctx context.Context, oid object.OID, dkey, akey string, expect []byte, victim object.OID) (removed bool, err error) {
	m := msg{op: opUnlink, handle: k.handle, oid: oid, s1: dkey, a: int64(victim.Hi), b: int64(victim.Lo)}
	if expect != nil {
		m.s2, m.data, m.c = akey, expect, 1
	}
	rep, err := k.c.call(ctx, &m, nil)
	return rep.a == 1, err
}

// List lists dkeys in the engine.
func (k *Cont) List(ctx context.Context, oid object.OID, anchor string, max int) ([]string, string, error) {
	rep, err := k.c.call(ctx, &msg{op: opList, handle: k.handle, oid: oid, s1: anchor, a: int64(max)}, nil)
	if err != nil {
		return nil, "", err
	}
	keys, err := decodeStrings(rep.data)
	if err != nil {
		return nil, "", k.c.wrap(opList, err)
	}
	return keys, rep.s1, nil
}

// bulk returns the data mode for a transfer of p: RMA when the client
// asked for it and the connection has it, or when the engine views p in
// place (one of the client's Alloc buffers on fabric/shm: the engine
// then moves it between p and its files with no copy of its own), else
// the client decides by size (modeInline stands for "inline or message").
func (k *Cont) bulk(p []byte) mode {
	if len(p) > inlineMax && (k.c.rma != nil || k.c.views != nil && k.c.views.PeerViews(p)) {
		return modeRMA
	}
	return modeInline
}

// WriteArray writes p in the engine, in calls of at most maxData bytes.
func (k *Cont) WriteArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) error {
	for {
		n := min(len(p), maxData)
		m := msg{op: opWriteArray, handle: k.handle, oid: a.OID, c: a.ChunkSize, a: off, flags: f, data: p[:n], mode: k.bulk(p[:n])}
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
// maxData bytes, straight into p.
func (k *Cont) ReadArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) (int, error) {
	done := 0
	for {
		n := min(len(p)-done, maxData)
		q := p[done : done+n]
		m := msg{op: opReadArray, handle: k.handle, oid: a.OID, c: a.ChunkSize, a: off, b: int64(n), flags: f, mode: k.bulk(q)}
		if m.mode == modeRMA {
			m.data, m.dataLen = q, uint64(n)
		}
		rep, err := k.c.call(ctx, &m, q)
		if err != nil && err != io.EOF {
			return done, err
		}
		if rep.a < 0 || rep.a > int64(n) || int(rep.dataLen) != int(rep.a) {
			return done, k.c.wrap(opReadArray, fmt.Errorf("%w: %d bytes read of %d asked, %d sent", errMalformed, rep.a, n, rep.dataLen))
		}
		done += int(rep.a)
		off += rep.a
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
	rep, err := k.c.call(ctx, &msg{op: opArraySize, handle: k.handle, oid: a.OID, c: a.ChunkSize}, nil)
	return rep.a, err
}

// SetSize truncates or extends the array in the engine.
func (k *Cont) SetSize(ctx context.Context, a object.Array, size int64) error {
	_, err := k.c.call(ctx, &msg{op: opSetSize, handle: k.handle, oid: a.OID, c: a.ChunkSize, a: size}, nil)
	return err
}

// SyncArray makes the array stable in the engine.
func (k *Cont) SyncArray(ctx context.Context, a object.Array) error {
	_, err := k.c.call(ctx, &msg{op: opSyncArray, handle: k.handle, oid: a.OID, c: a.ChunkSize}, nil)
	return err
}

// Punch removes the object in the engine.
func (k *Cont) Punch(ctx context.Context, oid object.OID) error {
	_, err := k.c.call(ctx, &msg{op: opPunch, handle: k.handle, oid: oid}, nil)
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
	_, err := k.c.call(ctx, &msg{op: opContClose, handle: k.handle}, nil)
	return err
}
