package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/rpc"
)

// ServerOptions configures Serve.
type ServerOptions struct {
	// Alloc, if not nil, gives the engine its data buffers: the
	// transport's allocator (fabric/shm's *Transport), so that the data
	// of a ReadArray reply moves to the client with one copy.
	Alloc fabric.Allocator
	// Logf, if not nil, receives a line for each client that comes and
	// goes and each one refused or dropped for a protocol error.
	Logf func(format string, args ...any)
	// HelloTimeout bounds a new client's hello; DefaultHelloTimeout
	// when 0.
	HelloTimeout time.Duration
	// Load, if not nil, counts the sessions of every Serve call of one
	// engine against its host's CPUs, for the waiting policy of bulk
	// calls (see objstore/rpc's doc, "Waiting"). Nil: never busy.
	Load *Load
}

// Load is the sessions an engine serves, against its host's CPUs.
type Load struct {
	cpus     int
	sessions atomic.Int64
}

// NewLoad returns a Load for a host with cpus CPUs online.
func NewLoad(cpus int) *Load { return &Load{cpus: cpus} }

// busy reports whether l's engine serves as many sessions as its host has
// CPUs: then a client's wait and a session's copy compete for a CPU.
func (l *Load) busy() bool {
	return l != nil && l.cpus > 0 && l.sessions.Load() >= int64(l.cpus)
}

// add counts a session in (d 1) or out (d -1).
func (l *Load) add(d int64) {
	if l != nil {
		l.sessions.Add(d)
	}
}

// DefaultHelloTimeout is how long the engine waits for a client's hello.
const DefaultHelloTimeout = 10 * time.Second

// server is one Serve call's shared state.
type server struct {
	pool object.Pool
	opts ServerOptions
}

// Serve accepts clients on l and serves pool to each, on a goroutine of
// its own, until ctx ends; then it closes l and every connection, waits
// for their goroutines and returns nil. A client whose connection fails
// (it closed it, or died) has its container handles closed; the others
// are served on. An Accept failure other than ctx's end or a closed
// listener drops that one peer; a closed listener ends Serve with an
// error, after the same shutdown.
func Serve(ctx context.Context, l fabric.Listener, pool object.Pool, o ServerOptions) error {
	if o.HelloTimeout == 0 {
		o.HelloTimeout = DefaultHelloTimeout
	}
	s := &server{pool: pool, opts: o}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		l.Close()
		wg.Wait()
	}()
	var backoff time.Duration // after failed Accepts, as net/http's
	for {
		conn, rank, err := l.Accept(ctx)
		switch {
		case ctx.Err() != nil:
			if conn != nil {
				conn.Close()
			}
			return nil
		case errors.Is(err, fabric.ErrClosed):
			return fmt.Errorf("dfs engine %s: accept: %w", l.Addr(), err)
		case err != nil:
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.logf("dfs engine %s: accept: %v (retrying in %v)", l.Addr(), err, backoff)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			continue
		}
		backoff = 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.serveConn(ctx, conn, rank)
		}()
	}
}

func (s *server) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// serveConn serves one client until its connection fails or ctx ends,
// then closes the connection and the client's handles.
func (s *server) serveConn(ctx context.Context, conn fabric.Conn, rank int) {
	defer conn.Close()
	hctx, cancel := context.WithTimeout(ctx, s.opts.HelloTimeout)
	h, err := rpc.ServerHello(hctx, conn)
	cancel()
	if err != nil {
		s.logf("dfs engine: client rank %d refused: %v", rank, err)
		return
	}
	ss := newSession(s, conn)
	defer ss.close()
	s.opts.Load.add(1)
	defer s.opts.Load.add(-1)
	s.logf("dfs engine: client %d (rank %d) connected", h.ClientID, rank)
	err = ss.run(ctx)
	switch {
	case ctx.Err() != nil:
	case errors.Is(err, fabric.ErrClosed):
		s.logf("dfs engine: client %d (rank %d) gone: %v", h.ClientID, rank, err)
	default:
		s.logf("dfs engine: client %d (rank %d) dropped: %v", h.ClientID, rank, err)
	}
}
