package router

import (
	"context"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Member is one engine of the pool, in engine order (engine 0 first).
type Member struct {
	// Pool is the engine's pool: a client.Client, a store pool, or a
	// memobj.Pool in tests.
	Pool object.Pool
	// Host is the host the engine runs on, for messages and Query.
	Host string
	// Targets is how many targets the engine's pool has (>= 1), from its
	// Query.
	Targets int
}

// Pool is an object.Pool over several engines' pools (see the package
// doc). Its methods may be called from many goroutines at once.
type Pool struct {
	members []Member
	all     []int // 0 .. len(members)-1
	pl      placement
	layout  layout // what the layout record of its containers must say
}

var _ object.Pool = (*Pool)(nil)

// New returns a Pool over members (len >= 1). It does no I/O.
func New(members []Member) (*Pool, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("router: no engines: %w", object.ErrInvalid)
	}
	p := &Pool{members: append([]Member(nil), members...)}
	for m, mb := range members {
		if mb.Pool == nil || mb.Targets < 1 {
			return nil, fmt.Errorf("router: engine %d%s: %w (want a pool with at least 1 target, have %d)",
				m, hostSuffix(mb.Host), object.ErrInvalid, mb.Targets)
		}
		p.all = append(p.all, m)
		p.layout.targets = append(p.layout.targets, mb.Targets)
		p.layout.hosts = append(p.layout.hosts, mb.Host)
	}
	p.pl = newPlacement(p.layout.targets)
	return p, nil
}

// hostSuffix returns " (host H)", or nothing when host is unknown.
func hostSuffix(host string) string {
	if host == "" {
		return ""
	}
	return " (host " + host + ")"
}

// on names member m in err, when there are several members to tell
// apart; nil stays nil.
func (p *Pool) on(m int, err error) error {
	if err == nil || len(p.members) == 1 {
		return err
	}
	return fmt.Errorf("engine %d%s: %w", m, hostSuffix(p.members[m].Host), err)
}

// forEach calls fn on every member at once, and returns the first error,
// naming its member.
func (p *Pool) forEach(fn func(m int, pool object.Pool) error) error {
	return first(p.errsOf(fn))
}

// errsOf calls fn on every member at once, and returns every member's
// error, naming it.
func (p *Pool) errsOf(fn func(m int, pool object.Pool) error) []error {
	return each(p.all, func(m int) error { return p.on(m, fn(m, p.members[m].Pool)) })
}

// Query describes the pool: member 0's UUID, and every member's targets,
// re-indexed engine-major, their paths prefixed "HOST:" when there are
// several members.
func (p *Pool) Query(ctx context.Context) (object.PoolInfo, error) {
	infos := make([]object.PoolInfo, len(p.members))
	err := p.forEach(func(m int, pool object.Pool) error {
		pi, err := pool.Query(ctx)
		if err == nil && len(pi.Targets) != p.members[m].Targets {
			err = fmt.Errorf("query pool: %w: it has %d targets, the job counted %d",
				object.ErrInvalid, len(pi.Targets), p.members[m].Targets)
		}
		infos[m] = pi
		return err
	})
	if err != nil {
		return object.PoolInfo{}, err
	}
	out := object.PoolInfo{UUID: infos[0].UUID, Targets: make([]object.TargetInfo, 0, p.pl.n)}
	for m, pi := range infos {
		for _, t := range pi.Targets {
			t.Index = len(out.Targets)
			if h := p.members[m].Host; h != "" && len(p.members) > 1 {
				t.Path = h + ":" + t.Path
			}
			out.Targets = append(out.Targets, t)
		}
	}
	return out, nil
}

// CreateCont creates the container on every member, and records its
// layout in member 0's. It returns ErrExist only when every member has it
// already: a member that has it while others make it is a host added since.
func (p *Pool) CreateCont(ctx context.Context, label string, props object.ContProps) error {
	errs := p.errsOf(func(m int, pool object.Pool) error { return pool.CreateCont(ctx, label, props) })
	existed := 0
	for _, err := range errs {
		switch {
		case errors.Is(err, object.ErrExist):
			existed++
		case err != nil:
			return err
		}
	}
	if existed == len(errs) {
		return errs[0]
	}
	conts, err := p.openAll(ctx, label)
	if err != nil {
		return fmt.Errorf("record the layout of container %q: %w", label, err)
	}
	return errors.Join(p.settle(ctx, label, conts, existed == 0), p.closeAll(conts))
}

// openAll opens container label on every member; on an error, those it
// opened are closed again.
func (p *Pool) openAll(ctx context.Context, label string) ([]object.Container, error) {
	conts := make([]object.Container, len(p.members))
	err := p.forEach(func(m int, pool object.Pool) error {
		c, err := pool.OpenCont(ctx, label)
		conts[m] = c
		return err
	})
	if err != nil {
		return nil, errors.Join(err, p.closeAll(conts))
	}
	return conts, nil
}

// OpenCont opens the container on every member and checks its layout
// record. With one member it returns that member's container itself.
func (p *Pool) OpenCont(ctx context.Context, label string) (object.Container, error) {
	conts, err := p.openAll(ctx, label)
	if err != nil {
		return nil, err
	}
	if err := p.settle(ctx, label, conts, false); err != nil {
		return nil, errors.Join(err, p.closeAll(conts))
	}
	if len(conts) == 1 {
		return conts[0], nil
	}
	return &cont{p: p, conts: conts, props: conts[0].Props()}, nil
}

// closeAll closes every container of conts that is not nil, at once, and
// joins their errors.
func (p *Pool) closeAll(conts []object.Container) error {
	return errors.Join(p.errsOf(func(m int, _ object.Pool) error {
		if conts[m] == nil {
			return nil
		}
		if err := conts[m].Close(); err != nil {
			return fmt.Errorf("close container: %w", err)
		}
		return nil
	})...)
}

// ListConts returns member 0's labels.
func (p *Pool) ListConts(ctx context.Context) ([]string, error) {
	return p.members[0].Pool.ListConts(ctx)
}

// QueryCont describes the container: member 0's info, with Objects and
// ArrayBytes summed over the members.
func (p *Pool) QueryCont(ctx context.Context, label string) (object.ContInfo, error) {
	infos := make([]object.ContInfo, len(p.members))
	err := p.forEach(func(m int, pool object.Pool) (err error) {
		infos[m], err = pool.QueryCont(ctx, label)
		return err
	})
	if err != nil {
		return object.ContInfo{}, err
	}
	out := infos[0]
	for _, ci := range infos[1:] {
		out.Objects += ci.Objects
		out.ArrayBytes += ci.ArrayBytes
	}
	return out, nil
}

// DestroyCont destroys the container on every member. It returns
// ErrNotExist only when no member has it.
func (p *Pool) DestroyCont(ctx context.Context, label string) error {
	errs := p.errsOf(func(m int, pool object.Pool) error { return pool.DestroyCont(ctx, label) })
	missing := 0
	for _, err := range errs {
		switch {
		case object.IsNotExist(err):
			missing++
		case err != nil:
			return err
		}
	}
	if missing == len(errs) {
		return errs[0]
	}
	return nil
}

// Close closes every member's pool and joins their errors.
func (p *Pool) Close() error {
	return errors.Join(p.errsOf(func(m int, pool object.Pool) error { return pool.Close() })...)
}
