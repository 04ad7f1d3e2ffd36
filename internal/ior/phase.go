package ior

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/clock"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/pattern"
)

// access is what a pass over a file does.
type access int

const (
	accWrite      access = iota // the timed write
	accRead                     // the timed read, verified with -R
	accWriteCheck               // -W: the untimed read-back after a write
)

// String names the access as IOR's rows do.
func (a access) String() string {
	switch a {
	case accWrite:
		return "write"
	case accRead:
		return "read"
	}
	return "check"
}

// The six clock readings of a phase, IOR's timers.
const (
	openStart = iota
	openStop
	xferStart
	xferStop
	closeStart
	closeStop
	nStamps
)

// phaseFigures are one phase's figures after the reduction (rank 0).
type phaseFigures struct {
	access string // "write", "read", "remove"
	iter   int
	// open, wrrd and close are each the latest stop minus the earliest
	// start of that part; total the latest close stop minus the earliest
	// open start.
	open, wrrd, close, total float64
	bytes                    int64   // moved by every rank together
	transfers                int64   // made by every rank together
	latency                  float64 // the smallest per-rank wr/rd time per transfer
	errors                   float64 // corrupt transfers found; NaN when not checked
	// stonewall is the longest time a rank spent before the -D deadline
	// stopped it, stoneBytes what all ranks moved by then; NaN without -D.
	stonewall  float64
	stoneBytes int64
	stoneMin   int64 // the fewest and most transfers a rank made by the deadline
	stoneMax   int64
	// rankTotal and rankXfer are each active rank's open-to-close and
	// transfer times.
	rankTotal, rankXfer []float64
	// dist holds the phase's distributions over the job (rank 0; nil for
	// the remove phase).
	dist *distribution.Job
}

// phase runs one timed write or read phase on every rank and returns the
// reduced figures (complete on rank 0).
func (t *tester) phase(ctx context.Context, acc access, rep int) (phaseFigures, error) {
	f := phaseFigures{access: acc.String(), iter: rep, errors: math.NaN(), stonewall: math.NaN()}
	var st [nStamps]float64
	var moved, count, bad int64
	var stone stoneState
	// The plan and the buffer's pattern come before the barrier, as IOR
	// fills its buffer before it: the timing starts at the open.
	var pl *plan
	var err error
	if t.active {
		if pl, err = t.plan(acc, rep); err != nil {
			return f, err
		}
		t.fill(acc, pl)
	}
	// The Phase hook is told outside the timers, before the barrier and
	// after the close, and in between once per --interval through the
	// recorder (OnInterval): nothing per transfer.
	var total int64
	if pl != nil {
		total = pl.count * t.o.TransferSize
	}
	t.env.Phase(f.access, rep, 0, total)
	if err := clock.StartBarrier(ctx, t.barrier, t.env.wall && t.env.Ticks == nil); err != nil {
		return f, err
	}
	var file aiori.File
	if t.active {
		st[openStart] = t.env.Clock()
		file, err = t.open(acc, pl.path)
		st[openStop] = t.env.Clock()
		if err != nil {
			return f, err
		}
	}
	if err := t.intraBarrier(ctx); err != nil {
		return f, err
	}
	if t.active {
		st[xferStart] = t.env.Clock()
	}
	t.startDist(st[xferStart])
	t.rec.OnInterval(func(done float64) { t.env.Phase(f.access, rep, int64(done), total) })
	defer t.rec.OnInterval(nil)
	if err := t.prefill(ctx, acc, file, pl); err != nil {
		return f, err
	}
	if t.collectiveOn() {
		var d collDecision
		count, bad, d, err = t.collectiveTransfers(ctx, file, acc, pl)
		t.recordColl(acc, rep, d)
	} else if t.active {
		deadline := math.Inf(1)
		if t.o.DeadlineForStonewalling > 0 {
			deadline = st[xferStart] + float64(t.o.DeadlineForStonewalling)
		}
		count, bad, err = t.transfers(file, acc, pl, 0, pl.count, deadline, t.o.UntilSteady.On())
		if err == nil && count < pl.count {
			stone.hit, stone.at = true, t.env.Clock()-st[xferStart]
		}
		stone.count = count
	}
	if err != nil {
		return f, err
	}
	if t.stonewalls() {
		if err := t.wearOut(ctx, acc, file, pl, &stone, &count, &bad); err != nil {
			return f, err
		}
		if acc == accWrite {
			t.stoneRead = stone.count
			if t.o.StoneWallingWearOut {
				t.stoneRead = t.stoneMax
			}
		}
	}
	if t.active {
		if acc == accWrite && t.o.Fsync && file != nil {
			if err := t.fsync(file); err != nil {
				return f, fmt.Errorf("fsync %s: %w", pl.path, err)
			}
		}
		st[xferStop] = t.env.Clock()
		moved = count * t.o.TransferSize
		t.rec.Done(t.since())
	} else {
		t.rec.Done(0)
	}
	if err := t.intraBarrier(ctx); err != nil {
		return f, err
	}
	if t.active {
		st[closeStart] = t.env.Clock()
		if file != nil {
			if err := file.Close(); err != nil {
				return f, fmt.Errorf("close %s: %w", pl.path, err)
			}
		}
		st[closeStop] = t.env.Clock()
	}
	t.env.Phase(f.access, rep, moved, total)
	if err := t.reduce(ctx, &f, st, moved, count, bad, stone); err != nil {
		return f, err
	}
	if f.dist, err = t.finishDist(ctx); err != nil {
		return f, err
	}
	if acc == accRead && t.o.CheckRead {
		if f.errors > 0 && t.rank == 0 {
			t.env.Warn(fmt.Sprintf("WARNING: Incorrect data on read (%d errors found).", int64(f.errors)))
		}
	} else {
		f.errors = math.NaN()
	}
	if t.rank == 0 {
		t.checkSize(&f, acc, rep)
		if !math.IsNaN(f.stonewall) {
			t.env.Warn(fmt.Sprintf("stonewalling pairs accessed min: %d max: %d -- min data: %.1f GiB mean data: %.1f GiB time: %.1fs",
				f.stoneMin, f.stoneMax, float64(f.stoneMin*t.o.TransferSize*int64(t.numTasks))/(1<<30),
				float64(f.stoneBytes)/(1<<30), f.stonewall))
		}
		if n := f.dist.SteadyNote(phaseName(t.o.ID, f.access, rep)); n != "" {
			t.env.Warn(n)
		}
	}
	return f, nil
}

