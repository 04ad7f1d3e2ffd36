package mdtest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/clock"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
	"github.com/hpcbench/hpcbench/internal/pattern"
	"github.com/hpcbench/hpcbench/report"
)

// Phase names, mdtest's rows.
const (
	phDirCreate  = report.MdtestDirCreate
	phDirStat    = report.MdtestDirStat
	phDirRename  = report.MdtestDirRename
	phDirRemove  = report.MdtestDirRemove
	phFileCreate = report.MdtestFileCreate
	phFileStat   = report.MdtestFileStat
	phFileRead   = report.MdtestFileRead
	phFileRemove = report.MdtestFileRemove
	phTreeCreate = report.MdtestTreeCreate
	phTreeRemove = report.MdtestTreeRemove
)

// verb names the call a phase makes, for failure reports.
func verb(phase string) string {
	switch phase {
	case phDirCreate, phTreeCreate:
		return "mkdir"
	case phDirStat, phFileStat:
		return "stat"
	case phDirRename:
		return "rename"
	case phDirRemove, phTreeRemove:
		return "rmdir"
	case phFileCreate:
		return "create"
	case phFileRead:
		return "read"
	}
	return "unlink"
}

// runner runs every iteration on one rank.
type runner struct {
	// phaseName and phaseIter are the phase running, for the Phase
	// hook's reports inside it.
	phaseName string
	phaseIter int
	o         *config.Options
	env       Env
	c         *collectives.Comm
	rank      int
	size      int
	be        aiori.Backend
	md        aiori.Metadata
	began     time.Time
	buf       []byte // -w / -e data
	// per iteration
	layout   config.Layout
	iter     int   // the iteration: its test directories are test-dir.<iter>-<loop>
	items    int64 // items per rank in this iteration (stonewalling may cut it)
	renamed  bool  // the directory items carry the rename suffix
	fsInfo   *aiori.FSInfo
	warnings []string // rank 0's warnings, for the header
	seed     uint64   // -R's seed, the same on every rank
	// stoneItems is the item count a stonewalled create saved in -x's
	// file, for runs without create; -1 for none.
	stoneItems int64
	dataSeed   uint64 // -G's signature, the same on every rank
	rbuf       []byte // the read phase's buffer
	ptype      pattern.Type
	iio        itemIO // the backend's one-call create, read and stat, or nil
	// tick is Env.Tick: the per-item clock, in nanoseconds.
	tick func() int64
	// rec records the phases' distributions; srec the creation phases',
	// with --until-steady's test (without it, a second one like rec).
	rec, srec *distribution.Recorder
	// pb holds the path of the operation at hand, rb the rename's
	// target: the loops derive each path from its numbers there.
	pb, rb pathBuf
	trees  int64 // the trees made so far, which number them (tree.id)
}

// phaseRank is one rank's figures for one phase of one iteration.
type phaseRank struct {
	items, before, after float64 // items done, seconds to the last item, seconds to after the barrier
}

// phaseResult is one phase of one iteration, complete on rank 0.
type phaseResult struct {
	name  string
	iter  int
	done  int64       // this rank's items done (the item phases)
	ranks []phaseRank // by rank
	// failures over all ranks, and the first one's description
	failed int64
	first  string
	// dist is the phase's distributions over the job (rank 0's; nil
	// elsewhere)
	dist *distribution.Job
	// stopped is what ended a creation phase early on some rank
	// (stonewall's agreement; every rank's)
	stopped stopReason
	// stoneItems and stoneTime are, for a create phase under -W, every
	// rank's items done when the ranks agreed on the stonewall, and the
	// time from the phase's start to then (NaN otherwise).
	stoneItems int64
	stoneTime  float64
}

// runResult is what the run measured.
type runResult struct {
	phases []phaseResult
	failed int64
}

