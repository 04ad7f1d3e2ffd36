package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/client"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
	"github.com/hpcbench/hpcbench/objstore/rpc"
	"github.com/hpcbench/hpcbench/objstore/rpc/rpctest"
)

// TestConcurrentClients runs several clients, each with several
// goroutines sharing it, on one engine, and checks every goroutine reads
// back what it wrote.
func TestConcurrentClients(t *testing.T) {
	const clients, goroutines, rounds = 3, 4, 20
	for _, fc := range fabrics() {
		t.Run(fc.name, func(t *testing.T) {
			e := startEngine(t, fc.tr(t), memobj.NewPool())
			var wg sync.WaitGroup
			errs := make(chan error, clients*goroutines)
			for ci := range clients {
				c := rpctest.OpenCont(t, e.dial(t, ci+1, fc.opts), "shared")
				for g := range goroutines {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs <- exerciseOne(c, uint64(ci*goroutines+g), rounds)
					}()
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// exerciseOne writes and reads back KV records and an array of its own
// object, rounds times.
func exerciseOne(c object.Container, who uint64, rounds int) error {
	ctx := context.Background()
	oid := object.NewOID(object.S1, 1000+who)
	a := object.Array{OID: oid, ChunkSize: 1 << 20}
	for r := range rounds {
		dkey := fmt.Sprintf("d%d", r)
		if err := c.Insert(ctx, oid, dkey, "a", []byte(dkey)); err != nil {
			return fmt.Errorf("goroutine %d: %w", who, err)
		}
		if v, err := c.Get(ctx, oid, dkey, "a"); err != nil || string(v) != dkey {
			return fmt.Errorf("goroutine %d: Get = %q, %v, want %q", who, v, err, dkey)
		}
		p := pattern(40<<10+r, byte(who))
		if err := c.WriteArray(ctx, a, 0, p, 0); err != nil {
			return fmt.Errorf("goroutine %d: %w", who, err)
		}
		q := make([]byte, len(p))
		if n, err := c.ReadArray(ctx, a, 0, q, 0); err != nil || n != len(p) || string(q) != string(p) {
			return fmt.Errorf("goroutine %d: ReadArray = %d, %v; data equal %v", who, n, err, string(q) == string(p))
		}
	}
	return nil
}

// TestClientDeath checks that the engine releases the handles of a client
// whose connection goes, and serves the other clients on.
func TestClientDeath(t *testing.T) {
	for _, fc := range fabrics() {
		t.Run(fc.name, func(t *testing.T) {
			pool := &countingPool{Pool: memobj.NewPool(), closed: make(chan string, 4)}
			e := startEngine(t, fc.tr(t), pool)
			dying, other := e.dial(t, 1, fc.opts), e.dial(t, 2, fc.opts)
			rpctest.OpenCont(t, dying, "a")
			rpctest.OpenCont(t, dying, "b")
			kept := rpctest.OpenCont(t, other, "c")
			if err := dying.CloseConn(); err != nil { // as its process dying does
				t.Fatal(err)
			}
			got := []string{<-pool.closed, <-pool.closed}
			if !(got[0] == "a" && got[1] == "b" || got[0] == "b" && got[1] == "a") {
				t.Errorf("handles closed: %q, want a and b", got)
			}
			if err := kept.Put(context.Background(), rpctest.KVOID, "d", "a", nil); err != nil {
				t.Errorf("the other client's Put: %v", err)
			}
			if _, err := dying.ListConts(context.Background()); !errors.Is(err, fabric.ErrClosed) {
				t.Errorf("the dead client's call: %v, want ErrClosed", err)
			}
		})
	}
}

// holdGet starts an engine over fc whose containers hold a Get of dkey
// "block", starts such a Get with ctx, and returns once the engine holds
// it; the Get's error arrives on blocked.
func holdGet(ctx context.Context, t *testing.T, fc fabricCase) (e *testEngine, pool *blockingPool, c object.Container, blocked <-chan error) {
	pool = &blockingPool{Pool: memobj.NewPool(), entered: make(chan struct{}, 1), release: make(chan struct{})}
	e = startEngine(t, fc.tr(t), pool)
	c = rpctest.OpenCont(t, e.dial(t, 1, fc.opts), "c")
	errc := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx, rpctest.KVOID, "block", "a")
		errc <- err
	}()
	<-pool.entered
	return e, pool, c, errc
}

// TestEngineDeath checks that when the engine stops, a call waiting in it
// and calls after it return errors naming the engine, and do not hang.
func TestEngineDeath(t *testing.T) {
	for _, fc := range fabrics() {
		t.Run(fc.name, func(t *testing.T) {
			e, _, c, blocked := holdGet(context.Background(), t, fc)
			e.stop(t)
			if err := <-blocked; err == nil || !strings.Contains(err.Error(), e.addr) {
				t.Errorf("a call in the engine when it stopped: %v, want an error naming %s", err, e.addr)
			}
			_, err := c.Get(context.Background(), rpctest.KVOID, "d", "a")
			if !errors.Is(err, fabric.ErrClosed) || !strings.Contains(err.Error(), "dfs engine "+e.addr) {
				t.Errorf("a call after the engine stopped: %v, want ErrClosed naming %s", err, e.addr)
			}
		})
	}
}

// TestCancel checks that a call whose context ends while the engine
// holds it, or while it waits for its turn behind that one, returns the
// context's error, and that the next call gets its own reply (the late
// one is dropped).
func TestCancel(t *testing.T) {
	for _, fc := range fabrics() {
		t.Run(fc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			_, pool, c, blocked := holdGet(ctx, t, fc)
			gone, cancelGone := context.WithCancel(context.Background())
			cancelGone()
			if err := c.Put(gone, rpctest.KVOID, "d", "a", nil); !errors.Is(err, context.Canceled) {
				t.Errorf("a call waiting its turn with its context ended: %v, want context.Canceled", err)
			}
			cancel()
			if err := <-blocked; !errors.Is(err, context.Canceled) {
				t.Errorf("a cancelled call: %v, want context.Canceled", err)
			}
			close(pool.release)
			bg := context.Background()
			if err := c.Put(bg, rpctest.KVOID, "d", "a", []byte("after")); err != nil {
				t.Fatal(err)
			}
			if v, err := c.Get(bg, rpctest.KVOID, "d", "a"); err != nil || string(v) != "after" {
				t.Errorf("Get after a cancelled call = %q, %v, want \"after\"", v, err)
			}
		})
	}
}

// TestVersionMismatch checks that a client of another protocol version is
// refused, with an error naming both versions on both sides.
func TestVersionMismatch(t *testing.T) {
	for _, fc := range fabrics() {
		t.Run(fc.name, func(t *testing.T) {
			e := startEngine(t, fc.tr(t), memobj.NewPool())
			_, err := client.DialVersion(context.Background(), e.tr, e.addr, client.ClientOptions{Rank: 1}, rpc.Version+1)
			want := fmt.Sprintf("the client speaks version %d, the engine %d", rpc.Version+1, rpc.Version)
			if !errors.Is(err, rpc.ErrVersion) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), e.addr) {
				t.Errorf("Dial of another version: %v, want ErrVersion saying %q", err, want)
			}
			line := <-e.logs
			if !strings.Contains(line, "refused") || !strings.Contains(line, fmt.Sprintf("speaks version %d, the engine %d", rpc.Version+1, rpc.Version)) {
				t.Errorf("engine log: %q, want the refusal with both versions", line)
			}
		})
	}
}
