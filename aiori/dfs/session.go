package dfs

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/dfs/namespace"
	"github.com/hpcbench/hpcbench/aiori/dfs/object"
	"github.com/hpcbench/hpcbench/aiori/dfs/rpc"
	"github.com/hpcbench/hpcbench/aiori/dfs/store"
)

// session is one rank's link to the pool: the engine it brought up (rank
// 0, when no other engine serves the pool), its client, the container and
// the mounted namespace.
type session struct {
	rank    int
	comm    aiori.Comm // nil outside a job
	opts    *Options
	engine  *Engine // nil unless this rank runs it
	client  *rpc.Client
	pool    object.Pool
	cont    object.Container
	fs      *namespace.FS
	created bool // rank 0 made the pool on first use
	// dir is the pool's absolute directory and engineWhere where its
	// engine runs, both as rank 0 found them.
	dir, engineWhere string
}

// openSession brings the rank's session up; on every rank of the job at
// once (the steps are ordered by barriers, so rank 0 creates what is
// missing before the others open it).
func openSession(ctx context.Context, o *Options, env aiori.Env) (_ *session, err error) {
	s := &session{rank: env.Rank, comm: env.Comm, opts: o}
	defer func() {
		if err != nil {
			_ = s.release()
		}
	}()
	// Rank 0 finds or starts the engine and tells the others where it
	// is, or why there is none (so that every rank fails with its reason).
	var addrs []string
	if s.rank == 0 {
		addrs, err = s.locate(ctx)
		msg := "ok\n" + s.dir + "\n" + s.engineWhere + "\n" + strings.Join(addrs, "\n")
		if err != nil {
			msg = "err\n" + err.Error()
		}
		if berr := s.bcastString(ctx, &msg); berr != nil && err == nil {
			err = berr
		}
		if err != nil {
			return nil, err
		}
	} else {
		var msg string
		if err := s.bcastString(ctx, &msg); err != nil {
			return nil, err
		}
		kind, rest, _ := strings.Cut(msg, "\n")
		if kind != "ok" {
			return nil, fmt.Errorf("dfs: rank 0: %s", rest)
		}
		f := strings.SplitN(rest, "\n", 3)
		if len(f) < 3 {
			return nil, fmt.Errorf("dfs: rank 0 sent %q for the engine's address", rest)
		}
		s.dir, s.engineWhere, addrs = f[0], f[1], strings.Split(f[2], "\n")
	}
	if s.client, err = dialEngine(ctx, addrs, s.rank+1); err != nil {
		return nil, fmt.Errorf("dfs: connect to the engine of pool %s: %w", o.Pool, err)
	}
	s.pool = s.client

	// The container: rank 0 creates it when it is missing (as IOR's DFS
	// backend does) and formats DFS in it; then the others open it.
	if s.rank == 0 {
		err = s.openCont(ctx, true)
	}
	if err = s.agree(ctx, err); err != nil {
		return nil, err
	}
	if s.rank != 0 {
		if err = s.openCont(ctx, false); err != nil {
			return nil, err
		}
	}
	return s, s.agree(ctx, nil)
}

// locate returns the addresses of the engine serving the pool: one this
// rank starts, or a standalone engine that holds it. A pool directory that
// does not exist yet is made first (on first use).
func (s *session) locate(ctx context.Context) ([]string, error) {
	dir, err := filepath.Abs(s.opts.Pool)
	if err != nil {
		return nil, fmt.Errorf("dfs: --dfs.pool %s: %w", s.opts.Pool, err)
	}
	s.dir = dir
	if CheckPool(dir, false) != nil { // Validate has checked it may be made
		if err := store.Create(dir, store.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("dfs: --dfs.pool %s: create the pool on first use: %w", s.opts.Pool, err)
		}
		s.created = true
	}
	e, err := StartEngine(ctx, dir, EngineOptions{})
	switch {
	case errors.Is(err, store.ErrBusy):
		addrs, rerr := readAddrs(dir)
		if rerr != nil {
			return nil, fmt.Errorf("dfs: --dfs.pool %s: %w (%v)", s.opts.Pool, rerr, err)
		}
		s.engineWhere = "standalone at " + strings.Join(addrs, ", ")
		return addrs, nil
	case err != nil:
		return nil, fmt.Errorf("dfs: --dfs.pool %s: %w", s.opts.Pool, err)
	}
	s.engine = e
	host, _ := os.Hostname()
	s.engineWhere = fmt.Sprintf("embedded in rank 0 (pid %d on %s)", os.Getpid(), host)
	return e.Addrs(), nil
}