// run runs the iterations.
func (r *runner) run(ctx context.Context) (*runResult, error) {
	res := &runResult{}
	base := r.baseDir()
	if err := r.shareSeed(ctx); err != nil {
		return nil, err
	}
	if err := r.loadStoneItems(ctx); err != nil {
		return nil, err
	}
	// The data each rank writes: IOR's signatures, so -X can tell whose
	// file a read found.
	r.ptype = pattern.Type(r.o.DataPacketType)
	r.buf = aiori.AlignedBuffer(int(r.o.WriteBytes))
	pattern.Fill(r.buf, r.ptype, r.rank, r.dataSeed, 0)
	r.rbuf = aiori.AlignedBuffer(int(max(r.o.WriteBytes, r.o.ReadBytes)))
	// As mdtest, the first ranks make their -d directory if it is missing
	// (so that rank 0's statfs sees the file system it will test), and
	// remove it at the end if they made it and the run removes. mdtest
	// makes it with one mkdir: only the last component, so a missing
	// parent is refused here, before any work (mdtest warns "Unable to
	// create test directory path" and fails later).
	created, missing := false, false
	if r.rank < len(r.o.Dirs) {
		if _, err := r.md.Stat(base); errors.Is(err, fs.ErrNotExist) {
			missing = true
			if _, err := r.md.Stat(path.Dir(base)); errors.Is(err, fs.ErrNotExist) {
				return nil, &BadInputError{fmt.Sprintf("-d %s: directory %s does not exist, and mdtest creates only the last directory of -d",
					base, path.Dir(base))}
			}
		}
	}
	// Every rank's -d checked before any is created: a refused one
	// leaves nothing behind.
	if err := r.barrier(ctx); err != nil {
		return nil, err
	}
	if missing {
		err := r.md.Mkdir(base, 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("mdtest: create %s: %w", base, err)
		}
		created = err == nil // not when another process made it first
	}
	// Before any rank works under it: another rank's MkdirAll of its own
	// tree would make the -d directory first, and this rank, finding it,
	// would not remove it at the end (-u left it behind in 1 run of 3).
	if err := r.barrier(ctx); err != nil {
		return nil, err
	}
	r.iio, _ = r.be.(itemIO)
	r.pb, r.rb = newPathBuf(r.iio != nil), newPathBuf(r.iio != nil)
	if r.rank == 0 {
		if s, ok := r.be.(aiori.Statfser); ok {
			if fi, err := s.Statfs(base); err == nil {
				r.fsInfo = &fi
			}
		}
	}
	for iter := 0; iter < r.o.Iterations; iter++ {
		if r.o.PreDelay > 0 {
			if err := r.env.Sleep(ctx, time.Duration(r.o.PreDelay)*time.Second); err != nil {
				return nil, err
			}
		}
		if err := r.iteration(ctx, iter, res); err != nil {
			var he *hookError
			if errors.As(err, &he) && r.o.Remove && created {
				_ = r.md.Rmdir(base) // every rank's part is gone (iteration)
			}
			return nil, err
		}
	}
	if r.o.Remove {
		// Last, after every rank is done with it; what another process
		// put there keeps it.
		if err := r.barrier(ctx); err != nil {
			return nil, err
		}
		if created {
			_ = r.md.Rmdir(base)
		}
	}
	return res, nil
}

// baseDir is the -d directory this rank works under: with several, rank
// r takes the (r mod n)-th.
func (r *runner) baseDir() string {
	d := r.o.Dirs
	if len(d) == 0 {
		return "./out"
	}
	return d[r.rank%len(d)]
}

// owns reports whether this rank creates and removes the tree it uses:
// with -u every rank has its own, otherwise rank 0 makes the shared one.
func (r *runner) owns() bool { return r.o.UniqueDir || r.rank == 0 }

// tree returns the trees holding the items of rank owner in this
// iteration, one per test directory (-n with -I makes several): its own
// with -u, under its own -d directory when there are several.
func (r *runner) tree(owner int) *tree {
	o := r.o
	base, who := r.baseDir(), -1
	if o.UniqueDir {
		who = owner
		if d := o.Dirs; len(d) > 1 {
			base = d[owner%len(d)]
		}
	}
	t := newTree(base, r.iter, who, o, r.layout)
	r.trees++
	t.id = r.trees
	return t
}