// fsync flushes file for -e and -Y. A backend that cannot fsync turns
// both off with IOR's warning ("fsync() not supported in selected
// backend"), once; under --warningAsErrors that is the error.
func (t *tester) fsync(file aiori.File) error {
	err := file.Fsync()
	if !errors.Is(err, aiori.ErrNotSupported) {
		return err
	}
	t.o.FsyncPerWrite = false
	w := t.o.DisableFsync()
	if t.o.WarningAsErrors {
		return fmt.Errorf("-e/-Y: %w (--warningAsErrors)", err)
	}
	if t.rank == 0 && w != "" {
		t.env.Warn("WARNING: " + w)
	}
	return nil
}

// intraBarrier is -g's barrier between open, transfers and close.
func (t *tester) intraBarrier(ctx context.Context) error {
	if !t.o.IntraTestBarriers {
		return nil
	}
	return t.barrier(ctx)
}

// open creates (write) or opens (read, check) path; nil under --dryRun.
func (t *tester) open(acc access, path string) (aiori.File, error) {
	if t.o.DryRun {
		return nil, nil
	}
	if acc == accWrite {
		flags := aiori.WriteOnly | aiori.Create
		if t.o.Collective {
			// An aggregator reads a round with holes before writing
			// it, as ROMIO opens a write-only file read-write for it.
			flags = aiori.ReadWrite | aiori.Create
		}
		f, err := t.be.Create(path, flags)
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
		return t.timeOps(f)
	}
	f, err := t.be.Open(path, aiori.ReadOnly)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return t.timeOps(f)
}

// fill writes the whole data pattern into the transfer buffer before a
// write phase's barrier, as IOR does; the timed loop then only stamps
// what changes from transfer to transfer (see pattern.Type.PerTransfer).
func (t *tester) fill(acc access, pl *plan) {
	if acc == accWrite && pl.count > 0 {
		pattern.Fill(t.buf, t.ptype, pl.pretend, t.sig, pl.offset(0))
	}
}

