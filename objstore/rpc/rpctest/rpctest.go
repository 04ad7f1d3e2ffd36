package rpctest

import (
	"context"
	"errors"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/rpc"
)

// KVOID is the KV object the messages name: class S1.
var KVOID = object.NewOID(object.S1, 7)

// Array is the array object the messages name: class S2, chunks of 1 MiB.
var Array = object.Array{OID: object.NewOID(object.S2, 9), ChunkSize: 1 << 20}

// SeedMsgs are well-formed messages of several shapes, the fuzzers' seeds.
func SeedMsgs() [][]byte {
	ms := []rpc.Msg{
		{ID: 1, Op: rpc.OpGet, Handle: 1, OID: KVOID, S1: "dkey", S2: "akey"},
		{ID: 2, Op: rpc.OpPut, Handle: 1, OID: KVOID, S1: "d", S2: "a", Data: []byte("value"), DataLen: 5},
		{ID: 3, Op: rpc.OpWriteArray, Handle: 1, OID: Array.OID, C: Array.ChunkSize, A: 4096, Mode: rpc.ModeMsg, DataLen: 1 << 20},
		{ID: 4, Op: rpc.OpReadArray, Handle: 1, OID: Array.OID, C: Array.ChunkSize, B: 100},
		{ID: 5, Op: rpc.OpOpenCont, S1: "c"},
		{ID: 6, Op: rpc.OpCreateCont, S1: "c", C: 8192, Class: object.S2, DirClass: object.S1},
		{ID: 7, Op: rpc.OpGet, Kind: rpc.KindNotExist, S1: "get: does not exist"},
		{ID: 8, Op: rpc.OpWriteArray, Handle: 1, Mode: rpc.ModeRMA, Key: make([]byte, 20), DataLen: 1 << 20},
		{ID: 9, Op: rpc.OpReadArray, Hints: rpc.HintBusy, A: 3, Data: []byte("abc"), DataLen: 3},
		{ID: 10, Op: rpc.OpUnlink, Handle: 1, OID: KVOID, S1: "f", S2: "DFS_INODE", A: int64(Array.OID.Hi), B: int64(Array.OID.Lo), C: 1, Data: []byte("inode"), DataLen: 5},
	}
	var out [][]byte
	for _, m := range ms {
		out = append(out, m.Encode(nil))
	}
	return out
}

// OpenCont creates container label in p and opens it.
func OpenCont(tb testing.TB, p object.Pool, label string) object.Container {
	tb.Helper()
	ctx := context.Background()
	if err := p.CreateCont(ctx, label, object.ContProps{}); err != nil && !errors.Is(err, object.ErrExist) {
		tb.Fatal(err)
	}
	c, err := p.OpenCont(ctx, label)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