// iteration runs the phases of one iteration.
func (r *runner) iteration(ctx context.Context, iter int, res *runResult) error {
	o := r.o
	r.layout = o.Layout()
	r.iter = iter
	mine := r.tree(r.rank)
	r.items = r.layout.ItemsPerRank
	if r.stoneItems >= 0 && r.stoneItems < r.items {
		r.items = r.stoneItems
	}
	r.renamed = false
	// The test directories: made by whoever makes trees in them.
	if o.Create && r.owns() {
		for j := range mine.loops {
			if err := r.mkdirAll(r.testDirPath(mine, j)); err != nil {
				return err
			}
			if err := checkEvery(ctx, j); err != nil {
				return err
			}
		}
	}
	if err := r.barrier(ctx); err != nil {
		return err
	}
	before := len(res.phases)
	for _, ph := range o.Phases() {
		var p phaseResult
		var err error
		// The Phase hook: items for the item phases (this rank's, as
		// planned), unknown (0) for the trees.
		var total int64
		if ph != config.TreeCreate && ph != config.TreeRemove {
			total = r.items
		}
		r.env.Phase(ph.String(), iter, 0, total)
		r.phaseName, r.phaseIter = ph.String(), iter
		switch ph {
		case config.TreeCreate:
			p, err = r.treePhase(ctx, phTreeCreate, mine, true)
		case config.TreeRemove:
			p, err = r.treePhase(ctx, phTreeRemove, mine, false)
		case config.DirCreate:
			p, err = r.itemPhase(ctx, phDirCreate, r.dirCreate, r.rank)
		case config.DirStat:
			p, err = r.itemPhase(ctx, phDirStat, r.dirStat, r.target())
		case config.DirRead:
			p, err = r.itemPhase(ctx, report.MdtestDirRead, func(string) error { return nil }, r.target())
		case config.DirRename:
			p, err = r.itemPhase(ctx, phDirRename, r.dirRename, r.target())
			r.renamed = true
		case config.DirRemove:
			p, err = r.itemPhase(ctx, phDirRemove, r.dirRemove, r.target())
		case config.FileCreate:
			p, err = r.itemPhase(ctx, phFileCreate, r.fileCreate, r.rank)
		case config.FileStat:
			p, err = r.itemPhase(ctx, phFileStat, r.fileStat, r.target())
		case config.FileRead:
			p, err = r.itemPhase(ctx, phFileRead, r.fileRead, r.target())
		case config.FileRemove:
			p, err = r.itemPhase(ctx, phFileRemove, r.fileRemove, r.target())
		default:
			continue
		}
		if err != nil {
			var he *hookError
			if errors.As(err, &he) && o.Remove {
				// As after a failing phase: every rank done with the
				// phase, then nothing of the iteration left, every
				// rank's part removed before rank 0 reports the
				// failure and the job ends.
				if berr := r.barrier(ctx); berr != nil {
					return errors.Join(err, berr)
				}
				if cerr := r.cleanup(ctx, mine); cerr != nil {
					return errors.Join(err, cerr)
				}
				if berr := r.barrier(ctx); berr != nil {
					return errors.Join(err, berr)
				}
			}
			return err
		}
		p.iter = iter
		r.env.Phase(ph.String(), iter, p.done, total)
		res.phases = append(res.phases, p)
		res.failed += p.failed
	}
	if o.Remove && r.owns() {
		for j := range mine.loops {
			_ = r.md.Rmdir(r.testDirPath(mine, j)) // with -u every rank tries; the last one wins
		}
	}
	// A failed iteration leaves nothing behind: clean up what is left.
	var failed int64
	for _, p := range res.phases[before:] {
		failed += p.failed
	}
	if failed > 0 && o.Remove {
		if err := r.barrier(ctx); err != nil {
			return err
		}
		return r.cleanup(ctx, mine)
	}
	return nil
}

// target is the rank whose items the phases after create work on: -N.
func (r *runner) target() int {
	if r.o.Stride <= 0 {
		return r.rank
	}
	return (r.rank + r.o.Stride) % r.size
}

// mkdirAll creates dir and its missing parents.
func (r *runner) mkdirAll(dir string) error {
	if err := r.md.Mkdir(dir, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("mdtest: create %s: %w", dir, err)
	}
	if i := strings.LastIndex(dir, "/"); i > 0 {
		if err := r.mkdirAll(dir[:i]); err != nil {
			return err
		}
	}
	if err := r.md.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("mdtest: create %s: %w", dir, err)
	}
	return nil
}

// cleanup removes, best effort, whatever a failed iteration left in this
// rank's trees: every rank's items first, then, after a barrier, the trees
// (a tree's owner removing it while another rank's items are still in it
// would leave it behind).
func (r *runner) cleanup(ctx context.Context, t *tree) error {
	for _, name := range []string{phFileRemove, phDirRemove} {
		s := r.itemsOf(name, r.rank, r.layout.ItemsPerRank)
		s.suffix = ""
		for i := range s.n {
			p := r.path(&s, i)
			if name == phFileRemove {
				_ = r.be.Remove(p)
			} else {
				_ = r.md.Rmdir(p)
				_ = r.md.Rmdir(r.renamedPath(p))
			}
		}
	}
	if err := r.barrier(ctx); err != nil {
		return err
	}
	if r.owns() {
		for j := range t.loops {
			for k := t.count - 1; k >= 0; k-- {
				_ = r.md.Rmdir(r.dirPath(t, j, k))
			}
			_ = r.md.Rmdir(r.testDirPath(t, j))
		}
	}
	return nil
}

// barrier is the job barrier, with the error worded.
func (r *runner) barrier(ctx context.Context) error {
	if err := r.c.Barrier(ctx); err != nil {
		return fmt.Errorf("mdtest: barrier: %w", err)
	}
	return nil
}

// opFunc does one operation on one path and returns its error.
type opFunc func(path string) error

// renameSuffix is appended by the rename phase.
const renameSuffix = ".renamed"

func (r *runner) dirCreate(p string) error { return r.md.Mkdir(p, 0o755) }

// dirStat stats a directory item; as mdtest, it checks only that stat
// succeeds (the DUMMY backend keeps no directories).
func (r *runner) dirStat(p string) error {
	if r.iio != nil {
		return r.iio.StatItem(p)
	}
	_, err := r.md.Stat(p)
	return err
}

