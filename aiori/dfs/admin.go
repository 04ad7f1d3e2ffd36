package dfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/hpcbench/hpcbench/aiori/dfs/object"
	"github.com/hpcbench/hpcbench/aiori/dfs/store"
)

// AdminPool opens the pool in dir for management (hpcbench dfs pool and
// cont): directly when no engine holds it, through the standalone engine
// that does otherwise. A job's engine publishes no addresses and serves
// only its job; while one holds the pool, AdminPool waits up to
// HolderWait for it to go (it may be exiting: its job has just ended)
// before it gives up. The function returned closes it.
func AdminPool(ctx context.Context, dir string) (object.Pool, func(), error) {
	return adminPool(ctx, dir, HolderWait)
}

// HolderWait is how long management commands wait for a job's engine that
// holds the pool to go.
const HolderWait = 10 * time.Second

func adminPool(ctx context.Context, dir string, wait time.Duration) (object.Pool, func(), error) {
	deadline := time.Now().Add(wait)
	for {
		p, err := store.Open(dir, store.Options{})
		if err == nil {
			return p, func() { _ = p.Close() }, nil
		}
		if !errors.Is(err, store.ErrBusy) {
			return nil, nil, err
		}
		addrs, rerr := readAddrs(dir)
		if rerr == nil {
			c, err := dialEngine(ctx, addrs, 0)
			if err != nil {
				return nil, nil, fmt.Errorf("connect to the engine of pool %s: %w", dir, err)
			}
			return c, func() { _ = c.Close() }, nil
		}
		if !errors.Is(rerr, fs.ErrNotExist) || !time.Now().Before(deadline) {
			if errors.Is(rerr, fs.ErrNotExist) {
				return nil, nil, fmt.Errorf("pool %s is in use by a job's engine, which serves only its job, and it did not end within %v: %w", dir, wait, err)
			}
			return nil, nil, fmt.Errorf("%w (%v)", rerr, err)
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("pool %s: waiting for the job's engine that holds it: %w", dir, context.Cause(ctx))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// EngineAddrs returns the addresses of the engine that holds the pool in
// dir, as it published them, or an error when none holds it.
func EngineAddrs(dir string) ([]string, error) {
	held, err := store.Held(dir)
	if err != nil {
		return nil, err
	}
	if !held {
		return nil, fmt.Errorf("no engine holds pool %s", dir)
	}
	return readAddrs(dir)
}
