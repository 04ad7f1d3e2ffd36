package dfs

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/objstore/client"
	"github.com/hpcbench/hpcbench/objstore/client/router"
	"github.com/hpcbench/hpcbench/objstore/engine"
	"github.com/hpcbench/hpcbench/objstore/namespace"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/store"
)

// session is one rank's link to the pool: the engine it brought up (the
// first rank of each host, when no other engine serves the pool there),
// its clients of every host's engine, the pool they make together, the
// container and the mounted namespace.
type session struct {
	rank    int
	comm    aiori.Comm // nil outside a job
	opts    *Options
	child   *engine.Child    // nil unless this rank runs its host's engine
	clients []*client.Client // one per engine, in engine order
	local   int              // index in clients of this rank's host's engine
	pool    object.Pool
	cont    object.Container
	fs      *namespace.FS
	// engines are every host's engine as the host's first rank found it,
	// in order of the hosts' first ranks.
	engines []engineInfo
}

// engineInfo is one host's engine: the pool's absolute directory there,
// where the engine runs, its addresses, and whether the pool was made on
// first use.
type engineInfo struct {
	host, dir, where string
	addrs            []string
	created          bool
}

// openSession brings the rank's session up; on every rank of the job at
// once (the steps are ordered by collectives, so each host's first rank
// has its engine up, and rank 0 has created what is missing, before the
// others use them).
func openSession(ctx context.Context, o *Options, env aiori.Env) (_ *session, err error) {
	s := &session{rank: env.Rank, comm: env.Comm, opts: o}
	defer func() {
		if err != nil {
			_ = s.release()
		}
	}()
	size := env.Size
	if s.comm == nil {
		size = 1
	}
	hosts, lead, mine := hostLeaders(env.Hosts, size, s.rank)
	s.local = mine
	// Each host's first rank finds or starts its host's engine and tells
	// every rank where it is, or why there is none (so that every rank
	// fails with that reason).
	for h, root := range lead {
		var msg string
		var lerr error
		if s.rank == root {
			var info engineInfo
			info, lerr = s.locate(ctx, hosts[h])
			msg = info.encode()
			if lerr != nil {
				msg = "err\n" + lerr.Error()
			}
		}
		if berr := s.bcastString(ctx, &msg, root); berr != nil {
			return nil, errors.Join(lerr, berr)
		}
		if lerr != nil {
			return nil, lerr
		}
		info, derr := decodeEngineInfo(msg)
		if derr != nil {
			if len(lead) == 1 {
				return nil, fmt.Errorf("dfs: rank %d: %w", root, derr)
			}
			return nil, fmt.Errorf("dfs: rank %d (host %s): %w", root, hosts[h], derr)
		}
		info.host = hosts[h]
		s.engines = append(s.engines, info)
	}
	members := make([]router.Member, len(s.engines))
	for h, e := range s.engines {
		c, err := client.DialEngine(ctx, e.addrs, s.rank+1)
		if err != nil {
			return nil, fmt.Errorf("dfs: connect to the engine of pool %s%s: %w", o.Pool, e.onHost(len(s.engines)), err)
		}
		s.clients = append(s.clients, c)
		pi, err := c.Query(ctx)
		if err != nil {
			return nil, fmt.Errorf("dfs: query pool %s%s: %w", o.Pool, e.onHost(len(s.engines)), err)
		}
		members[h] = router.Member{Pool: c, Host: e.host, Targets: len(pi.Targets)}
	}
	if s.pool, err = router.New(members); err != nil {
		return nil, fmt.Errorf("dfs: pool %s: %w", o.Pool, err)
	}

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

// hostLeaders returns the job's hosts in order of their first ranks, each
// host's first rank, and the index of rank's host. With no host names for
// every rank (outside a job, or a caller that gathered none) the job is
// on one host.
func hostLeaders(rankHosts []string, size, rank int) (hosts []string, lead []int, mine int) {
	if len(rankHosts) != size || size <= 1 {
		h := ""
		if len(rankHosts) > 0 {
			h = rankHosts[0]
		}
		return []string{h}, []int{0}, 0
	}
	index := map[string]int{}
	for r, h := range rankHosts {
		i, ok := index[h]
		if !ok {
			i = len(hosts)
			index[h] = i
			hosts = append(hosts, h)
			lead = append(lead, r)
		}
		if r == rank {
			mine = i
		}
	}
	return hosts, lead, mine
}

// onHost is " on host H" when the job has more than one engine.
func (e engineInfo) onHost(engines int) string {
	if engines > 1 {
		return " on host " + e.host
	}
	return ""
}

// encode is what a host's first rank broadcasts about its engine.
func (e engineInfo) encode() string {
	created := "0"
	if e.created {
		created = "1"
	}
	return "ok\n" + created + "\n" + e.dir + "\n" + e.where + "\n" + strings.Join(e.addrs, "\n")
}

// decodeEngineInfo reads what encode wrote, or the error a host's first
// rank sent in its place.
func decodeEngineInfo(msg string) (engineInfo, error) {
	kind, rest, _ := strings.Cut(msg, "\n")
	if kind != "ok" {
		return engineInfo{}, errors.New(rest)
	}
	f := strings.SplitN(rest, "\n", 4)
	if len(f) < 4 || (f[0] != "0" && f[0] != "1") {
		return engineInfo{}, fmt.Errorf("sent %q for the engine's address", rest)
	}
	return engineInfo{created: f[0] == "1", dir: f[1], where: f[2], addrs: strings.Split(f[3], "\n")}, nil
}

// locate returns the engine serving the pool on this rank's host: one this
// rank starts, or a standalone engine that holds it. A pool directory that
// does not exist yet is made first (on first use).
func (s *session) locate(ctx context.Context, host string) (engineInfo, error) {
	dir, err := filepath.Abs(s.opts.Pool)
	if err != nil {
		return engineInfo{}, fmt.Errorf("dfs: --dfs.pool %s: %w", s.opts.Pool, err)
	}
	info := engineInfo{dir: dir}
	if engine.CheckPool(dir, false) != nil { // Validate has checked it may be made
		if err := store.Create(dir, store.CreateOptions{}); err != nil {
			return info, fmt.Errorf("dfs: --dfs.pool %s: create the pool on first use: %w", s.opts.Pool, err)
		}
		info.created = true
	}
	self, err := os.Executable()
	if err != nil {
		return info, fmt.Errorf("dfs: start the engine of pool %s: find this program: %w", s.opts.Pool, err)
	}
	deadline := time.Now().Add(engine.HolderWait)
	var c *engine.Child
	for {
		var busy string
		c, busy, err = engine.StartChild(ctx, self, dir)
		if err != nil {
			return info, fmt.Errorf("dfs: --dfs.pool %s: %w", s.opts.Pool, err)
		}
		if busy == "" {
			break
		}
		addrs, err := engine.WaitHolder(ctx, dir, deadline, errors.New(busy))
		if err != nil {
			return info, fmt.Errorf("dfs: --dfs.pool %s: %w", s.opts.Pool, err)
		}
		if addrs != nil {
			info.where, info.addrs = "standalone at "+strings.Join(addrs, ", "), addrs
			return info, nil
		}
		// A job's engine held the pool and has let go: start ours.
	}
	s.child = c
	if host == "" {
		host, _ = os.Hostname()
	}
	info.where = fmt.Sprintf("started by rank %d (engine pid %d on %s)", s.rank, c.Pid(), host)
	info.addrs = c.Addrs()
	return info, nil
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
	for _, c := range s.clients {
		errs = append(errs, c.Close())
	}
	if s.child != nil {
		errs = append(errs, s.child.Close())
	}
	s.fs, s.cont, s.clients, s.child = nil, nil, nil, nil
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

// bcastString sends root's *msg to every rank.
func (s *session) bcastString(ctx context.Context, msg *string, root int) error {
	if s.comm == nil || s.comm.Size() == 1 {
		return nil
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(*msg)))
	if err := s.comm.Bcast(ctx, n[:], root); err != nil {
		return fmt.Errorf("dfs: broadcast the engine's address: %w", err)
	}
	b := make([]byte, binary.LittleEndian.Uint64(n[:]))
	copy(b, *msg)
	if err := s.comm.Bcast(ctx, b, root); err != nil {
		return fmt.Errorf("dfs: broadcast the engine's address: %w", err)
	}
	*msg = string(b)
	return nil
}

// poolDirs is the pool's directory for the run record: the one of its
// only engine, or HOST:DIR for each host's.
func (s *session) poolDirs() string {
	if len(s.engines) == 1 {
		return s.engines[0].dir
	}
	parts := make([]string, len(s.engines))
	for i, e := range s.engines {
		parts[i] = e.host + ":" + e.dir
	}
	return strings.Join(parts, ", ")
}

// enginesWhere says where the engines run, for the run record.
func (s *session) enginesWhere() string {
	if len(s.engines) == 1 {
		return s.engines[0].where
	}
	parts := make([]string, len(s.engines))
	for i, e := range s.engines {
		parts[i] = e.host + ": " + e.where
	}
	return fmt.Sprintf("one per host (%d): %s", len(s.engines), strings.Join(parts, "; "))
}

// createdOn says on which hosts this run made the pool on first use, ""
// when on none.
func (s *session) createdOn() string {
	var on []string
	for _, e := range s.engines {
		if e.created {
			on = append(on, e.host)
		}
	}
	switch {
	case len(on) == 0:
		return ""
	case len(s.engines) == 1:
		return "by this run, on first use"
	}
	return "by this run, on first use, on " + strings.Join(on, ", ")
}