// stonewalls reports whether a phase may end before its last transfer:
// at the -D deadline, or once --until-steady's test passed. Such a phase
// ends as IOR's stonewalled phases do: the job agrees on the transfer
// counts (wearOut), a later read reads what every rank wrote, and the
// summary has the stonewall figures.
func (t *tester) stonewalls() bool {
	return t.o.DeadlineForStonewalling > 0 || t.o.UntilSteady.On()
}

// transfers moves transfers [from, to) of pl through file and returns how
// many it made and how many of them were corrupt. It stops early once the
// clock passes deadline, or, when steady is true, once the recorder says
// the phase is steady. It records every transfer's bytes in t.rec, and
// the latency of the transfers it times: all of them under -D (from the
// end of the one before, or the call, or the -O interIODelay sleep, to
// its own end: the deadline's reading serves both), else those the
// recorder's sampling picks, from their own start to their end. This is
// the timed loop: it reads the clock at most once per transfer under -D
// and twice per timed transfer otherwise, allocates nothing, formats
// nothing and takes no lock.
func (t *tester) transfers(file aiori.File, acc access, pl *plan, from, to int64, deadline float64, steady bool) (n, bad int64, err error) {
	o := t.o
	buf := t.buf
	write := acc == accWrite
	verify := acc == accWriteCheck || (acc == accRead && o.CheckRead)
	stamp := write && t.ptype.PerTransfer()
	stone := !math.IsInf(deadline, 1)
	// On the wall clock, the deadline is tested on the loop's own
	// monotonic reading, in nanoseconds since the phase's start; on a
	// test's clock, on Env.Clock.
	mono := stone && t.env.wall && t.env.Ticks == nil
	var monoDeadline int64
	if mono {
		monoDeadline = int64((deadline - t.clock0) * 1e9)
	}
	minEnd := math.Inf(-1)
	if o.MinTimeDuration > 0 {
		minEnd = t.env.Clock() + float64(o.MinTimeDuration)
	}
	delay := time.Duration(o.InterIODelay) * time.Microsecond
	rec, amount := t.rec, float64(o.TransferSize)
	// Every transfer is timed when the deadline needs a reading per
	// transfer anyway, or on a test's clock; otherwise the recorder
	// samples (distribution.Recorder.Due): one transfer in k, timed from its own
	// start, so that short transfers do not pay a clock read each.
	timeAll := mono || t.env.Ticks != nil
	cur := pl.cursor(from)
	prev := t.since()
	var start int64
	for i := from; i < to; i++ {
		due := timeAll || rec.Due()
		if due && !timeAll {
			start = t.since()
		}
		off := cur.next()
		if file != nil {
			if write {
				if stamp {
					pattern.Stamp(buf, t.ptype, pl.pretend, t.sig, off)
				}
				if _, err := file.WriteAt(buf, off); err != nil {
					return n, bad, fmt.Errorf("write %s at offset %d: %w", pl.path, off, err)
				}
				if o.FsyncPerWrite {
					if err := t.fsync(file); err != nil {
						return n, bad, fmt.Errorf("fsync %s: %w", pl.path, err)
					}
				}
			} else {
				if verify {
					pattern.Poison(buf)
				}
				got, err := file.ReadAt(buf, off)
				if err != nil && !(errors.Is(err, io.EOF) && got == len(buf)) {
					return n, bad, fmt.Errorf("read %s at offset %d: %w", pl.path, off, err)
				}
				if verify {
					if b, _ := pattern.Verify(buf, t.ptype, pl.pretend, t.sig, off); b > 0 {
						bad++
					}
				}
			}
		}
		n++
		if due {
			now := t.since()
			if !timeAll {
				prev = start
			}
			if rec.Op(prev, now, amount) && steady {
				return n, bad, nil
			}
			prev = now
		} else if rec.Skip(amount) && steady {
			return n, bad, nil
		}
		if delay > 0 {
			time.Sleep(delay)
			if timeAll {
				prev = t.since()
			}
		}
		if stone && (mono && prev >= monoDeadline || !mono && t.env.Clock() >= deadline) {
			return n, bad, nil
		}
		if i == to-1 && minEnd > t.env.Clock() {
			i = from - 1 // -O minTimeDuration: go round again
			cur = pl.cursor(from)
		}
	}
	return n, bad, nil
}

