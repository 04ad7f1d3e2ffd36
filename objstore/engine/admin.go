package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/objstore/client"
	"github.com/hpcbench/hpcbench/objstore/client/router"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/store"
)

// AdminPool opens the pool in dir for management (hpcbench dfs pool and
// cont): directly when no engine holds it, through the standalone engine
// that does otherwise; while a job's engine holds it, it waits for that
// engine to go (see WaitHolder). The function returned closes it.
func AdminPool(ctx context.Context, dir string) (object.Pool, func(), error) {
	return adminPool(ctx, dir, HolderWait)
}

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
		addrs, err := WaitHolder(ctx, dir, deadline, err)
		if err != nil {
			return nil, nil, err
		}
		if addrs == nil {
			continue // the holder went: open it
		}
		c, err := client.DialEngine(ctx, addrs, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("connect to the engine of pool %s: %w", dir, err)
		}
		return c, func() { _ = c.Close() }, nil
	}
}

// PublishedAddrs returns the addresses of the engine that holds the pool
// in dir, as it published them, or an error when none holds it.
func PublishedAddrs(dir string) ([]string, error) {
	held, err := store.Held(dir)
	if err != nil {
		return nil, err
	}
	if !held {
		return nil, fmt.Errorf("no engine holds pool %s", dir)
	}
	return readAddrs(dir)
}

// ContPart says what part of container label the pool in hand holds when
// the container was laid out over several engines, one a host
// (router.Part: "engine 1 of 2 engine(s) with targets [4 4] (hosts
// node0,node1)"), and "" otherwise.
func ContPart(ctx context.Context, pool object.Pool, label string) (string, error) {
	c, err := pool.OpenCont(ctx, label)
	if err != nil {
		return "", fmt.Errorf("open container %q: %w", label, err)
	}
	part, err := router.Part(ctx, c)
	if err != nil {
		err = fmt.Errorf("container %q: %w", label, err)
	}
	return part, errors.Join(err, c.Close())
}
