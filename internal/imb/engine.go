package imb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

// ErrCheck means -check found results that were wrong. Run wraps it; test
// with errors.Is.
var ErrCheck = errors.New("imb: check failed")

// Run runs the benchmarks o asks for over c, the job's communicator. Every
// rank of the job calls it with the same options, as every MPI process runs
// IMB-MPI1 with the same arguments. It never prints.
//
// Rank 0 returns the result: one table per benchmark and process count,
// named report.IMBTableName(benchmark, processes), a row per message size,
// then the distribution tables (see dist.go).
// Other ranks return a nil result. With Check, when any repetition left a
// wrong result, every rank returns an error wrapping ErrCheck, and rank 0
// returns the result too: write it, then fail.
//
// A failed communication call fails the run with an error naming the
// benchmark, process count and size; the other ranks then block until ctx
// ends or the launcher stops the job, as MPI ranks would.
func Run(ctx context.Context, c Comm, o Options) (*report.Result, error) {
	base := time.Now()
	now := func() float64 { return time.Since(base).Seconds() }
	return run(ctx, c, &o, now, time.Now)
}

// engine is one rank's state for a run.
type engine struct {
	o      *Options
	world  Comm
	now    func() float64   // seconds, for timing repetitions
	stamp  func() time.Time // wall clock for Run.Start and Run.End
	groups map[int]Comm     // sub-communicators made by o.Group, by size
	alloc  allocator        // the world's, when it has one (see buf)
	bufs   [3][]byte        // send, receive and check buffers, reused
	tables []report.Table   // rank 0: the result's tables
	notes  []string         // rank 0: what was skipped and why
	failed map[string]int   // rank 0: defects per table
	dist   *distState       // the distributions (dist.go)
}

// run is Run with its clocks given, so tests can fake timings.
func run(ctx context.Context, world Comm, o *Options, now func() float64, stamp func() time.Time) (*report.Result, error) {
	start := stamp()
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("imb: %w", err)
	}
	n := world.Size()
	if err := o.ValidateSize(n); err != nil {
		return nil, fmt.Errorf("imb: %w", err)
	}
	e := &engine{o: o, world: world, now: now, stamp: stamp, groups: make(map[int]Comm), failed: make(map[string]int)}
	e.alloc, _ = world.(allocator)
	var err error
	if e.dist, err = newDistState(world, o); err != nil {
		return nil, fmt.Errorf("imb: %w", err)
	}
	defer e.freeBufs()
	for _, b := range o.selected() {
		counts := processCounts(b.kind, n, o.NPMin)
		if len(counts) == 0 {
			e.note("%s needs at least 2 ranks; this job has %d: not run", b.name, n)
		}
		for _, np := range counts {
			if np < n && o.Group == nil && (b.kind == kindCollective || b.kind == kindSync) {
				e.note("%s at %d processes skipped: no sub-communicators", b.name, np)
				continue
			}
			if err := e.runTable(ctx, b, np); err != nil {
				return nil, err
			}
		}
	}
	return e.finish(ctx, start)
}

// note records, on rank 0, something the result should mention.
func (e *engine) note(format string, args ...any) {
	if e.world.Rank() == 0 {
		e.notes = append(e.notes, fmt.Sprintf(format, args...))
	}
}

// finish shares the number of defects with every rank and builds rank 0's
// result.
func (e *engine) finish(ctx context.Context, start time.Time) (*report.Result, error) {
	total := 0
	var names []string
	for _, t := range e.tables {
		if d := e.failed[t.Name]; d > 0 {
			total += d
			names = append(names, t.Name)
		}
	}
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(total))
	if err := e.world.Bcast(ctx, buf[:], 0); err != nil {
		return nil, fmt.Errorf("imb: sharing the check result: %w", err)
	}
	total = int(binary.LittleEndian.Uint64(buf[:]))
	var res *report.Result
	if e.world.Rank() == 0 {
		res = e.result(start, e.stamp())
	}
	if total > 0 {
		where := "see the defects column"
		if len(names) > 0 {
			where = "in " + strings.Join(names, ", ")
		}
		return res, fmt.Errorf("%w: %d repetitions gave a wrong result (%s)", ErrCheck, total, where)
	}
	return res, nil
}

// group returns this rank's group for a run on the first np ranks: the
// group as a p2p and, when it is a real communicator, as a Comm; active is
// false on ranks that wait.
func (e *engine) group(ctx context.Context, np int) (g p2p, c Comm, active bool, err error) {
	world := e.world
	switch {
	case np == world.Size():
		return world, world, true, nil
	case e.o.Group != nil:
		sub, ok := e.groups[np]
		if !ok {
			if sub, err = e.o.Group(ctx, np); err != nil {
				return nil, nil, false, fmt.Errorf("imb: making the group of %d processes: %w", np, err)
			}
			e.groups[np] = sub
		}
		if sub == nil {
			return nil, nil, false, nil
		}
		if sub.Size() != np || sub.Rank() != world.Rank() {
			return nil, nil, false, fmt.Errorf("imb: group of %d processes: got rank %d of %d, want rank %d of %d",
				np, sub.Rank(), sub.Size(), world.Rank(), np)
		}
		return sub, sub, true, nil
	case world.Rank() < np:
		return p2pGroup{world: world, n: np}, nil, true, nil
	}
	return nil, nil, false, nil
}

