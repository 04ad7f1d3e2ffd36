package pmi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/pmi/pmix"
)

// pmixJob is a Bootstrap over an OpenPMIx session.
type pmixJob struct {
	c          *pmix.Client
	lib        *pmix.Lib
	rank, size int
}

// joinPMIx initializes PMIx and reads the job's size. A PMIx_Init that
// finds no server although the environment shows a launch of several
// processes fails: run alone, the rank would measure as if it were the
// whole job.
func joinPMIx(lib *pmix.Lib, get func(string) (string, bool)) (Bootstrap, error) {
	c, err := lib.Init()
	if err != nil {
		return nil, fmt.Errorf("pmi: join PMIx launch (%s): %w", lib.Version(), err)
	}
	if c.Singleton() {
		if l, ok := ForeignLaunch(get); ok {
			// Not finalized: OpenPMIx 4.2.2 crashes in PMIx_Finalize
			// after an Init that reached no server (seen here), and
			// the process exits anyway.
			l.Why = "PMIx_Init reached no PMIx server"
			return nil, &ForeignLaunchError{Launch: l}
		}
	}
	size, err := c.JobInt(pmix.KeyJobSize)
	if err != nil {
		c.Finalize()
		return nil, fmt.Errorf("pmi: PMIx job size: %w", err)
	}
	if size < 1 || c.Rank() >= int(size) {
		c.Finalize()
		return nil, fmt.Errorf("pmi: PMIx gives rank %d of a job of %d", c.Rank(), size)
	}
	return &pmixJob{c: c, lib: lib, rank: c.Rank(), size: int(size)}, nil
}

func (p *pmixJob) Rank() int         { return p.rank }
func (p *pmixJob) Size() int         { return p.size }
func (p *pmixJob) KVS() string       { return p.c.Namespace() }
func (p *pmixJob) Kind() string      { return KindPMIx }
func (p *pmixJob) Singleton() bool   { return p.c.Singleton() }
func (p *pmixJob) OwnLauncher() bool { return false }

// PutBytes puts b as a byte object: PMIx carries bytes as they are, with
// no hex encoding and no segments.
func (p *pmixJob) PutBytes(ctx context.Context, key string, b []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pmi: put %s: %w", key, err)
	}
	return p.c.Put(key, b)
}

// Barrier commits this rank's puts and fences the job with data
// collection, within ctx's deadline.
func (p *pmixJob) Barrier(ctx context.Context) error {
	timeout, err := budget(ctx, "barrier")
	if err != nil {
		return err
	}
	if err := p.c.Commit(); err != nil {
		return err
	}
	if err := p.c.Fence(true, timeout); err != nil {
		return fmt.Errorf("pmi: barrier: %w", err)
	}
	return nil
}

// GetBytesFrom gets each key from the rank that put it; after a
// collecting Barrier the values are already here.
func (p *pmixJob) GetBytesFrom(ctx context.Context, keys []Key, _ bool) ([][]byte, error) {
	out := make([][]byte, len(keys))
	for i, k := range keys {
		timeout, err := budget(ctx, "get")
		if err != nil {
			return nil, err
		}
		if out[i], err = p.c.Get(k.Rank, k.Name, timeout); err != nil {
			if pe := (*pmix.Error)(nil); errors.As(err, &pe) && pe.NotFound() {
				return nil, fmt.Errorf("pmi: get %q of rank %d: %w: %w", k.Name, k.Rank, ErrNoKey, err)
			}
			return nil, fmt.Errorf("pmi: %w", err)
		}
	}
	return out, nil
}

func (p *pmixJob) Abort(code int, msg string) error { return p.c.Abort(code, msg) }

// SendPhase does nothing: only hpcbench's own launcher takes phase
// reports.
func (p *pmixJob) SendPhase(string, int) error { return nil }

// SendProgress does nothing, as SendPhase.
func (p *pmixJob) SendProgress(string, int, int64, int64) error { return nil }

func (p *pmixJob) Finalize(ctx context.Context) error { return p.c.Finalize() }

// Close does nothing: the session ends with Finalize or with the process.
func (p *pmixJob) Close() error { return nil }

// budget is what is left of ctx's deadline for a blocking PMIx call,
// which takes no context: zero for none.
func budget(ctx context.Context, op string) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("pmi: %s: %w", op, err)
	}
	d, ok := ctx.Deadline()
	if !ok {
		return 0, nil
	}
	return max(time.Until(d), time.Millisecond), nil
}
