package rpc_test

import (
	"fmt"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/rpc"
	"github.com/hpcbench/hpcbench/objstore/rpc/rpctest"
)

// FuzzDecodeMsg checks that decoding any bytes fails cleanly or yields a
// message that encodes and decodes to itself.
func FuzzDecodeMsg(f *testing.F) {
	for _, s := range rpctest.SeedMsgs() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m rpc.Msg
		if m.Decode(b) != nil {
			return
		}
		var again rpc.Msg
		if err := again.Decode(m.Encode(nil)); err != nil {
			t.Fatalf("re-decode of %+v: %v", m, err)
		}
		if fmt.Sprint(again) != fmt.Sprint(m) {
			t.Fatalf("re-decoded %+v, want %+v", again, m)
		}
	})
}

// FuzzDecodeLists checks the list and target decoders on any bytes.
func FuzzDecodeLists(f *testing.F) {
	f.Add(rpc.AppendStrings(nil, []string{"a", "", "ccc"}))
	f.Add(rpc.AppendTargets(nil, []object.TargetInfo{{Index: 1, Path: "/t", TotalBytes: 10, FreeBytes: 5, TotalInodes: 7, FreeInodes: 3, FSID: "1:2"}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if ss, err := rpc.DecodeStrings(b); err == nil && string(rpc.AppendStrings(nil, ss)) != string(b) {
			t.Fatalf("strings %q re-encode differently", ss)
		}
		if ts, err := rpc.DecodeTargets(b); err == nil && len(rpc.AppendTargets(nil, ts)) != len(b) {
			t.Fatalf("targets %+v re-encode to another length", ts)
		}
	})
}
