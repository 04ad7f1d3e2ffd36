package io500

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// prepare makes the results dir (in the operating system's namespace, as
// IO500's) and keeps the configuration there as IO500 does:
// config-orig.ini as read, config.ini with every value.
func (b *Benchmark) prepare(p *Plan) error {
	if err := os.MkdirAll(p.ResultDir, 0o755); err != nil {
		return fmt.Errorf("resultdir: %w", err)
	}
	if err := os.WriteFile(p.res("config-orig.ini"), []byte(b.Config.Data), 0o644); err != nil {
		return fmt.Errorf("resultdir: %w", err)
	}
	return pipeline.WriteFile(p.res("config.ini"), func(w io.Writer) error { return WriteList(w, b.Config, false) })
}

// agree makes every rank fail when rank 0's err is not nil (rank 0's
// step that the others wait for).
func agree(ctx context.Context, c Comm, err error) error {
	var flag [1]byte
	if err != nil {
		flag[0] = 1
	}
	if berr := c.Bcast(ctx, flag[:], 0); berr != nil {
		return fmt.Errorf("io500: broadcast: %w", berr)
	}
	if err != nil {
		return err
	}
	if flag[0] != 0 {
		return errors.New("io500: rank 0 failed (see its error)")
	}
	return nil
}

// touch creates (or truncates) path: the timestamp file find compares
// against.
func touch(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("timestampfile: %w", err)
	}
	return f.Close()
}

// timestamp shares the timestamp file's modification time.
func (b *Benchmark) timestamp(ctx context.Context, c Comm, p *Plan) (time.Time, error) {
	var buf [8]byte
	if c.Rank() == 0 {
		fi, err := os.Stat(p.res("timestampfile"))
		if err != nil {
			return time.Time{}, fmt.Errorf("timestampfile: %w", err)
		}
		putInt64(buf[:], fi.ModTime().UnixNano())
	}
	if err := c.Bcast(ctx, buf[:], 0); err != nil {
		return time.Time{}, fmt.Errorf("broadcast: %w", err)
	}
	return time.Unix(0, getInt64(buf[:])), nil
}

// tool runs an ior or mdtest phase and records its figures on rank 0.
func (b *Benchmark) tool(ctx context.Context, e *pipeline.Env, p *Plan, ph *phase, r *PhaseResult) error {
	args := p.Argv(ph)[1:]
	var out io.Writer = io.Discard
	var f *os.File
	if e.Job.Comm.Rank() == 0 {
		var err error
		if f, err = os.Create(p.res(ph.Name + ".txt")); err != nil {
			return fmt.Errorf("resultdir: %w", err)
		}
		defer f.Close()
		out = f
	}
	run := b.IOR
	if ph.Tool == toolMdtest {
		run = b.Mdtest
	}
	res, err := run(ctx, e, args, out)
	if err != nil {
		return err
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return fmt.Errorf("resultdir: %w", err)
		}
	}
	if e.Job.Comm.Rank() != 0 {
		return nil
	}
	if ph.Tool == toolIOR {
		fg, err := iorResult(res, ph.Op)
		if err != nil {
			return err
		}
		if fg.Errors > 0 {
			r.invalid(invalidIORErrors(ph.Name, fg.Errors))
		}
		if ph.Write {
			if fg.Seconds < float64(p.Stonewall) {
				r.invalid(invalidWriteShort(ph.Name, fg.Seconds, p.Stonewall, nanZero(fg.Stonewall)))
			}
			if !math.IsNaN(fg.Stonewall) && fg.Stonewall > 0 {
				r.pair("throughput-stonewall", fmt.Sprintf("%.2f", fg.StoneBW*float64(e.Job.Comm.Size())/1024))
			}
		}
		r.Score = fg.BW / 1024
		return nil
	}
	rate, _, err := mdtestRate(res, ph.Op)
	if err != nil {
		return err
	}
	if sr, ok := mdtestStonewallRate(res, ph.Op); ok && ph.Write {
		r.pair("rate-stonewall", report.CFloat(sr/1000))
	}
	r.Score = rate / 1000
	return nil
}

// findOn runs the find on [find] nproc ranks (every rank when unset), the
// others waiting.
func (b *Benchmark) findOn(ctx context.Context, c *collectives.Comm, fsys FS, p *Plan, newer time.Time, r *PhaseResult) error {
	n := p.Config.Int("find", "nproc")
	if n <= 0 || n >= int64(c.Size()) {
		return b.find(ctx, c, fsys, p, newer, r)
	}
	sub, err := c.Sub(ctx, int(n))
	if err != nil {
		return fmt.Errorf("find: %d ranks: %w", n, err)
	}
	if sub == nil {
		return nil // left out: the phase's barrier waits for the others
	}
	defer sub.Close()
	return b.find(ctx, sub, fsys, p, newer, r)
}

// find runs the parallel find over the data dir.
func (b *Benchmark) find(ctx context.Context, c Comm, fsys FS, p *Plan, newer time.Time, r *PhaseResult) error {
	if c.Rank() == 0 {
		r.pair("nproc", fmt.Sprint(c.Size()))
	}
	fr, err := Find(ctx, c, FindQuery{Dir: cleanDir(p.DataDir), Newer: newer, Size: 3901, Substr: "01", FS: fsys, Clock: b.Clock})
	if err != nil {
		return err
	}
	if c.Rank() != 0 {
		return nil
	}
	if fr.Errors > 0 {
		r.pair("errors", fmt.Sprint(fr.Errors))
	}
	if fr.Found == 0 {
		r.invalid(invalidFindNothing())
	}
	r.pair("found", fmt.Sprint(fr.Found))
	r.pair("total-files", fmt.Sprint(fr.Total))
	r.Found, r.Total = fr.Found, fr.Total
	r.Score = fr.Rate()
	return nil
}

// check applies IO500's checks after a phase (main.c): a write or create
// phase shorter than the stonewall, or than the rules' minimum; a phase
// that scored 0.
func (b *Benchmark) check(p *Plan, r *PhaseResult) {
	if !b.DryRun {
		if r.phase.Write && r.Seconds < float64(p.Stonewall) {
			r.invalid(invalidBelowStonewall(r.phase.Name, r.Seconds, p.Stonewall))
		} else if r.Score == 0 && r.phase.Tool != toolTimestamp {
			r.invalid(invalidZeroScore(r.phase.Name))
		}
	}
	if r.phase.Write && r.Seconds < float64(p.MinWrite) {
		r.invalid(invalidMinRuntime(r.phase.Name, r.Seconds, p.MinWrite))
	}
}

// nanZero is v, or 0 for NaN (a figure IOR did not measure).
func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
