package client_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/client"
	"github.com/hpcbench/hpcbench/objstore/engine"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
	"github.com/hpcbench/hpcbench/objstore/transport"
)

// fabricCase is a transport the tests run over, and client options.
type fabricCase struct {
	name string
	tr   func(tb testing.TB) fabric.Transport
	opts client.ClientOptions
}

func shmTransport(tb testing.TB) fabric.Transport {
	tb.Helper()
	tr, err := transport.SHM()
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

func tcpTransport(tb testing.TB) fabric.Transport {
	tb.Helper()
	tr, err := transport.TCP("127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// fabrics are the transports every test runs over: shm and tcp, each with
// data as messages and by RMA (tcp's: frames the client's side applies
// while it waits for the reply).
func fabrics() []fabricCase {
	return []fabricCase{
		{"shm", shmTransport, client.ClientOptions{}},
		{"shm-rma", shmTransport, client.ClientOptions{BulkRMA: true}},
		{"tcp", tcpTransport, client.ClientOptions{}},
		{"tcp-rma", tcpTransport, client.ClientOptions{BulkRMA: true}},
	}
}

// testEngine is an in-process engine: Serve on rank 0 of a transport.
type testEngine struct {
	tr     fabric.Transport
	addr   string
	cancel context.CancelFunc
	done   chan error // Serve's result
	logs   chan string
}

// startEngine serves pool on tr until the test ends (or stop).
func startEngine(tb testing.TB, tr fabric.Transport, pool object.Pool) *testEngine {
	tb.Helper()
	return startEngineWith(tb, tr, pool, engine.ServerOptions{})
}

// startEngineWith is startEngine with options; the transport's allocator
// and the engine's log are set on top of so.
func startEngineWith(tb testing.TB, tr fabric.Transport, pool object.Pool, so engine.ServerOptions) *testEngine {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l, err := tr.Listen(ctx, 0)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	e := &testEngine{tr: tr, addr: l.Addr(), cancel: cancel, done: make(chan error, 1), logs: make(chan string, 64)}
	so.Alloc, _ = tr.(fabric.Allocator)
	so.Logf = e.logf
	go func() {
		e.done <- engine.Serve(ctx, l, pool, so)
	}()
	tb.Cleanup(func() { e.stop(tb) })
	return e
}

// logf keeps the engine's log lines for tests that look for one, and
// drops them once nobody reads.
func (e *testEngine) logf(format string, args ...any) {
	select {
	case e.logs <- fmt.Sprintf(format, args...):
	default:
	}
}

// stop ends Serve and waits for it; it may be called more than once.
func (e *testEngine) stop(tb testing.TB) {
	e.cancel()
	if err, ok := <-e.done; ok {
		close(e.done)
		if err != nil {
			tb.Errorf("Serve: %v", err)
		}
	}
}

// dial connects a client of rank rank to e, closed when the test ends.
func (e *testEngine) dial(tb testing.TB, rank int, o client.ClientOptions) *client.Client {
	tb.Helper()
	o.Rank = rank
	c, err := client.Dial(context.Background(), e.tr, e.addr, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// countingPool is a memobj.Pool whose handles report their Close, so a
// test sees the engine release a dead client's handles.
type countingPool struct {
	*memobj.Pool
	closed chan string // a label for each handle closed
}

func (p *countingPool) OpenCont(ctx context.Context, label string) (object.Container, error) {
	c, err := p.Pool.OpenCont(ctx, label)
	if err != nil {
		return nil, err
	}
	return &countingCont{Container: c, label: label, closed: p.closed}, nil
}

type countingCont struct {
	object.Container
	label  string
	once   sync.Once
	closed chan string
}

func (c *countingCont) Close() error {
	c.once.Do(func() { c.closed <- c.label })
	return c.Container.Close()
}

// blockingPool's containers block Get of dkey "block" until release is
// closed or ctx ends, so a test holds a call in the engine.
type blockingPool struct {
	*memobj.Pool
	entered chan struct{} // a token each time a Get blocks
	release chan struct{}
}

func (p *blockingPool) OpenCont(ctx context.Context, label string) (object.Container, error) {
	c, err := p.Pool.OpenCont(ctx, label)
	if err != nil {
		return nil, err
	}
	return &blockingCont{Container: c, p: p}, nil
}

type blockingCont struct {
	object.Container
	p *blockingPool
}

func (c *blockingCont) Get(ctx context.Context, oid object.OID, dkey, akey string) ([]byte, error) {
	if dkey == "block" {
		c.p.entered <- struct{}{}
		select {
		case <-c.p.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return c.Container.Get(ctx, oid, dkey, akey)
}