// dirRename renames the directory item p to its name with renameSuffix.
func (r *runner) dirRename(p string) error { return r.md.Rename(p, r.renamedPath(p)) }

// renamedPath returns p with renameSuffix, in r's second path buffer.
func (r *runner) renamedPath(p string) string {
	r.rb.b = append(append(r.rb.b[:0], p...), renameSuffix...)
	return r.rb.str()
}

func (r *runner) dirRemove(p string) error { return r.md.Rmdir(p) }

func (r *runner) fileCreate(p string) error {
	if r.o.Mknod {
		return r.md.Mknod(p)
	}
	if r.iio != nil && !r.o.VerifyWrite && !r.o.Fsync {
		return r.iio.CreateItem(p, r.buf[:r.o.WriteBytes])
	}
	flags := aiori.WriteOnly | aiori.Create
	if r.o.VerifyWrite {
		flags = aiori.ReadWrite | aiori.Create // to read it back
	}
	f, err := r.be.Create(p, flags)
	if err != nil {
		return err
	}
	if n := r.o.WriteBytes; n > 0 {
		if _, err := f.WriteAt(r.buf[:n], 0); err != nil {
			f.Close()
			return err
		}
		if r.o.VerifyWrite {
			if err := r.verify(f, r.rbuf[:n], r.rank); err != nil {
				f.Close()
				return err
			}
		}
	}
	if r.o.Fsync {
		if err := f.Fsync(); err != nil && !errors.Is(err, aiori.ErrNotSupported) {
			f.Close()
			return err
		}
	}
	return f.Close()
}

func (r *runner) fileStat(p string) error {
	if r.iio != nil {
		return r.iio.StatItem(p)
	}
	_, err := r.md.Stat(p)
	return err
}