// openCont opens the container (creating it when create is set and it is
// missing) and mounts DFS in it.
func (s *session) openCont(ctx context.Context, create bool) error {
	label := s.opts.Cont
	cont, err := s.pool.OpenCont(ctx, label)
	if create && errors.Is(err, object.ErrNotExist) {
		props := object.ContProps{ChunkSize: s.opts.ChunkSize}
		if c, err := object.ParseClass(s.opts.OClass); err == nil {
			props.OClass = c
		}
		if c, err := object.ParseClass(s.opts.DirOClass); err == nil {
			props.DirOClass = c
		}
		if err := s.pool.CreateCont(ctx, label, props); err != nil && !errors.Is(err, object.ErrExist) {
			return fmt.Errorf("dfs: create container %s in pool %s: %w", label, s.opts.Pool, err)
		}
		cont, err = s.pool.OpenCont(ctx, label)
	}
	if err != nil {
		return fmt.Errorf("dfs: open container %s in pool %s: %w", label, s.opts.Pool, err)
	}
	s.cont = cont
	file, dir := s.opts.classes(cont.Props())
	// The directory cache stands for IOR's lookup_insert_dir, and sees the
	// other ranks' removals and renames of its directories (see
	// namespace.Options.DirCache).
	s.fs, err = namespace.Mount(ctx, cont, namespace.Options{ChunkSize: s.opts.ChunkSize, OClass: file, DirOClass: dir, DirCache: true})
	if err != nil {
		return fmt.Errorf("dfs: mount container %s of pool %s: %w", label, s.opts.Pool, err)
	}
	return nil
}

// close leaves the pool: unmount, wait for every rank, destroy the
// container when asked (rank 0), disconnect, and stop the engine this
// rank runs once the others are done with it.
func (s *session) close(ctx context.Context) error {
	var errs []error
	if s.fs != nil {
		errs = append(errs, s.fs.Unmount())
		s.fs = nil
	}
	if s.cont != nil {
		errs = append(errs, s.cont.Close())
		s.cont = nil
	}
	err := s.agree(ctx, errors.Join(errs...))
	if err == nil && s.rank == 0 && s.opts.Destroy {
		if derr := s.pool.DestroyCont(ctx, s.opts.Cont); derr != nil {
			err = fmt.Errorf("dfs: --dfs.destroy: destroy container %s: %w", s.opts.Cont, derr)
		}
	}
	if aerr := s.agree(ctx, err); err == nil {
		err = aerr
	}
	return errors.Join(err, s.release())
}

// release disconnects and stops this rank's engine.
func (s *session) release() error {
	var errs []error
	if s.fs != nil {
		errs = append(errs, s.fs.Unmount())
	}
	if s.cont != nil {
		errs = append(errs, s.cont.Close())
	}
	if s.client != nil {
		errs = append(errs, s.client.Close())
	}
	if s.engine != nil {
		errs = append(errs, s.engine.Stop())
	}
	s.fs, s.cont, s.client, s.engine = nil, nil, nil, nil
	return errors.Join(errs...)
}

// agree waits for every rank (outside a job, at once) and returns err,
// or the error of the barrier.
func (s *session) agree(ctx context.Context, err error) error {
	if s.comm == nil || s.comm.Size() == 1 {
		return err
	}
	if berr := s.comm.Barrier(ctx); berr != nil && err == nil {
		return fmt.Errorf("dfs: barrier: %w", berr)
	}
	return err
}

// bcastString sends rank 0's *msg to every rank.
func (s *session) bcastString(ctx context.Context, msg *string) error {
	if s.comm == nil || s.comm.Size() == 1 {
		return nil
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(*msg)))
	if err := s.comm.Bcast(ctx, n[:], 0); err != nil {
		return fmt.Errorf("dfs: broadcast the engine's address: %w", err)
	}
	b := make([]byte, binary.LittleEndian.Uint64(n[:]))
	copy(b, *msg)
	if err := s.comm.Bcast(ctx, b, 0); err != nil {
		return fmt.Errorf("dfs: broadcast the engine's address: %w", err)
	}
	*msg = string(b)
	return nil
}