// stoneState is one rank's stonewalling outcome.
type stoneState struct {
	hit   bool    // the deadline stopped this rank
	at    float64 // when, in seconds after the transfers started
	count int64   // transfers made by then
}

// wearOut agrees on the transfer counts after a -D deadline and, with
// stoneWallingWearOut, lets every rank go on to the largest count, so that
// all ranks move the same data. Every rank calls it.
func (t *tester) wearOut(ctx context.Context, acc access, file aiori.File, pl *plan, s *stoneState, count, bad *int64) error {
	lo, hi := int64(math.MaxInt64), int64(0)
	if t.active {
		lo, hi = s.count, s.count
	}
	mn, mx, err := t.minMaxInt64(ctx, lo, hi)
	if err != nil {
		return err
	}
	s.count = mn // the job-wide minimum, for the summary
	if !t.o.StoneWallingWearOut || !t.active || *count >= mx {
		t.stoneMax = mx
		return nil
	}
	n, b, err := t.transfers(file, acc, pl, *count, min(mx, pl.count), math.Inf(1), false)
	*count += n
	*bad += b
	t.stoneMax = mx
	return err
}

// minMaxInt64 returns the smallest lo and the largest hi over the job.
func (t *tester) minMaxInt64(ctx context.Context, lo, hi int64) (int64, int64, error) {
	var s, r [16]byte
	binary.LittleEndian.PutUint64(s[0:], uint64(-lo))
	binary.LittleEndian.PutUint64(s[8:], uint64(hi))
	if err := t.c.Allreduce(ctx, s[:], r[:], collectives.Int64, collectives.Max); err != nil {
		return 0, 0, fmt.Errorf("allreduce: %w", err)
	}
	return -int64(binary.LittleEndian.Uint64(r[0:])), int64(binary.LittleEndian.Uint64(r[8:])), nil
}

// transferFile is an untimed pass over this rank's file (the -W check).
func (t *tester) transferFile(ctx context.Context, acc access, rep int, deadline float64) (bad, n int64, err error) {
	if t.collectiveOn() && !t.active {
		// An idle rank (-N) takes part in the collective calls only.
		n, bad, d, err := t.collectiveTransfers(ctx, nil, acc, nil)
		t.recordColl(acc, rep, d)
		return bad, n, err
	}
	pl, err := t.plan(acc, rep)
	if err != nil {
		return 0, 0, err
	}
	file, err := t.open(acc, pl.path)
	if err != nil {
		return 0, 0, err
	}
	if t.collectiveOn() {
		var d collDecision
		n, bad, d, err = t.collectiveTransfers(ctx, file, acc, pl)
		t.recordColl(acc, rep, d)
	} else {
		n, bad, err = t.transfers(file, acc, pl, 0, pl.count, deadline, false)
	}
	if file != nil {
		if cerr := file.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close %s: %w", pl.path, cerr)
		}
	}
	return bad, n, err
}

// remove deletes the files of repetition rep and times it, IOR's "remove"
// row (shown at -v).
func (t *tester) remove(ctx context.Context, rep int) (phaseFigures, error) {
	f := phaseFigures{access: "remove", iter: rep, errors: math.NaN(), stonewall: math.NaN()}
	if err := t.barrier(ctx); err != nil {
		return f, err
	}
	var st [nStamps]float64
	start := t.env.Clock()
	if t.active && !t.o.DryRun && (t.o.FilePerProc || t.rank == 0) {
		path := t.fileName(t.rank, rep)
		if err := t.be.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return f, fmt.Errorf("remove %s: %w", path, err)
		}
		// -u made this rank's directory; the last repetition removes it
		// (it is empty unless the user keeps other files there).
		if dir := t.naming().Dir(t.rank); dir != "" && rep == t.o.Repetitions-1 {
			if md, ok := t.be.(aiori.Metadata); ok {
				_ = md.Rmdir(dir)
			}
		}
	}
	end := t.env.Clock()
	for i := range st {
		st[i] = start
		if i%2 == 1 {
			st[i] = end
		}
	}
	if !t.active {
		st = idleStamps()
	}
	if err := t.reduce(ctx, &f, st, 0, 0, 0, stoneState{}); err != nil {
		return f, err
	}
	f.errors = math.NaN()
	return f, nil
}