func (r *runner) fileRead(p string) error {
	if r.iio != nil && !r.o.VerifyRead {
		if _, err := r.iio.ReadItem(p, r.rbuf[:r.o.ReadBytes]); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	f, err := r.be.Open(p, aiori.ReadOnly)
	if err != nil {
		return err
	}
	if n := r.o.ReadBytes; n > 0 {
		if r.o.VerifyRead {
			if err := r.verify(f, r.rbuf[:n], r.target()); err != nil {
				f.Close()
				return err
			}
		} else if _, err := f.ReadAt(r.rbuf[:n], 0); err != nil && !errors.Is(err, io.EOF) {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// errCorrupt is wrapped by the error of a read whose data is not what its
// owner wrote (-X, --verify-write).
var errCorrupt = errors.New("data differs from what was written")

// verify reads len(buf) bytes at the start of f and checks they are the
// data rank owner writes.
func (r *runner) verify(f aiori.File, buf []byte, owner int) error {
	pattern.Poison(buf)
	if _, err := f.ReadAt(buf, 0); err != nil {
		return err
	}
	if bad, first := pattern.Verify(buf, r.ptype, owner, r.dataSeed, 0); bad > 0 {
		return fmt.Errorf("%d of %d words wrong, first at byte %d: %w", bad, (len(buf)+7)/8, first*8, errCorrupt)
	}
	return nil
}

func (r *runner) fileRemove(p string) error { return r.be.Remove(p) }

// progressItems is how many items a rank does between two reports to the
// Phase hook inside a phase: a report costs a call and, on rank 0 on a
// terminal, an uncontended lock (16 ns), against 2 µs or more per item.
const progressItems = 4096

// itemPhase times one item phase on every rank: barrier, clock, the
// operations, clock, optional sync, barrier, clock.
func (r *runner) itemPhase(ctx context.Context, name string, op opFunc, owner int) (phaseResult, error) {
	ps := r.phaseItems(name, owner)
	var all []itemSet // -c: every rank's items, which rank 0 creates or removes
	var nall int64
	if r.collective(name) {
		if r.rank == 0 {
			all = r.everyRanksItems(name)
			nall = r.items * int64(r.size)
		}
		if name != phFileCreate || r.o.Mknod {
			ps.n = 0 // with -k there is nothing to write
		}
	}
	cop := r.collectiveOp(name, op) // what rank 0 does to every rank's items
	var times *opTimes              // --savePerOpDataCSV's
	if r.o.SavePerOpDataCSV != "" && perOpPhase(name) {
		times = &opTimes{clock: r.env.Clock}
		op, cop = times.timeOps(op, cop, ps.n+nall)
	}
	// With a backend whose calls may allocate (and which gets a copy of
	// each path), collect now what came before the phase, so that the
	// timed loop's own garbage starts a collection, whose worker takes a
	// CPU from another rank, as late as it can. One whose item calls allocate
	// nothing (itemIO's, which borrows the paths) cannot start one there,
	// unless --savePerOpDataCSV times them, and a forced collection just
	// before the loop slows its start: 1000 cached stats take 413 µs
	// after runtime.GC() against 349 without (median of 150 each, 2 Ps).
	if r.iio == nil || times != nil {
		runtime.GC()
	}
	if err := r.hook(ctx, r.o.RunCmdBeforePhase, name); err != nil {
		return phaseResult{}, err
	}
	if err := clock.StartBarrier(ctx, r.barrier, r.env.wall); err != nil {
		return phaseResult{}, err
	}
	t0 := r.env.Clock()
	lp := r.newLoop(name)
	var failed int64
	var first string
	if r.collective(name) {
		if err := r.collectivePhase(ctx, name, cop, all, lp, &failed, &first); err != nil {
			return phaseResult{}, err
		}
	}
	done, why := r.itemLoop(ctx, name, &ps, op, lp, &failed, &first)
	if why&stopCanceled != 0 {
		return phaseResult{}, fmt.Errorf("mdtest: %s: %w", name, context.Cause(ctx))
	}
	var stopped stopReason
	stoneItems, stoneTime := int64(0), math.NaN()
	if isCreate(name) && r.o.StonewallSeconds > 0 {
		// mdtest's stonewall figures: the items done at the stonewall,
		// before the wear-out, and the time to the agreement.
		var s, out [8]byte
		binary.LittleEndian.PutUint64(s[:], uint64(done))
		if err := r.c.Allreduce(ctx, s[:], out[:], collectives.Int64, collectives.Sum); err != nil {
			return phaseResult{}, fmt.Errorf("mdtest: allreduce: %w", err)
		}
		stoneItems, stoneTime = int64(binary.LittleEndian.Uint64(out[:])), r.env.Clock()-t0
	}
	if isCreate(name) {
		n, s, err := r.stonewall(ctx, name, done, why, &ps, op, lp, &failed, &first)
		if err != nil {
			return phaseResult{}, err
		}
		done, stopped = n, s
	}
	if r.collective(name) {
		done = r.items // mdtest counts every rank's items as its own
	}
	tBefore := r.env.Clock()
	lp.rec.Done(r.tick() - lp.base)
	if r.o.SyncPhases {
		if s, ok := r.be.(aiori.Syncer); ok {
			if err := s.Sync(); err != nil {
				return phaseResult{}, fmt.Errorf("mdtest: %s: sync: %w", name, err)
			}
		}
	}
	if err := r.hook(ctx, r.o.RunCmdAfterPhase, name); err != nil {
		return phaseResult{}, err
	}
	if err := r.barrier(ctx); err != nil {
		return phaseResult{}, err
	}
	t1 := r.env.Clock()
	if times != nil {
		if err := r.savePerOp(name, times, t0); err != nil {
			return phaseResult{}, err
		}
	}
	p, err := r.collect(ctx, name, phaseRank{items: float64(done), before: tBefore - t0, after: t1 - t0}, failed, first)
	p.done, p.stopped, p.stoneItems, p.stoneTime = done, stopped, stoneItems, stoneTime
	if err != nil {
		return p, err
	}
	return p, r.reduce(ctx, &p, lp.rec)
}

// itemLoop is an item phase's timed loop: op on each of ps, each path
// derived from its place as the loop reaches it, failures counted in
// failed and the first described in first, a report to the Phase hook
// every progressItems items, every item recorded in lp's Recorder (its
// latency when it is timed), until lp's rule stops it. It returns the
// items done and why it stopped early (0 when it did not): lp's rule, or
// ctx's end, which it looks at with each report.
func (r *runner) itemLoop(ctx context.Context, name string, ps *itemSet, op opFunc, lp loop, failed *int64, first *string) (int64, stopReason) {
	var done int64
	untilReport := progressItems // a countdown: no division in the loop
	// Every item is timed under -W, whose deadline needs a reading per
	// item anyway, and on a test's clock; otherwise the recorder samples
	// (distribution.Recorder.Due): one item in k, timed from its own start, so
	// that items of a microsecond do not pay a clock read each.
	timeAll := lp.deadline != math.MaxInt64 || !r.env.realTick
	var start int64
	for i := range ps.n {
		p := r.path(ps, i)
		due := timeAll || lp.rec.Due()
		if due && !timeAll {
			start = r.tick() - lp.base
		}
		if err := op(p); err != nil {
			if *failed == 0 {
				*first = describe(verb(name), p, err).encode()
			}
			*failed++
		}
		done++
		var why stopReason
		if !due {
			if lp.rec.Skip(1) && lp.steady {
				why = stopSteady
			}
		} else {
			now := r.tick() - lp.base
			var steady bool
			if timeAll {
				steady = lp.rec.Next(now, 1)
			} else {
				steady = lp.rec.Op(start, now, 1)
			}
			why = lp.stop(now, steady)
		}
		if why != 0 {
			return done, why
		}
		// After the recording, so that no timed item holds a report.
		if untilReport--; untilReport == 0 {
			untilReport = progressItems
			r.env.Phase(r.phaseName, r.phaseIter, done, r.items)
			if ctx.Err() != nil {
				return done, stopCanceled
			}
		}
	}
	return done, 0
}

// collective reports whether rank 0 does phase name's operations for
// every rank (-c): the create and remove phases of directories and files.
// A file create phase then also has every rank open and write its own
// files after rank 0 created them, as mdtest's does.
func (r *runner) collective(name string) bool {
	if !r.o.Collective {
		return false
	}
	switch name {
	case phDirCreate, phDirRemove, phFileCreate, phFileRemove:
		return true
	}
	return false
}

// everyRanksItems returns the items of phase name of every rank, rank by
// rank, for -c.
func (r *runner) everyRanksItems(name string) []itemSet {
	all := make([]itemSet, r.size)
	for k := range all {
		all[k] = r.itemsOf(name, k, r.items)
	}
	return all
}

// collectivePhase does on rank 0 the operations of a -c phase for every
// rank's items (all), counting failures as the phase does; for file
// creation, every rank then waits for it before opening its own files.
func (r *runner) collectivePhase(ctx context.Context, name string, op opFunc, all []itemSet, lp loop, failed *int64, first *string) error {
	for k := range all {
		for i := range all[k].n {
			p := r.path(&all[k], i)
			if err := op(p); err != nil {
				if *failed == 0 {
					*first = describe(verb(name), p, err).encode()
				}
				*failed++
			}
			lp.rec.Next(r.tick()-lp.base, 1)
			if err := checkEvery(ctx, i); err != nil {
				return err
			}
		}
	}
	if name == phFileCreate {
		if err := r.barrier(ctx); err != nil {
			return err
		}
		lp.rec.Mark(r.tick() - lp.base) // waiting for rank 0 is no item's
	}
	return nil
}

// collectiveOp is what rank 0 does to every rank's items in a -c phase:
// op, except that mdtest's collective file create only creates and closes
// each file (collective_helper); every rank then writes its own in op.
func (r *runner) collectiveOp(name string, op opFunc) opFunc {
	if name != phFileCreate || r.o.Mknod {
		return op
	}
	return r.createEmpty
}

// createEmpty creates the file p and closes it, writing nothing.
func (r *runner) createEmpty(p string) error {
	if r.iio != nil {
		return r.iio.CreateItem(p, nil)
	}
	f, err := r.be.Create(p, aiori.WriteOnly|aiori.Create)
	if err != nil {
		return err
	}
	return f.Close()
}

// stonewall agrees, after a create phase that lp's rule may have cut
// short on some ranks (why: this rank's reason, 0 for none), on the most
// items any rank created, lets every rank catch up to it (mdtest's wear
// out), and sets the item count the later phases use. It returns this
// rank's items done and what stopped the phase early on any rank.
func (r *runner) stonewall(ctx context.Context, name string, done int64, why stopReason, ps *itemSet, op opFunc, lp loop, failed *int64, first *string) (int64, stopReason, error) {
	if !r.stoppable() {
		return done, 0, nil
	}
	// The most items, and whether any rank stopped on -W's deadline or
	// on --until-steady's test: each word's maximum.
	var s, out [8 * 3]byte
	binary.LittleEndian.PutUint64(s[0:], uint64(done))
	binary.LittleEndian.PutUint64(s[8:], uint64(why&stopDeadline))
	binary.LittleEndian.PutUint64(s[16:], uint64(why&stopSteady))
	if err := r.c.Allreduce(ctx, s[:], out[:], collectives.Int64, collectives.Max); err != nil {
		return 0, 0, fmt.Errorf("mdtest: allreduce: %w", err)
	}
	most := int64(binary.LittleEndian.Uint64(out[0:]))
	stopped := stopReason(binary.LittleEndian.Uint64(out[8:]) | binary.LittleEndian.Uint64(out[16:]))
	lp.rec.Mark(r.tick() - lp.base) // the wait in the Allreduce is no item's
	for i := done; i < most; i++ {
		p := r.path(ps, i)
		if err := op(p); err != nil {
			if *failed == 0 {
				*first = describe(verb(name), p, err).encode()
			}
			*failed++
		}
		lp.rec.Next(r.tick()-lp.base, 1)
		if err := checkEvery(ctx, i); err != nil {
			return 0, 0, err
		}
	}
	r.items = most
	if r.rank == 0 && most < ps.n {
		if stopped&stopDeadline != 0 {
			r.env.Warn(fmt.Sprintf("stonewall hit after %d s: every rank went on to %d items of %d", r.o.StonewallSeconds, most, ps.n))
		}
		if stopped&stopSteady != 0 {
			r.env.Warn(fmt.Sprintf("%s: --until-steady=%s: a rank's creation rate was steady: every rank went on to %d items of %d", name, r.o.Steady, most, ps.n))
		}
		if f := r.o.StonewallStatusFile; f != "" {
			if err := os.WriteFile(f, []byte(strconv.FormatInt(most, 10)+"\n"), 0o644); err != nil {
				return 0, 0, fmt.Errorf("mdtest: -x %s: %w", f, err)
			}
		}
	}
	return most, stopped, nil
}

// treePhase creates or removes this rank's tree (rank 0's shared tree
// without -u) and times it.
func (r *runner) treePhase(ctx context.Context, name string, mine *tree, create bool) (phaseResult, error) {
	ts := []*tree{mine}
	if r.o.Collective && r.o.UniqueDir {
		// -c -u: rank 0 makes and removes every rank's tree.
		ts = nil
		if r.rank == 0 {
			for k := range r.size {
				ts = append(ts, r.tree(k))
			}
		}
	}
	if err := r.hook(ctx, r.o.RunCmdBeforePhase, name); err != nil {
		return phaseResult{}, err
	}
	if err := r.barrier(ctx); err != nil {
		return phaseResult{}, err
	}
	t0 := r.env.Clock()
	lp := r.newLoop(name)
	var failed int64
	var first string
	var done int64
	if r.owns() {
		note := func(p string, err error) {
			lp.rec.Next(r.tick()-lp.base, 1)
			if err != nil {
				if failed == 0 {
					first = describe(verb(name), p, err).encode()
				}
				failed++
			}
		}
		for _, t := range ts {
			for j := range t.loops {
				for n := range t.count {
					k := n // creation: parents first
					if !create {
						k = t.count - 1 - n
					}
					p := r.dirPath(t, j, k)
					if create {
						note(p, r.md.Mkdir(p, 0o755))
					} else {
						note(p, r.md.Rmdir(p))
					}
					if err := checkEvery(ctx, n); err != nil {
						return phaseResult{}, err
					}
				}
			}
		}
		// mdtest's tree rate counts one rank's trees, whoever makes
		// them all (-c -u).
		done = mine.loops * mine.count
	}
	tBefore := r.env.Clock()
	lp.rec.Done(r.tick() - lp.base)
	if err := r.hook(ctx, r.o.RunCmdAfterPhase, name); err != nil {
		return phaseResult{}, err
	}
	if err := r.barrier(ctx); err != nil {
		return phaseResult{}, err
	}
	t1 := r.env.Clock()
	p, err := r.collect(ctx, name, phaseRank{items: float64(done), before: tBefore - t0, after: t1 - t0}, failed, first)
	if err != nil {
		return p, err
	}
	return p, r.reduce(ctx, &p, lp.rec)
}

// hook runs a --run-cmd-before-phase / --run-cmd-after-phase command on
// rank 0.
func (r *runner) hook(ctx context.Context, cmd, phase string) error {
	if cmd == "" {
		return nil
	}
	// Rank 0 runs it and tells every rank how it went, so that a failed
	// command ends the iteration on every rank alike, its trees cleaned
	// up as after a failing phase (iteration), rather than rank 0 alone
	// failing with the others waiting at the next barrier and the tree
	// left behind.
	var herr error
	status := []byte{0}
	if r.rank == 0 {
		if err := r.env.RunCmd(ctx, cmd, phase); err != nil {
			herr = &hookError{fmt.Errorf("mdtest: %s: command %q: %w", phase, cmd, err)}
			status[0] = 1
		}
	}
	if r.size > 1 {
		if err := r.c.Bcast(ctx, status, 0); err != nil {
			return fmt.Errorf("mdtest: %s: sharing the command's status: %w", phase, err)
		}
	}
	if status[0] != 0 && herr == nil {
		herr = &hookError{fmt.Errorf("mdtest: %s: command %q failed on rank 0", phase, cmd)}
	}
	return herr
}

// hookError is a --run-cmd-before-phase or --run-cmd-after-phase command
// that failed: every rank has it (hook shares it).
type hookError struct{ err error }

func (e *hookError) Error() string { return e.err.Error() }
func (e *hookError) Unwrap() error { return e.err }

// shellCmd runs cmd with sh -c, the phase name in HPCBENCH_MDTEST_PHASE,
// its output on this process's stderr.
func shellCmd(ctx context.Context, cmd, phase string) error {
	c := exec.CommandContext(ctx, "sh", "-c", cmd)
	c.Env = append(os.Environ(), "HPCBENCH_MDTEST_PHASE="+phase)
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	return c.Run()
}

// failNote is the size of one rank's first-failure record in the gather.
const failNote = 480

// collect gathers every rank's figures and failures on rank 0.
func (r *runner) collect(ctx context.Context, name string, mine phaseRank, failed int64, first string) (phaseResult, error) {
	rec := make([]byte, 32+failNote)
	binary.LittleEndian.PutUint64(rec[0:], math.Float64bits(mine.items))
	binary.LittleEndian.PutUint64(rec[8:], math.Float64bits(mine.before))
	binary.LittleEndian.PutUint64(rec[16:], math.Float64bits(mine.after))
	binary.LittleEndian.PutUint64(rec[24:], uint64(failed))
	copy(rec[32:], first)
	var all []byte
	if r.rank == 0 {
		all = make([]byte, len(rec)*r.size)
	}
	if err := r.c.Gather(ctx, rec, all, 0); err != nil {
		return phaseResult{}, fmt.Errorf("mdtest: %s: gather: %w", name, err)
	}
	p := phaseResult{name: name}
	if r.rank != 0 {
		// Every rank learns the failure count, so all agree on the exit.
		return p, r.shareFailures(ctx, &p)
	}
	for k := range r.size {
		b := all[k*len(rec):]
		p.ranks = append(p.ranks, phaseRank{
			items:  math.Float64frombits(binary.LittleEndian.Uint64(b[0:])),
			before: math.Float64frombits(binary.LittleEndian.Uint64(b[8:])),
			after:  math.Float64frombits(binary.LittleEndian.Uint64(b[16:])),
		})
		n := int64(binary.LittleEndian.Uint64(b[24:]))
		if n > 0 && p.first == "" {
			p.first = strings.TrimRight(string(b[32:32+failNote]), "\x00")
		}
		p.failed += n
	}
	if r.o.Verbose > 0 {
		slowest := 0.0
		var items float64
		for _, k := range p.ranks {
			slowest = math.Max(slowest, k.after)
			items += k.items
		}
		r.env.Warn(fmt.Sprintf("V-1: %s: %.0f items in %.6f s", name, items, slowest))
	}
	if p.failed > 0 {
		f := decodeFailure(p.first)
		r.env.Warn(fmt.Sprintf("ERROR: %d operations failed in %s; first: %s %s: %s", p.failed, name, f.op, f.path, f.err))
	}
	return p, r.shareFailures(ctx, &p)
}

// shareFailures broadcasts rank 0's failure count.
func (r *runner) shareFailures(ctx context.Context, p *phaseResult) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(p.failed))
	if err := r.c.Bcast(ctx, b[:], 0); err != nil {
		return fmt.Errorf("mdtest: %s: broadcast: %w", p.name, err)
	}
	p.failed = int64(binary.LittleEndian.Uint64(b[:]))
	return nil
}

// shareSeed settles -R's seed: --random-seed, or rank 0's clock.
func (r *runner) shareSeed(ctx context.Context) error {
	var b [8]byte
	seed := uint64(r.o.RandomSeed)
	if seed == 0 {
		seed = uint64(r.env.Now().UnixNano())
	}
	binary.LittleEndian.PutUint64(b[:], seed)
	if err := r.c.Bcast(ctx, b[:], 0); err != nil {
		return fmt.Errorf("mdtest: broadcast: %w", err)
	}
	r.seed = binary.LittleEndian.Uint64(b[:])
	data := uint64(r.o.DataSeed)
	if r.o.DataSeed == config.DefaultDataSeed { // only -1: IO500 passes other negative seeds
		data = uint64(r.env.Now().Unix())
	}
	binary.LittleEndian.PutUint64(b[:], data)
	if err := r.c.Bcast(ctx, b[:], 0); err != nil {
		return fmt.Errorf("mdtest: broadcast: %w", err)
	}
	r.dataSeed = binary.LittleEndian.Uint64(b[:])
	return nil
}

// loadStoneItems reads, on rank 0, the item count a stonewalled create
// phase saved in -x's file, when this run does not create (mdtest's
// split runs), and shares it.
func (r *runner) loadStoneItems(ctx context.Context) error {
	r.stoneItems = -1
	path := r.o.StonewallStatusFile
	if path == "" || r.o.Create {
		return nil
	}
	n := int64(-1)
	var rerr error
	if r.rank == 0 {
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			rerr = fmt.Errorf("mdtest: -x %s: %w", path, err)
		default:
			v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
			if err != nil || v < 0 {
				rerr = fmt.Errorf("mdtest: -x %s: %q is not an item count", path, strings.TrimSpace(string(data)))
			}
			n = v
		}
		if rerr != nil {
			n = -2
		}
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	if err := r.c.Bcast(ctx, b[:], 0); err != nil {
		return fmt.Errorf("mdtest: broadcast: %w", err)
	}
	n = int64(binary.LittleEndian.Uint64(b[:]))
	if n == -2 {
		if rerr == nil {
			rerr = fmt.Errorf("mdtest: -x %s: rank 0 could not read it", path)
		}
		return rerr
	}
	r.stoneItems = n
	return nil
}
