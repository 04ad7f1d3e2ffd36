package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/store"
	"github.com/hpcbench/hpcbench/objstore/transport"
)

// AddrFile is the file in a pool's directory where a standalone engine
// (hpcbench dfs engine) publishes its addresses, one a line, while it
// holds the pool. A job whose first rank on a host finds the pool held by
// another engine there reads it and connects to that engine.
const AddrFile = "engine.addr"

// Options configure an engine.
type Options struct {
	// Listen is the TCP address the engine's tcp listener binds
	// ("HOST:PORT"); empty binds this host's address on a free port.
	Listen string
	// Publish writes the addresses to AddrFile in the pool's directory
	// (and removes it at Stop), for jobs that did not start the engine.
	Publish bool
	// SyncKV makes every metadata change stable before it is
	// acknowledged (store.Options.SyncKV).
	SyncKV bool
	// Logf, if not nil, receives the engine's notes (clients that come
	// and go).
	Logf func(format string, args ...any)
}

// Engine serves a pool to clients over the fabric, as daos_engine does:
// over shm to the processes of its host and tcp to the others. A job's
// first rank on each host runs one in its own process when no engine
// serves the pool there; hpcbench dfs engine runs one for many jobs.
type Engine struct {
	pool   *store.Pool
	addrs  []string
	cancel context.CancelFunc
	wg     sync.WaitGroup
	o      Options

	mu   sync.Mutex
	errs []error
}

// Start opens the pool in dir (which fails, wrapping store.ErrBusy, when
// another engine holds it) and serves it until Stop or ctx's end.
func Start(ctx context.Context, dir string, o Options) (*Engine, error) {
	pool, err := store.Open(dir, store.Options{SyncKV: o.SyncKV})
	if err != nil {
		return nil, err
	}
	// An engine serves every rank of its host: it takes as many Ps as the
	// host has CPUs, also in a rank that hpcbench launch gave one
	// (GOMAXPROCS=1 on a crowded host).
	if n := fabric.OnlineCPUs(); runtime.GOMAXPROCS(0) < n {
		runtime.GOMAXPROCS(n)
	}
	e := &Engine{pool: pool, o: o}
	load := NewLoad(fabric.OnlineCPUs())
	ctx, e.cancel = context.WithCancel(ctx)
	trs, err := transport.Engine(o.Listen)
	if err != nil {
		e.abort()
		return nil, err
	}
	for _, tr := range trs {
		l, err := tr.Listen(ctx, 0)
		if err != nil {
			e.abort()
			return nil, fmt.Errorf("engine: listen on %s: %w", tr.Name(), err)
		}
		e.addrs = append(e.addrs, l.Addr())
		so := ServerOptions{Logf: o.Logf, Load: load}
		if a, ok := tr.(fabric.Allocator); ok {
			so.Alloc = a
		}
		e.wg.Go(func() {
			if err := Serve(ctx, l, pool, so); err != nil {
				e.mu.Lock()
				e.errs = append(e.errs, fmt.Errorf("engine on %s: %w", l.Addr(), err))
				e.mu.Unlock()
			}
		})
	}
	if o.Publish {
		if err := writeAddrs(dir, e.addrs); err != nil {
			e.abort()
			return nil, err
		}
	}
	return e, nil
}

// Addrs returns the addresses clients dial, shm first.
func (e *Engine) Addrs() []string { return append([]string(nil), e.addrs...) }

// Pool returns the pool the engine serves.
func (e *Engine) Pool() *store.Pool { return e.pool }

// Stop stops serving, waits for the connections' goroutines, closes the
// pool (everything acknowledged is on its targets) and removes AddrFile.
func (e *Engine) Stop() error {
	e.cancel()
	e.wg.Wait()
	var errs []error
	if e.o.Publish {
		if err := os.Remove(filepath.Join(e.pool.Dir(), AddrFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	e.mu.Lock()
	errs = append(errs, e.errs...)
	e.mu.Unlock()
	if err := e.pool.Close(); err != nil {
		errs = append(errs, fmt.Errorf("engine: close the pool: %w", err))
	}
	return errors.Join(errs...)
}

// abort undoes a start that failed half way.
func (e *Engine) abort() {
	e.cancel()
	e.wg.Wait()
	_ = e.pool.Close()
}

// writeAddrs writes AddrFile atomically (a temporary file renamed).
func writeAddrs(dir string, addrs []string) error {
	tmp, err := os.CreateTemp(dir, AddrFile+".*")
	if err != nil {
		return fmt.Errorf("engine: publish the addresses: %w", err)
	}
	_, werr := tmp.WriteString(strings.Join(addrs, "\n") + "\n")
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("engine: publish the addresses: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, AddrFile)); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("engine: publish the addresses: %w", err)
	}
	return nil
}

// HolderWait is how long a job or a management command waits for a job's
// engine that holds the pool to go: such an engine publishes no addresses
// and serves only its own job, and one whose job has just ended may still
// be exiting (the launcher killed it, or it is closing the pool).
const HolderWait = 10 * time.Second

// WaitHolder is what to do about the engine that holds the pool in dir,
// which busy (the refusal to open it) names: a standalone engine's
// published addresses, to dial; or, once a holder that published none (a
// job's engine) has let go, nil addresses and a nil error, and the caller
// opens the pool again. It polls every 20 ms until deadline, then fails
// naming a job's engine.
func WaitHolder(ctx context.Context, dir string, deadline time.Time, busy error) ([]string, error) {
	for {
		addrs, err := readAddrs(dir)
		if err == nil {
			return addrs, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w (%v)", err, busy)
		}
		held, herr := store.Held(dir)
		switch {
		case herr != nil:
			return nil, herr
		case !held:
			return nil, nil
		case !time.Now().Before(deadline):
			return nil, fmt.Errorf("pool %s is in use by a job's engine, which serves only its job, and it did not let go in time (%v)", dir, busy)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("pool %s: waiting for the job's engine that holds it: %w", dir, context.Cause(ctx))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// readAddrs reads what a standalone engine published in dir.
func readAddrs(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, AddrFile))
	if err != nil {
		return nil, fmt.Errorf("another engine holds the pool but its addresses cannot be read: %w", err)
	}
	var addrs []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			addrs = append(addrs, l)
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("another engine holds the pool but %s is empty", filepath.Join(dir, AddrFile))
	}
	return addrs, nil
}
