package io500

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// Tool runs one ior or mdtest command line (args without the program's
// name) on every rank of the job, in process, on e's communicator. On rank
// 0 the tool's own report goes to out and its Result is returned; a
// verification failure the tool found is counted in the Result, not
// returned as an error.
type Tool func(ctx context.Context, e *pipeline.Env, args []string, out io.Writer) (*report.Result, error)

// Benchmark is hpcbench io500 as the run pipeline runs it: IO500's
// standard phases, in its order, on the job's ranks, and IO500's output.
type Benchmark struct {
	// Config is the parsed INI file; Args the command line.
	Config *Config
	Args   []string
	// DryRun prints every phase's command line and runs nothing.
	DryRun bool
	// Cleanup runs only the delete phases (and the removal of what is
	// left), to clean up after a run that failed (--cleanup).
	Cleanup bool
	// IOR and Mdtest run a phase's command line (cmd/hpcbench binds them
	// to the ior and mdtest engines).
	IOR, Mdtest Tool
	// Namespace opens the data dir's namespace on every rank at once
	// (a backend's New is collective): where the run makes the phases'
	// directories, find walks, the end removes what is left. Nil is the
	// operating system's (api POSIX or MMAP).
	Namespace func(ctx context.Context, e *pipeline.Env) (FS, error)
	// Version is hpcbench's version, IO500's "version".
	Version string
	// Verbosity, when not nil, replaces [global] verbosity (-v,
	// --verbose=N; not part of the config-hash, as IO500's).
	Verbosity *int
	// Timestamp, when not empty, names the run's directories
	// (--timestamp) instead of the start's date; the -G seeds follow it,
	// as IO500's.
	Timestamp string
	// PhaseTimeout is --phase-timeout.
	PhaseTimeout cliflag.PhaseTimeout
	// Archive is --archive ("" for none).
	Archive string
	// Stdout gets the console lines on rank 0.
	Stdout io.Writer
	// Now and Clock replace time.Now and the monotonic seconds (tests).
	Now   func() time.Time
	Clock func() float64

	plan    *Plan
	outcome *Outcome
}

// Plan returns what an IO500 run needs: every transport, the stall
// deadlines of phases of independent work, the archive.
func (b *Benchmark) Plan() pipeline.Plan {
	return pipeline.Plan{
		Name: "io500", Args: b.Args, PhaseTimeout: &b.PhaseTimeout, WorkPhases: true,
		ForSize: func(np int) error {
			if n := b.Config.Int("find", "nproc"); n > int64(np) {
				return pipeline.Usagef("io500: [find] nproc %d: the job has %d ranks (1 to %d)", n, np, np)
			}
			return nil
		},
		Archive: b.Archive, ArchiveFlag: "--archive",
		Backend: strings.Fields(b.Config.Str("global", "api") + " POSIX")[0],
	}
}

func (b *Benchmark) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

func (b *Benchmark) clock() float64 {
	if b.Clock != nil {
		return b.Clock()
	}
	return float64(time.Since(processStart).Nanoseconds()) / 1e9
}

// processStart is the origin of the default clock (monotonic readings).
var processStart = time.Now()

// Run runs the phases on this rank.
func (b *Benchmark) Run(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
	c := e.Job.Comm
	rank0 := c.Rank() == 0
	if b.Config.Str("debug", "pause-dir") != "" && !b.PhaseTimeout.Given {
		// The other ranks wait for rank 0's pause, as long as the pause
		// file stays: no default deadline takes that for a stopped rank
		// (--phase-timeout still sets one).
		co := c.Options()
		co.StallTimeout = 0
		if err := c.SetOptions(co); err != nil {
			return nil, fmt.Errorf("io500: %w", err)
		}
	}
	r := &runState{b: b, e: e, c: c, rank0: rank0, out: io.Discard}
	if rank0 {
		r.out = b.Stdout
		if r.out == nil {
			r.out = e.Stdout
		}
	}
	if err := r.start(ctx); err != nil {
		return nil, err
	}
	for i := range standardPhases {
		if b.Cleanup && standardPhases[i].Op != "File removal" {
			continue
		}
		e.Phase(standardPhases[i].Name, 0, int64(i), int64(len(standardPhases)))
		if err := r.phase(ctx, standardPhases[i]); err != nil {
			return nil, fmt.Errorf("io500: %s: %w", standardPhases[i].Name, err)
		}
	}
	if err := r.end(ctx); err != nil {
		return nil, err
	}
	b.plan, b.outcome = r.p, r.o
	if !rank0 {
		return nil, nil
	}
	return b.result(e, r.o), nil
}

// runState is one rank's run: its plan, outcome so far, the timestamp
// file's time, where the console goes.
type runState struct {
	b     *Benchmark
	e     *pipeline.Env
	c     *collectives.Comm
	rank0 bool
	out   io.Writer // the console (rank 0's; io.Discard elsewhere)
	p     *Plan
	o     *Outcome
	newer time.Time // the timestamp file's modification time
}

