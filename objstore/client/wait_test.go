package client_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/client"
	"github.com/hpcbench/hpcbench/objstore/engine"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
	"github.com/hpcbench/hpcbench/objstore/rpc"
	"github.com/hpcbench/hpcbench/objstore/rpc/rpctest"
)

// longTransport wraps a transport so that the Conns it makes count their
// RecvLong calls in longs (and pass them on to fabric.RecvLong).
type longTransport struct {
	fabric.Transport
	longs *atomic.Int64
}

func (t longTransport) Dial(ctx context.Context, self int, addr string) (fabric.Conn, error) {
	c, err := t.Transport.Dial(ctx, self, addr)
	if err != nil {
		return nil, err
	}
	return longConn{c, t.longs}, nil
}

func (t longTransport) Listen(ctx context.Context, self int) (fabric.Listener, error) {
	l, err := t.Transport.Listen(ctx, self)
	if err != nil {
		return nil, err
	}
	return longListener{l, t.longs}, nil
}

type longListener struct {
	fabric.Listener
	longs *atomic.Int64
}

func (l longListener) Accept(ctx context.Context) (fabric.Conn, int, error) {
	c, r, err := l.Listener.Accept(ctx)
	if err != nil {
		return c, r, err
	}
	return longConn{c, l.longs}, r, nil
}

type longConn struct {
	fabric.Conn
	longs *atomic.Int64
}

func (c longConn) RecvLong(ctx context.Context, tag uint32, b []byte) (int, error) {
	c.longs.Add(1)
	return fabric.RecvLong(ctx, c.Conn, tag, b)
}

// TestWaitPolicy checks objstore/rpc's doc, "Waiting": the client waits
// for the answer to a call of rpc.LongBulk bytes or more with RecvLong,
// and the session for the request after answering one, exactly when the
// engine's Load says its host is busy (as many sessions as CPUs); smaller
// calls, and every call on a host with a CPU to spare, use Recv.
func TestWaitPolicy(t *testing.T) {
	const calls = 4 // writes, then as many reads
	for _, tc := range []struct {
		name string
		load *engine.Load
		size int
		long int64 // RecvLongs on each side
	}{
		{"busy, 1 MiB", engine.NewLoad(1), 1 << 20, 2 * calls},
		{"busy, longBulk", engine.NewLoad(1), rpc.LongBulk, 2 * calls},
		{"busy, below longBulk", engine.NewLoad(1), rpc.LongBulk - 4096, 0},
		{"a CPU to spare, 1 MiB", engine.NewLoad(2), 1 << 20, 0},
		{"no Load, 1 MiB", nil, 1 << 20, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var engineLongs, clientLongs atomic.Int64
			tr := shmTransport(t)
			e := startEngineWith(t, longTransport{tr, &engineLongs}, memobj.NewPool(), engine.ServerOptions{Load: tc.load})
			ctx := context.Background()
			cl, err := client.Dial(ctx, longTransport{tr, &clientLongs}, e.addr, client.ClientOptions{Rank: 1})
			if err != nil {
				t.Fatal(err)
			}
			c := rpctest.OpenCont(t, cl, "c") // its replies bring the hint
			buf := pattern(tc.size, 3)
			for i := range calls {
				if err := c.WriteArray(ctx, rpctest.Array, int64(i*tc.size), buf, 0); err != nil {
					t.Fatal(err)
				}
			}
			for i := range calls {
				if n, err := c.ReadArray(ctx, rpctest.Array, int64(i*tc.size), buf, 0); err != nil || n != tc.size {
					t.Fatalf("ReadArray %d = %d, %v", i, n, err)
				}
			}
			if got := clientLongs.Load(); got != tc.long {
				t.Errorf("the client waited with RecvLong %d times; want %d", got, tc.long)
			}
			cl.Close()
			e.stop(t) // the session has made its last Recv
			if got := engineLongs.Load(); got != tc.long {
				t.Errorf("the session waited with RecvLong %d times; want %d", got, tc.long)
			}
		})
	}
}
