package engine

import (
	"context"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object/memobj"
	"github.com/hpcbench/hpcbench/objstore/rpc"
	"github.com/hpcbench/hpcbench/objstore/rpc/rpctest"
)

// FuzzSession feeds an engine session any request and checks that it
// answers or drops the connection without panicking.
func FuzzSession(f *testing.F) {
	for _, s := range rpctest.SeedMsgs() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m rpc.Msg
		if len(b) > rpc.MaxMsg || m.Decode(b) == nil && m.Op == rpc.OpReadArray && m.B > 1<<20 {
			return // too large for a Recv, or a read the fuzzer need not allocate
		}
		pool := memobj.NewPool()
		rpctest.OpenCont(t, pool, "c")
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