// start settles the run's timestamp (rank 0's, as IO500's), writes the
// configuration to the results dir, makes the data dir's directories and
// says the run-level rules broken.
func (r *runState) start(ctx context.Context) error {
	b, c := r.b, r.c
	ts := make([]byte, 30)
	start := b.now()
	if r.rank0 {
		stamp := start.Format("2006.01.02-15.04.05")
		if b.Timestamp != "" {
			stamp = b.Timestamp
		}
		copy(ts, stamp)
	}
	if err := c.Bcast(ctx, ts, 0); err != nil {
		return fmt.Errorf("io500: broadcast: %w", err)
	}
	p := NewPlan(b.Config, string(bytes.TrimRight(ts, "\x00")))
	r.p = p
	verbosity := b.Config.Int("global", "verbosity")
	if b.Verbosity != nil {
		verbosity = int64(*b.Verbosity)
	}
	r.o = &Outcome{Procs: c.Size(), Version: b.Version, Verbosity: verbosity, ConfigHash: b.Config.Hash(), ResultDir: p.ResultDir, Start: start}
	var prepErr error
	if r.rank0 {
		prepErr = b.prepare(p)
	}
	if err := agree(ctx, c, prepErr); err != nil {
		return err
	}
	if !b.DryRun {
		err := b.withFS(ctx, r.e, func(fsys FS) error {
			var err error
			if r.rank0 {
				err = makeDataDirs(fsys, p)
			}
			return agree(ctx, c, err)
		})
		if err != nil {
			return err
		}
	}
	o := r.o
	if p.Stonewall != p.MinWrite {
		o.RunInvalid = append(o.RunInvalid, invalidStonewall(p.Stonewall, p.MinWrite))
	}
	if b.DryRun {
		o.RunInvalid = append(o.RunInvalid, invalidDryRun())
	}
	if p.Config.Str("debug", "pause-dir") != "" {
		o.RunInvalid = append(o.RunInvalid, invalidPause())
	}
	if p.Config.Int("mdtest-hard", "files-per-dir") > 0 {
		o.RunInvalid = append(o.RunInvalid, invalidFilesPerDir())
	}
	fmt.Fprint(r.out, report.IO500VersionLine(b.Version))
	for _, why := range o.RunInvalid {
		fmt.Fprintf(r.out, "ERROR INVALID %s\n  (%s)\n", why.IO500, why.Plain)
	}
	return nil
}

// phase runs one phase on every rank, between barriers, and records it:
// the caches dropped and the pause file waited for first when asked.
func (r *runState) phase(ctx context.Context, ph phase) error {
	b, c, p := r.b, r.c, r.p
	if ph.Tool != toolTimestamp && !b.DryRun && p.Config.Bool("global", "drop-caches") {
		dropCaches(ctx, p.Config.Str("global", "drop-caches-cmd"), r.e.Stderr)
	}
	if err := c.Barrier(ctx); err != nil {
		return fmt.Errorf("barrier: %w", err)
	}
	var pauseFile string
	var pauseAt time.Time
	if dir := p.Config.Str("debug", "pause-dir"); dir != "" {
		var err error
		pauseFile, pauseAt = dir+"/"+ph.Name, b.now()
		if r.rank0 {
			err = pause(ctx, pauseFile)
		}
		if err = agree(ctx, c, err); err != nil {
			return err
		}
	}
	res := PhaseResult{phase: ph, Exe: strings.Join(p.Argv(&ph), " "), Start: b.now(), PauseFile: pauseFile, PauseAt: pauseAt}
	if b.DryRun && res.Exe != "" {
		fmt.Fprintf(r.out, "[DRYRUN] %20s %s\n", ph.Name, res.Exe)
	}
	t0 := b.clock()
	var err error
	switch {
	case ph.Tool == toolTimestamp: // even in a dry run, as IO500
		if r.rank0 {
			err = touch(p.res("timestampfile"))
		}
		if err = agree(ctx, c, err); err == nil {
			r.newer, err = b.timestamp(ctx, c, p)
		}
	case b.DryRun || !p.Runs(&ph):
	case ph.Tool == toolFind:
		err = b.withFS(ctx, r.e, func(fsys FS) error { return b.findOn(ctx, c, fsys, p, r.newer, &res) })
	default:
		err = b.tool(ctx, r.e, p, &ph, &res)
	}
	if err != nil {
		return err
	}
	res.Seconds = b.clock() - t0
	res.End = b.now()
	if r.rank0 {
		b.check(p, &res)
		for _, why := range res.Invalid {
			fmt.Fprintf(r.out, "ERROR INVALID %s: %s\n", ph.Name, why.IO500)
		}
		line := res.report()
		fmt.Fprint(r.out, report.IO500ResultLine(&line))
	}
	r.o.Phases = append(r.o.Phases, res)
	return nil
}

// end computes the score, removes what the phases left and prints the
// verdict and the score on rank 0.
func (r *runState) end(ctx context.Context) error {
	b, c, p := r.b, r.c, r.p
	if err := c.Barrier(ctx); err != nil {
		return fmt.Errorf("io500: barrier: %w", err)
	}
	r.o.finish()
	if !b.DryRun {
		err := b.withFS(ctx, r.e, func(fsys FS) error {
			cleanupOwn(fsys, c.Rank(), p)
			if err := c.Barrier(ctx); err != nil {
				return err
			}
			if r.rank0 {
				cleanupShared(fsys, p)
			}
			return c.Barrier(ctx)
		})
		if err != nil {
			return fmt.Errorf("io500: cleanup: %w", err)
		}
	}
	r.o.End = b.now()
	if v := Verdict(r.o); v != "" {
		fmt.Fprint(r.out, "\n"+v)
	}
	fmt.Fprint(r.out, report.IO500ScoreLine(r.o.report()))
	fmt.Fprintf(r.out, "\nThe result files are stored in the directory: %s\n", p.ResultDir)
	return nil
}
