package pmi

import (
	"context"
	"errors"
	"fmt"
)

// pipelineWindow is how many get requests GetMany sends before it reads
// their replies. Replies are at most MaxLine bytes, so a window's replies
// (64 KiB at most) fit in a socket's buffer and the server never blocks on
// a client that is still writing.
const pipelineWindow = 64

// GetMany gets each of keys, as Get does, and returns their values in
// order. With pipelined set, it sends up to 64 requests in one write before
// it reads their replies, in order: the wire lines are PMI-1's own, but a
// server must read requests from a stream (hpcbench's does; MPICH's clients
// never send a second request before the first reply, so other servers
// may not). Without it, it is Get in a loop. The first key that is not
// found fails the call with ErrNoKey, after every reply of its window was
// read, so the connection stays usable.
func (c *Client) GetMany(ctx context.Context, keys []string, pipelined bool) ([]string, error) {
	out := make([]string, 0, len(keys))
	if !pipelined || c.local != nil {
		for _, k := range keys {
			v, err := c.Get(ctx, k)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	for _, k := range keys {
		if err := c.checkKey("get", k); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var batch []byte
	for len(keys) > 0 {
		n := min(len(keys), pipelineWindow)
		batch = batch[:0]
		for _, k := range keys[:n] {
			line := c.request("get", "kvsname", c.kvs, "key", k)
			if len(line) > MaxLine {
				return nil, fmt.Errorf("pmi: get: request line of %d bytes exceeds the %d-byte limit", len(line), MaxLine)
			}
			batch = append(batch, line...)
		}
		var missing error
		err := c.pipeline(ctx, batch, n, func(i int, m Msg) error {
			if err := rcError("get", m); err != nil {
				var pe *Error
				if errors.As(err, &pe) {
					if missing == nil {
						missing = &noKeyError{key: keys[i], peer: pe}
					}
					return nil
				}
				return err
			}
			v, ok := m.Get("value")
			if !ok {
				return fmt.Errorf("pmi: get %q: reply %q has rc=0 but no value", keys[i], clip(m.String()))
			}
			out = append(out, v)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if missing != nil {
			return nil, missing
		}
		keys = keys[n:]
	}
	return out, nil
}

// pipeline sends batch, n get requests, in one write and hands each of the
// n replies to each in order. Any failure after the write marks the
// connection broken: replies could still be on their way. c.mu must be
// held.
func (c *Client) pipeline(ctx context.Context, batch []byte, n int, each func(int, Msg) error) error {
	if c.closed.Load() {
		return &closedError{op: "get", why: "client is closed"}
	}
	if c.broken != nil {
		return &closedError{op: "get", why: "connection unusable after an earlier failure (" + c.broken.Error() + ")"}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pmi: get: %w", err)
	}
	defer c.unwatch(c.watch(ctx))
	if sent, err := c.send(ctx, "get", batch); err != nil {
		if sent {
			c.broken = err
		}
		return err
	}
	for i := range n {
		m, err := c.recv(ctx, "get", "get_result")
		if err == nil {
			err = each(i, m)
		}
		if err != nil {
			c.broken = err
			return err
		}
	}
	return nil
}

// GetBytesMany reads each of keys as GetBytes does and returns the data in
// order, with GetMany's pipelining when pipelined is set (for the keys and
// for the segments of a long value).
func (c *Client) GetBytesMany(ctx context.Context, keys []string, pipelined bool) ([][]byte, error) {
	vals, err := c.GetMany(ctx, keys, pipelined)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(vals))
	for i, v := range vals {
		if out[i], err = c.decodeValue(ctx, keys[i], v, pipelined); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// GetBytesFrom is GetBytesMany of the keys' names: PMI-1's key space is
// flat, and the rank that put each is not needed.
func (c *Client) GetBytesFrom(ctx context.Context, keys []Key, pipelined bool) ([][]byte, error) {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return c.GetBytesMany(ctx, names, pipelined)
}

// EnvLauncherKVS is the variable hpcbench launch sets for every rank to
// the job's KVS name. A client whose server answers get_my_kvsname with
// that name runs under hpcbench's own launcher (Client.OwnLauncher); one
// inherited through another launcher (hpcbench launch -- mpiexec ...)
// names another KVS.
const EnvLauncherKVS = "HPCBENCH_LAUNCHER_KVS"

// OwnLauncher reports whether hpcbench's own launcher serves this job, and
// so whether the server takes GetMany's pipelined requests and SendPhase's
// reports (any other server would fail the job on them).
func (c *Client) OwnLauncher() bool { return c.own }
