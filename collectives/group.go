package collectives

import (
	"context"
	"sync"
)

// group runs functions in goroutines it owns, cancels the others when one
// fails, and reports the first failure from wait (a small errgroup).
type group struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	err    error
}

// newGroup returns a group whose functions get a context derived from ctx.
func newGroup(ctx context.Context) *group {
	g := &group{}
	g.ctx, g.cancel = context.WithCancel(ctx)
	return g
}

// do runs f(g.ctx) in a new goroutine.
func (g *group) do(f func(ctx context.Context) error) {
	g.wg.Go(func() {
		if err := f(g.ctx); err != nil {
			g.fail(err)
		}
	})
}

// fail records err if it is the first failure and cancels the others.
func (g *group) fail(err error) {
	g.once.Do(func() {
		g.err = err
		g.cancel()
	})
}

// wait waits for every goroutine and returns the first failure.
func (g *group) wait() error {
	g.wg.Wait()
	g.cancel()
	return g.err
}