// runTable runs benchmark b on the first np ranks over all its sizes; ranks
// above np wait in a barrier of the whole job after every size, as IMB's
// idle processes do. Rank 0 gathers every rank's figures per size and adds
// the table.
func (e *engine) runTable(ctx context.Context, b benchmark, np int) error {
	name := report.IMBTableName(b.name, np)
	g, c, active, err := e.group(ctx, np)
	if err != nil {
		return err
	}
	sz := sizes(e.o, b)
	sched := newSchedule(e.o, sz)
	tb := newTable(b, np, e.o.Check)
	for iter, size := range sz {
		e.phase(name, iter, int64(iter), int64(len(sz)))
		fig := rankFigures{time: -1}
		if active {
			fig, err = e.runSize(ctx, b, g, c, sched, iter, size)
			if err != nil {
				return fmt.Errorf("imb: %s #bytes %d: %w", name, size, err)
			}
		}
		if err := e.world.Barrier(ctx); err != nil {
			return fmt.Errorf("imb: %s #bytes %d: barrier of the job: %w", name, size, err)
		}
		all, err := gatherFigures(ctx, e.world, fig)
		if err != nil {
			return fmt.Errorf("imb: %s #bytes %d: collecting the times: %w", name, size, err)
		}
		if err := e.dist.reduce(ctx, b, c, np, size, active); err != nil {
			return fmt.Errorf("imb: %s #bytes %d: %w", name, size, err)
		}
		if e.world.Rank() == 0 {
			row, defects := tb.row(size, fig.reps, all)
			tb.t.Rows = append(tb.t.Rows, row)
			e.failed[name] += defects
		}
	}
	e.phase(name, len(sz)-1, int64(len(sz)), int64(len(sz)))
	if e.world.Rank() == 0 {
		e.tables = append(e.tables, tb.t)
	}
	return nil
}

// phase tells Env.Phase, if set, where the run is.
func (e *engine) phase(name string, iter int, done, total int64) {
	if e.o.Env.Phase != nil {
		e.o.Env.Phase(name, iter, done, total)
	}
}

// rankFigures is one rank's outcome at one size: the mean time of a
// repetition, scaled (negative on an idle rank, as IMB's -1), the number of
// wrong results, and the repetition count (meaningful on rank 0).
type rankFigures struct {
	time    float64
	defects int
	reps    int
}

// runSize runs one message size on an active rank: buffers, the repetition
// count, the warm-up and the measured run.
func (e *engine) runSize(ctx context.Context, b benchmark, g p2p, c Comm, sched *schedule, iter, size int) (rankFigures, error) {
	x := e.newSizeRun(ctx, b, g, c, size)
	// Collect what the buffers and the last size left now, outside the
	// timing: a collection during the timed loops would take a CPU from
	// the peer rank (two ranks on two CPUs).
	runtime.GC()
	sync := b.kind == kindSync
	sel := sched.selected(size, sync)
	var n, warm int
	if sched.dynamic() {
		var err error
		if n, warm, err = e.measureReps(x, sched, iter, sel); err != nil {
			return rankFigures{}, err
		}
	} else {
		n = sched.fixed(sel)
		warm = warmupReps(n)
	}
	if _, _, err := b.kernel(x, warm, false); err != nil {
		return rankFigures{}, fmt.Errorf("warm-up: %w", err)
	}
	x.rec = e.dist.recorder()
	mean, defects, err := b.kernel(x, n, e.o.Check)
	if err != nil {
		return rankFigures{}, err
	}
	return rankFigures{time: mean * b.scaleTime, defects: defects, reps: n}, nil
}

// measureReps is IMB's dynamic repetition policy: run the kernel once,
// take the slowest rank's time; run about a second's worth (at most sel)
// and take the slowest rank's mean; then choose 1 + Time/mean repetitions,
// at most sel and never more than a smaller size got. Rank 0 decides and
// broadcasts, so every rank runs the same count. It also returns the
// warm-up count, settledWarmup's for rank 0's wall-clock time per
// repetition, which rank 0 decides too.
func (e *engine) measureReps(x *sizeRun, sched *schedule, iter, sel int) (int, int, error) {
	// wall is this rank's wall-clock time per repetition of the last
	// probe, its kernel's barriers and -sync's included: what a warm-up
	// repetition costs. The kernel's own time leaves the barriers out, and
	// a 0-byte Allreduce that takes no time at all would otherwise get
	// millions of warm-up repetitions, each with a barrier (seconds on a
	// crowded host).
	var wall float64
	probe := func(n int) (float64, error) {
		start := x.now()
		t, _, err := x.b.kernel(x, n, false)
		if err != nil {
			return 0, fmt.Errorf("timing probe: %w", err)
		}
		wall = (x.now() - start) / float64(n)
		return maxOverGroup(x.ctx, x.g, t)
	}
	t, err := probe(1)
	if err != nil {
		return 0, 0, err
	}
	n2, err := bcastInt(x.ctx, x.g, probeReps(sel, t))
	if err != nil {
		return 0, 0, err
	}
	if n2 > 1 {
		if t, err = probe(n2); err != nil {
			return 0, 0, err
		}
	}
	n := sched.final(iter, x.size, sel, t, x.b.kind == kindSync)
	// One broadcast for both counts: n fits in 32 bits (it is at most
	// -iter), the warm-up too (settledWarmup caps it).
	both, err := bcastInt(x.ctx, x.g, n|settledWarmup(n, wall)<<32)
	if err != nil {
		return 0, 0, err
	}
	n = both & (1<<32 - 1)
	sched.record(iter, n)
	return n, both >> 32, nil
}

