package rpc

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
)

// seedMsgs are well-formed messages of several shapes, the fuzzers' seeds.
func seedMsgs() [][]byte {
	ms := []msg{
		{id: 1, op: opGet, handle: 1, oid: kvOID, s1: "dkey", s2: "akey"},
		{id: 2, op: opPut, handle: 1, oid: kvOID, s1: "d", s2: "a", data: []byte("value"), dataLen: 5},
		{id: 3, op: opWriteArray, handle: 1, oid: arr.OID, c: arr.ChunkSize, a: 4096, mode: modeMsg, dataLen: 1 << 20},
		{id: 4, op: opReadArray, handle: 1, oid: arr.OID, c: arr.ChunkSize, b: 100},
		{id: 5, op: opOpenCont, s1: "c"},
		{id: 6, op: opCreateCont, s1: "c", c: 8192, class: object.S2, dirCls: object.S1},
		{id: 7, op: opGet, kind: kindNotExist, s1: "get: does not exist"},
		{id: 8, op: opWriteArray, handle: 1, mode: modeRMA, key: make([]byte, 20), dataLen: 1 << 20},
		{id: 9, op: opReadArray, hints: hintBusy, a: 3, data: []byte("abc"), dataLen: 3},
		{id: 10, op: opUnlink, handle: 1, oid: kvOID, s1: "f", s2: "DFS_INODE", a: int64(arr.OID.Hi), b: int64(arr.OID.Lo), c: 1, data: []byte("inode"), dataLen: 5},
	}
	var out [][]byte
	for _, m := range ms {
		out = append(out, m.encode(nil))
	}
	return out
}

// FuzzDecodeMsg checks that decoding any bytes fails cleanly or yields a
// message that encodes and decodes to itself.
func FuzzDecodeMsg(f *testing.F) {
	for _, s := range seedMsgs() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m msg
		if m.decode(b) != nil {
			return
		}
		var again msg
		if err := again.decode(m.encode(nil)); err != nil {
			t.Fatalf("re-decode of %+v: %v", m, err)
		}
		if fmt.Sprint(again) != fmt.Sprint(m) {
			t.Fatalf("re-decoded %+v, want %+v", again, m)
		}
	})
}

// FuzzDecodeLists checks the list and target decoders on any bytes.
func FuzzDecodeLists(f *testing.F) {
	f.Add(appendStrings(nil, []string{"a", "", "ccc"}))
	f.Add(appendTargets(nil, []object.TargetInfo{{Index: 1, Path: "/t", TotalBytes: 10, FreeBytes: 5, FSID: "1:2"}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if ss, err := decodeStrings(b); err == nil && string(appendStrings(nil, ss)) != string(b) {
			t.Fatalf("strings %q re-encode differently", ss)
		}
		if ts, err := decodeTargets(b); err == nil && len(appendTargets(nil, ts)) != len(b) {
			t.Fatalf("targets %+v re-encode to another length", ts)
		}
	})
}

// FuzzDecodeHello checks the hello and answer decoders on any bytes.
func FuzzDecodeHello(f *testing.F) {
	f.Add(hello{version: Version, clientID: 3}.encode())
	f.Add(encodeAnswer(helloRefused, "no"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, err := decodeHello(b); err == nil && binary.LittleEndian.Uint16(b[6:]) == 0 && string(h.encode()) != string(b) {
			t.Fatalf("hello %+v re-encodes differently from %x", h, b)
		}
		decodeAnswer(b) // must not panic
	})
}

// FuzzSession feeds an engine session any request and checks that it
// answers or drops the connection without panicking.
func FuzzSession(f *testing.F) {
	for _, s := range seedMsgs() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m msg
		if len(b) > maxMsg || m.decode(b) == nil && m.op == opReadArray && m.b > 1<<20 {
			return // too large for a Recv, or a read the fuzzer need not allocate
		}
		pool := memobj.NewPool()
		openCont(t, pool, "c")
		ss := newSession(&server{pool: pool}, &oneShotConn{req: b})
		if c, err := pool.OpenCont(context.Background(), "c"); err == nil {
			ss.handles[1] = c
		}
		defer ss.close()
		if err := ss.run(context.Background()); err == nil {
			t.Fatal("run returned nil")
		}
	})
}
