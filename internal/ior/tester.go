package ior

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/internal/pattern"
)

// tester runs one test on one rank.
type tester struct {
	o    *config.Options
	env  Env
	c    Comm
	rank int
	// numTasks ranks take part (-N); the others only join the barriers
	// and reductions.
	numTasks int
	active   bool
	be       aiori.Backend
	buf      []byte       // one transfer, aligned for O_DIRECT
	freeBuf  func([]byte) // gives buf back to the backend that made it, or nil
	ptype    pattern.Type
	fs       *aiori.FSInfo // rank 0: capacity for the header; nil if unknown
	start    time.Time     // the test's StartTime
	// carried between the phases of a repetition
	sig      uint64 // the repetition's data signature
	stoneMax int64  // the most transfers a rank made by the last -D deadline
	// stoneRead limits the check and read passes to what every rank wrote
	// when a -D deadline cut the write short; -1 for no limit.
	stoneRead int64
	// progress, if not nil, reports the test so far (rank 0).
	progress func(res *testResult)
	// hog is the memory -M or -O memoryPerTask has this task hold.
	hog memoryHog
	// numaNode is the NUMA node the task ran on at the start, for -y.
	numaNode int
	// rep is the repetition running, for -O savePerOpDataCSV's names.
	rep int
	// rec records the distributions of the phase running; dc is the
	// communicator that reduces them; t0 (or tick0 on Env.Ticks) is the
	// phase's start.
	rec *distribution.Recorder
	dc  *collectives.Comm
	// self is this rank alone, the group of -c with -F; collBufs are an
	// aggregator's two collective buffers (cb_buffer_size bytes each),
	// collSend the buffers it sends from, per destination, kept from
	// phase to phase; coll holds, on rank 0, how each collective phase
	// was done.
	self     *collectives.Comm
	collBufs [2][]byte
	collSend map[int][]byte
	coll     []collRecord
	// collPlanned is, on rank 0 under -c, what each phase of the first
	// repetition does, as the Options block says.
	collPlanned map[access]string
	t0          time.Time
	tick0       int64
	clock0      float64 // the phase's start on Env.Clock
}

// report passes the test so far to progress.
func (t *tester) report(res *testResult) {
	if t.progress != nil {
		t.progress(res)
	}
}

// testResult is what one test measured, complete on rank 0.
type testResult struct {
	phases  []phaseFigures // in the order they ran
	corrupt int64          // corrupt transfers over every check
}

// newTester resolves o for the job, makes the backend and its buffer.
func newTester(ctx context.Context, c Comm, o *config.Options, env Env) (*tester, error) {
	warnings, err := o.Resolve(c.Size())
	if c.Rank() == 0 {
		for _, w := range warnings {
			env.Warn("WARNING: " + w)
		}
	}
	if err != nil {
		return nil, err
	}
	t := &tester{o: o, env: env, c: c, rank: c.Rank(), numTasks: o.NumTasks, start: env.Now(), stoneRead: -1}
	t.active = t.rank < t.numTasks
	// -O numNodes and numTasksOnNode0 stand for what the job reports, as
	// in IOR: for -C's shift, -Z's node offset, -M's share and the report.
	if o.NumNodes > 0 {
		t.env.Run.Hosts = o.NumNodes
	}
	if o.NumTasksOnNode0 > 0 {
		t.env.HostRanks = o.NumTasksOnNode0
	}
	if o.DualMount {
		t.numaNode = numaNode()
	}
	if o.MemoryPerTask > 0 || !o.MemoryPerNode.IsZero() {
		physical, err := physicalMemory()
		if err != nil {
			return nil, fmt.Errorf("-M: %w", err)
		}
		if t.hog, err = resolveMemory(o, t.topology().TasksOnNode0, physical); err != nil {
			return nil, err
		}
	}
	t.ptype, err = pattern.ParseType(o.DataPacketType.String())
	if err != nil {
		return nil, fmt.Errorf("-l: %w", err)
	}
	t.be, err = o.Backend.New(o.BackendOptions, aiori.Env{Rank: t.rank, Size: c.Size(), Comm: c, Context: ctx, Hosts: env.RankHosts})
	if err != nil {
		return nil, fmt.Errorf("-a %s: %w", o.API, err)
	}
	if h, ok := t.be.(aiori.Hinter); ok {
		h.SetHints(aiori.Hints{
			Rank: t.rank, NumTasks: t.numTasks, NumNodes: env.Run.Hosts,
			FilePerProc: o.FilePerProc, RandomOffset: o.RandomOffset > 0,
			FsyncPerWrite: o.FsyncPerWrite, SingleXferAttempt: o.SingleXferAttempt,
			SegmentCount: o.SegmentCount, BlockSize: o.BlockSize, TransferSize: o.TransferSize,
			ExpectedFileSize: t.fileSize(),
		})
	}
	if err := t.planColl(); err != nil {
		return nil, err
	}
	t.prepareColl()
	if t.rec, err = distribution.New(o.SeriesInterval(), o.UntilSteady); err != nil {
		return nil, err
	}
	if t.dc, err = distComm(c); err != nil {
		return nil, err
	}
	if a, ok := t.be.(aiori.BufferAllocator); ok {
		t.buf, t.freeBuf = a.AllocBuffer(int(o.TransferSize)), a.FreeBuffer
	} else {
		t.buf = aiori.AlignedBuffer(int(o.TransferSize))
	}
	// Fault the buffer's pages in now, not in the first timed transfer.
	pattern.Poison(t.buf)
	if t.rank == 0 {
		if s, ok := t.be.(aiori.Statfser); ok {
			if fi, err := s.Statfs(dirOf(o.TestFile)); err == nil {
				t.fs = &fi
			}
		}
	}
	return t, ctx.Err()
}