// newSizeRun sets up the buffers for one size, reusing the engine's.
func (e *engine) newSizeRun(ctx context.Context, b benchmark, g p2p, c Comm, size int) *sizeRun {
	ns, nr := b.bufs(size, g.Size())
	x := &sizeRun{
		ctx: ctx, o: e.o, b: b, g: g, c: c, now: e.now,
		rank: g.Rank(), np: g.Size(), size: size,
		send: e.buf(0, ns), recv: e.buf(1, nr), wantRoot: -1,
	}
	if e.o.Check {
		x.want = e.buf(2, nr)
	}
	fillSend(b, x.send, x.rank, size)
	clear(x.recv)
	return x
}

// buf returns engine buffer i resized to n bytes. The buffers come from
// the world communicator's allocator when it has one, as an MPI program
// may take its buffers from MPI_Alloc_mem: collectives.Comm over fabric/shm
// hands out memory that the peers map, so messages move with one copy.
func (e *engine) buf(i, n int) []byte {
	if cap(e.bufs[i]) < n {
		e.freeBuf(i)
		if e.alloc != nil {
			e.bufs[i] = e.alloc.Alloc(n)
		} else {
			e.bufs[i] = make([]byte, n)
		}
	}
	return e.bufs[i][:n]
}

// freeBuf gives buffer i back to the allocator.
func (e *engine) freeBuf(i int) {
	if e.alloc != nil && e.bufs[i] != nil {
		e.alloc.Free(e.bufs[i])
	}
	e.bufs[i] = nil
}

// freeBufs gives every buffer back when the run ends.
func (e *engine) freeBufs() {
	for i := range e.bufs {
		e.freeBuf(i)
	}
}

// maxOverGroup returns, on the group's rank 0, the largest of every rank's
// v (IMB's MPI_Allreduce with MPI_MAX); other ranks get their own v.
func maxOverGroup(ctx context.Context, g p2p, v float64) (float64, error) {
	var send [8]byte
	binary.LittleEndian.PutUint64(send[:], math.Float64bits(v))
	recv := make([]byte, 8*g.Size())
	if err := g.Gather(ctx, send[:], recv, 0); err != nil {
		return 0, fmt.Errorf("gathering probe times: %w", err)
	}
	if g.Rank() != 0 {
		return v, nil
	}
	m := math.Inf(-1)
	for r := range g.Size() {
		m = max(m, math.Float64frombits(binary.LittleEndian.Uint64(recv[8*r:])))
	}
	return m, nil
}

// bcastInt broadcasts rank 0's v over the group.
func bcastInt(ctx context.Context, g p2p, v int) (int, error) {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(v))
	if err := g.Bcast(ctx, buf[:], 0); err != nil {
		return 0, fmt.Errorf("broadcasting the repetition count: %w", err)
	}
	return int(binary.LittleEndian.Uint64(buf[:])), nil
}

// gatherFigures collects every rank's time and defects at rank 0 of the
// job, indexed by rank; other ranks get nil.
func gatherFigures(ctx context.Context, world Comm, f rankFigures) ([]rankFigures, error) {
	var send [16]byte
	binary.LittleEndian.PutUint64(send[:], math.Float64bits(f.time))
	binary.LittleEndian.PutUint64(send[8:], uint64(f.defects))
	recv := make([]byte, 16*world.Size())
	if err := world.Gather(ctx, send[:], recv, 0); err != nil {
		return nil, err
	}
	if world.Rank() != 0 {
		return nil, nil
	}
	all := make([]rankFigures, world.Size())
	for r := range all {
		all[r].time = math.Float64frombits(binary.LittleEndian.Uint64(recv[16*r:]))
		all[r].defects = int(binary.LittleEndian.Uint64(recv[16*r+8:]))
	}
	return all, nil
}

// allocator is a communicator that hands out its transport's buffers
// (collectives.Comm, as fabric.Allocator).
type allocator interface {
	Alloc(n int) []byte
	Free(b []byte)
}
