package pmi

import (
	"context"
	"fmt"
	"os"
)

// Limits a singleton reports: those of Hydra and the hpcbench server
// (kvsname_max 256, keylen_max 64, vallen_max 1024, clamped as MPICH clamps
// them), so code that runs alone also fits under a launcher.
const (
	singletonKVSNameMax = 256
	singletonKeyLenMax  = 64
	singletonValLenMax  = 1024
)

// localKVS is a singleton's key-value store. Access is guarded by the
// owning Client's mu.
type localKVS struct {
	m map[string]string
}

// newSingleton returns a Client with no process manager: rank 0 of 1,
// appnum 0, an in-process store, a no-op barrier. It opens nothing.
func newSingleton() *Client {
	c := &Client{
		rank:       0,
		size:       1,
		kvs:        fmt.Sprintf("singleton_kvs_%d", os.Getpid()),
		subversion: 1,
		local:      &localKVS{m: make(map[string]string)},
		kind:       KindSingleton,
	}
	c.keyMax, c.valMax = clampMaxes(singletonKVSNameMax, singletonKeyLenMax, singletonValLenMax)
	return c
}

// put stores a value, last write wins.
func (s *localKVS) put(key, val string) { s.m[key] = val }

// get returns a stored value.
func (s *localKVS) get(key string) (string, bool) {
	v, ok := s.m[key]
	return v, ok
}

// localCheck is the common prologue of a singleton operation: the client
// must be open and ctx not done.
func (c *Client) localCheck(ctx context.Context, op string) error {
	if c.closed.Load() {
		return &closedError{op: op, why: "client is closed"}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pmi: %s: %w", op, err)
	}
	return nil
}