// fileSize is the size each file has once written.
func (t *tester) fileSize() int64 {
	if t.o.FilePerProc {
		return t.o.BlockSize * t.o.SegmentCount
	}
	return t.o.AggregateSize(t.numTasks)
}

// close releases the backend.
func (t *tester) close() error {
	if t.be == nil {
		return nil
	}
	if t.freeBuf != nil {
		t.freeBuf(t.buf)
		t.buf, t.freeBuf = nil, nil
	}
	if t.self != nil {
		t.self.Close()
		t.self = nil
	}
	if err := t.be.Close(); err != nil {
		return fmt.Errorf("-a %s: close: %w", t.o.API, err)
	}
	return nil
}

// run runs the test's repetitions, holding the memory of -M meanwhile.
func (t *tester) run(ctx context.Context) (res *testResult, err error) {
	if t.active && t.hog.task > 0 {
		if t.rank == 0 && t.o.Verbose >= 3 {
			if t.hog.node > 0 {
				t.env.Warn(fmt.Sprintf("This node hogging %d bytes of memory", t.hog.node))
			}
			t.env.Warn(fmt.Sprintf("This task hogging %d bytes of memory", t.hog.task))
		}
		if err := t.hog.hold(); err != nil {
			return nil, err
		}
		defer func() {
			if rerr := t.hog.release(); err == nil && rerr != nil {
				res, err = nil, rerr
			}
		}()
	}
	if t.rank == 0 && t.o.Debug != "" {
		t.env.Warn("*** DEBUG MODE ***")
		t.env.Warn("*** " + t.o.Debug + " ***")
	}
	res = &testResult{}
	if err := t.loadStoneCount(ctx); err != nil {
		return nil, err
	}
	t.report(res)
	startClock := t.env.Clock()
	for rep := 0; rep < t.o.Repetitions; rep++ {
		if rep > 0 && t.o.MaxTimeDuration > 0 {
			stop, err := t.agree(ctx, t.env.Clock()-startClock >= float64(t.o.MaxTimeDuration)*60)
			if err != nil {
				return nil, err
			}
			if stop {
				if t.rank == 0 {
					t.env.Warn(fmt.Sprintf("WARNING: max time duration (-T %d) reached after %d repetitions.", t.o.MaxTimeDuration, rep))
				}
				break
			}
		}
		if err := t.repetition(ctx, rep, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// agree makes rank 0's v everyone's.
func (t *tester) agree(ctx context.Context, v bool) (bool, error) {
	b := []byte{0}
	if v {
		b[0] = 1
	}
	if err := t.c.Bcast(ctx, b, 0); err != nil {
		return false, fmt.Errorf("broadcast: %w", err)
	}
	return b[0] == 1, nil
}

// signature returns the repetition's data signature: -G, or rank 0's
// clock in seconds, broadcast so that every rank writes and checks the same.
func (t *tester) signature(ctx context.Context) (uint64, error) {
	b := make([]byte, 8)
	if t.rank == 0 {
		sig := uint64(t.env.Now().Unix())
		if t.o.TimeStampSignatureSet {
			sig = uint64(t.o.TimeStampSignature)
		}
		binary.LittleEndian.PutUint64(b, sig)
	}
	if err := t.c.Bcast(ctx, b, 0); err != nil {
		return 0, fmt.Errorf("broadcast the signature: %w", err)
	}
	return binary.LittleEndian.Uint64(b), nil
}

// repetition runs one repetition's phases: write, its check, read, remove.
func (t *tester) repetition(ctx context.Context, rep int, res *testResult) error {
	sig, err := t.signature(ctx)
	if err != nil {
		return err
	}
	t.sig, t.rep = sig, rep
	var corrupt int64
	if t.o.WriteFile {
		if err := t.prepareWrite(ctx, rep); err != nil {
			return err
		}
		f, err := t.phase(ctx, accWrite, rep)
		if err != nil {
			return err
		}
		if err := t.saveStoneCount(); err != nil {
			return err
		}
		if t.o.CheckWrite {
			bad, err := t.check(ctx, accWriteCheck, rep)
			if err != nil {
				return err
			}
			f.errors = float64(bad)
			corrupt += bad
		}
		res.phases = append(res.phases, f)
		t.report(res)
	}
	if t.o.ReadFile {
		if err := t.delay(ctx); err != nil {
			return err
		}
		f, err := t.phase(ctx, accRead, rep)
		if err != nil {
			return err
		}
		if t.o.CheckRead {
			corrupt += int64(f.errors)
		}
		res.phases = append(res.phases, f)
		t.report(res)
	}
	res.corrupt += corrupt
	if corrupt > 0 && t.rank == 0 {
		t.env.Warn(fmt.Sprintf("Used Time Stamp %d (%#x) for Data Signature", t.sig, t.sig))
	}
	keep := t.o.KeepFile || (corrupt > 0 && t.o.KeepFileWithError)
	if !keep && (t.o.WriteFile || t.o.ReadFile) {
		f, err := t.remove(ctx, rep)
		if err != nil {
			return err
		}
		res.phases = append(res.phases, f)
		t.report(res)
	}
	return nil
}

// delay sleeps -d (which may be a fraction of a second) before a phase.
func (t *tester) delay(ctx context.Context) error {
	if t.o.InterTestDelay <= 0 {
		return nil
	}
	if t.rank == 0 && t.o.Verbose > 0 {
		t.env.Warn(fmt.Sprintf("delaying %s seconds . . .", config.FormatSeconds(t.o.InterTestDelay)))
	}
	return t.env.Sleep(ctx, t.o.InterTestDelay)
}

// prepareWrite removes what a previous run left (unless -E) and sleeps -d.
func (t *tester) prepareWrite(ctx context.Context, rep int) error {
	if !t.o.UseExistingTestFile && t.active && !t.o.DryRun && (t.o.FilePerProc || t.rank == 0) {
		path := t.fileName(t.rank, rep)
		if err := t.be.Access(path); err == nil {
			if t.o.Verbose > 0 {
				t.env.Warn(fmt.Sprintf("WARNING: The file %q exists already and will be deleted", path))
			}
			if err := t.be.Remove(path); err != nil {
				return fmt.Errorf("remove the old %s: %w", path, err)
			}
		}
	}
	if t.o.UniqueDir && t.o.FilePerProc && t.active && !t.o.DryRun {
		if err := t.makeUniqueDir(); err != nil {
			return err
		}
	}
	if err := t.delay(ctx); err != nil {
		return err
	}
	return nil
}

// makeUniqueDir creates this rank's directory for -u.
func (t *tester) makeUniqueDir() error {
	md, ok := t.be.(aiori.Metadata)
	if !ok {
		return fmt.Errorf("-u: backend %s cannot create directories", t.o.API)
	}
	dir := dirOf(t.fileName(t.rank, 0))
	if err := md.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("-u: %w", err)
	}
	return nil
}

// check is the untimed -W pass: read back and verify what was written.
func (t *tester) check(ctx context.Context, acc access, rep int) (int64, error) {
	if err := t.barrier(ctx); err != nil {
		return 0, err
	}
	var bad int64
	if (t.active || t.collectiveOn()) && !t.o.DryRun {
		var err error
		if bad, _, err = t.transferFile(ctx, acc, rep, math.Inf(1)); err != nil {
			return 0, err
		}
	}
	total, err := t.sumInt64(ctx, bad)
	if err != nil {
		return 0, err
	}
	if total > 0 && t.rank == 0 {
		t.env.Warn(fmt.Sprintf("WARNING: Incorrect data on write (%d errors found).", total))
	}
	return total, nil
}

// barrier is the job barrier, with the error worded.
func (t *tester) barrier(ctx context.Context) error {
	if err := t.c.Barrier(ctx); err != nil {
		return fmt.Errorf("barrier: %w", err)
	}
	return nil
}

// sumInt64 returns the sum of v over the job.
func (t *tester) sumInt64(ctx context.Context, v int64) (int64, error) {
	var s, r [8]byte
	binary.LittleEndian.PutUint64(s[:], uint64(v))
	if err := t.c.Allreduce(ctx, s[:], r[:], collectives.Int64, collectives.Sum); err != nil {
		return 0, fmt.Errorf("allreduce: %w", err)
	}
	return int64(binary.LittleEndian.Uint64(r[:])), nil
}
