package dfs

import (
	"context"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/aiori/dfs/object"
	"github.com/hpcbench/hpcbench/aiori/dfs/store"
)

// AdminPool opens the pool in dir for management (hpcbench dfs pool and
// cont): directly when no engine holds it, through the standalone engine
// that does otherwise. The function returned closes it.
func AdminPool(ctx context.Context, dir string) (object.Pool, func(), error) {
	p, err := store.Open(dir, store.Options{})
	if err == nil {
		return p, func() { _ = p.Close() }, nil
	}
	if !errors.Is(err, store.ErrBusy) {
		return nil, nil, err
	}
	addrs, rerr := readAddrs(dir)
	if rerr != nil {
		return nil, nil, fmt.Errorf("%w (%v)", rerr, err)
	}
	c, err := dialEngine(ctx, addrs, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to the engine of pool %s: %w", dir, err)
	}
	return c, func() { _ = c.Close() }, nil
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
