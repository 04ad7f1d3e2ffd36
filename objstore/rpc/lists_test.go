package rpc_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/rpc"
)

// TestTargetsRoundTrip: every field of a target, inodes included, comes
// back as it went, and a list cut anywhere is refused as malformed.
func TestTargetsRoundTrip(t *testing.T) {
	in := []object.TargetInfo{
		{Index: 0, Path: "/p/tgt0", TotalBytes: 252 << 30, FreeBytes: 233 << 30, TotalInodes: 16 << 20, FreeInodes: 15 << 20, FSID: "fd00:1"},
		{Index: 1, Path: "/scratch/t1", TotalBytes: 1, FreeBytes: 0, TotalInodes: 0, FreeInodes: 0, FSID: "0:0"},
	}
	b := rpc.AppendTargets(nil, in)
	out, err := rpc.DecodeTargets(b)
	if err != nil || !reflect.DeepEqual(out, in) {
		t.Fatalf("DecodeTargets = %+v, %v; want %+v", out, err, in)
	}
	for n := range len(b) {
		if _, err := rpc.DecodeTargets(b[:n]); !errors.Is(err, rpc.ErrMalformed) {
			t.Errorf("cut at %d of %d bytes: %v, want ErrMalformed", n, len(b), err)
		}
	}
}
