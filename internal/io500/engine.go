package io500

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
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
	out := io.Discard
	if rank0 {
		out = b.Stdout
		if out == nil {
			out = e.Stdout
		}
	}
	// The timestamp is rank 0's, as IO500's.
	ts := make([]byte, 30)
	start := b.now()
	if rank0 {
		stamp := start.Format("2006.01.02-15.04.05")
		if b.Timestamp != "" {
			stamp = b.Timestamp
		}
		copy(ts, stamp)
	}
	if err := c.Bcast(ctx, ts, 0); err != nil {
		return nil, fmt.Errorf("io500: broadcast: %w", err)
	}
	p := NewPlan(b.Config, string(bytes.TrimRight(ts, "\x00")))
	b.plan = p
	verbosity := b.Config.Int("global", "verbosity")
	if b.Verbosity != nil {
		verbosity = int64(*b.Verbosity)
	}
	o := &Outcome{Procs: c.Size(), Version: b.Version, Verbosity: verbosity, ConfigHash: b.Config.Hash(), ResultDir: p.ResultDir, Start: start}
	var prepErr error
	if rank0 {
		prepErr = b.prepare(p)
	}
	if err := agree(ctx, c, prepErr); err != nil {
		return nil, err
	}
	if !b.DryRun {
		err := b.withFS(ctx, e, func(fsys FS) error {
			var err error
			if rank0 {
				err = makeDataDirs(fsys, p)
			}
			return agree(ctx, c, err)
		})
		if err != nil {
			return nil, err
		}
	}
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
	fmt.Fprint(out, versionLine(b.Version))
	for _, r := range o.RunInvalid {
		fmt.Fprintf(out, "ERROR INVALID %s\n  (%s)\n", r.IO500, r.Plain)
	}
	var newer time.Time
	for i := range standardPhases {
		ph := standardPhases[i]
		e.Phase(ph.Name, 0, int64(i), int64(len(standardPhases)))
		if ph.Tool != toolTimestamp && !b.DryRun && p.Config.Bool("global", "drop-caches") {
			dropCaches(ctx, p.Config.Str("global", "drop-caches-cmd"), e.Stderr)
		}
		if err := c.Barrier(ctx); err != nil {
			return nil, fmt.Errorf("io500: %s: barrier: %w", ph.Name, err)
		}
		var pauseFile string
		var pauseAt time.Time
		if dir := p.Config.Str("debug", "pause-dir"); dir != "" {
			var err error
			pauseFile, pauseAt = dir+"/"+ph.Name, b.now()
			if rank0 {
				err = pause(ctx, pauseFile)
			}
			if err = agree(ctx, c, err); err != nil {
				return nil, fmt.Errorf("io500: %s: %w", ph.Name, err)
			}
		}
		r := PhaseResult{phase: ph, Exe: strings.Join(p.Argv(&ph), " "), Start: b.now(), PauseFile: pauseFile, PauseAt: pauseAt}
		t0 := b.clock()
		var err error
		if b.DryRun && rank0 && r.Exe != "" {
			fmt.Fprintf(out, "[DRYRUN] %20s %s\n", ph.Name, r.Exe)
		}
		switch {
		case ph.Tool == toolTimestamp: // even in a dry run, as IO500

			if rank0 {
				err = touch(p.res("timestampfile"))
			}
			if err = agree(ctx, c, err); err == nil {
				newer, err = b.timestamp(ctx, c, p)
			}
		case b.DryRun || !p.Runs(&ph):
		case ph.Tool == toolFind:
			err = b.withFS(ctx, e, func(fsys FS) error { return b.findOn(ctx, e.Job.Comm, fsys, p, newer, &r) })
		default:
			err = b.tool(ctx, e, p, &ph, &r)
		}
		if err != nil {
			return nil, fmt.Errorf("io500: %s: %w", ph.Name, err)
		}
		r.Seconds = b.clock() - t0
		r.End = b.now()
		if rank0 {
			b.check(p, &r)
			for _, why := range r.Invalid {
				fmt.Fprintf(out, "ERROR INVALID %s: %s\n", ph.Name, why.IO500)
			}
			fmt.Fprint(out, resultLine(&r))
		}
		o.Phases = append(o.Phases, r)
	}
	if err := c.Barrier(ctx); err != nil {
		return nil, fmt.Errorf("io500: barrier: %w", err)
	}
	o.finish()
	if !b.DryRun {
		err := b.withFS(ctx, e, func(fsys FS) error {
			cleanupOwn(fsys, c.Rank(), p)
			if err := c.Barrier(ctx); err != nil {
				return err
			}
			if rank0 {
				cleanupShared(fsys, p)
			}
			return c.Barrier(ctx)
		})
		if err != nil {
			return nil, fmt.Errorf("io500: cleanup: %w", err)
		}
	}
	if err := c.Barrier(ctx); err != nil {
		return nil, fmt.Errorf("io500: barrier: %w", err)
	}
	o.End = b.now()
	b.outcome = o
	if !rank0 {
		return nil, nil
	}
	if v := Verdict(o); v != "" {
		fmt.Fprint(out, "\n"+v)
	}
	fmt.Fprint(out, scoreLine(o))
	fmt.Fprintf(out, "\nThe result files are stored in the directory: %s\n", p.ResultDir)
	return b.result(e, o), nil
}

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
		r.pair("rate-stonewall", cfloat(sr/1000))
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

// withFS opens the data dir's namespace on every rank, runs fn and closes
// it.
func (b *Benchmark) withFS(ctx context.Context, e *pipeline.Env, fn func(FS) error) error {
	open := b.Namespace
	if open == nil {
		open = func(context.Context, *pipeline.Env) (FS, error) { return NewOSFS() }
	}
	fsys, err := open(ctx, e)
	if err != nil {
		return fmt.Errorf("io500: the data dir's namespace: %w", err)
	}
	err = fn(fsys)
	if cerr := fsys.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("io500: the data dir's namespace: %w", cerr)
	}
	return err
}

// makeDataDirs makes the data dir's phase directories, as IO500's phases
// do before the run.
func makeDataDirs(fsys FS, p *Plan) error {
	for _, d := range []string{"ior-easy", "ior-hard", "mdtest-easy", "mdtest-hard"} {
		if err := fsys.MkdirAll(p.DataDir + "/" + d); err != nil {
			return fmt.Errorf("datadir: %w", err)
		}
	}
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

// cleanupOwn removes this rank's ior-easy file, as IO500's cleanup: what
// is not there is no error.
func cleanupOwn(fsys FS, rank int, p *Plan) {
	if p.Config.Bool("ior-easy", "filePerProc") {
		_ = fsys.Remove(fmt.Sprintf("%s/ior-easy/ior_file_easy.%08d", p.DataDir, rank))
	}
}

// cleanupShared removes, on rank 0 once every rank removed its own files,
// the rest of what the phases left, as IO500: the stonewall files (results
// dir), the shared ior files, the phase directories and the data dir when
// empty (its namespace). What is not there is no error.
func cleanupShared(fsys FS, p *Plan) {
	for _, f := range []string{"ior-easy.stonewall", "ior-hard.stonewall", "mdtest-easy.stonewall", "mdtest-hard.stonewall"} {
		_ = os.Remove(p.res(f))
	}
	_ = fsys.Remove(p.DataDir + "/ior-easy/ior_file_easy")
	_ = fsys.Remove(p.DataDir + "/ior-hard/file")
	for _, d := range []string{"/ior-easy", "/ior-hard", "/mdtest-easy", "/mdtest-hard", ""} {
		_ = fsys.Remove(p.DataDir + d)
	}
}

func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// dropCacheTimeout bounds [global] drop-caches-cmd.
const dropCacheTimeout = 5 * time.Minute

// dropCaches runs [global] drop-caches-cmd through the shell on this rank,
// as IO500 does before each phase with drop-caches = TRUE; a failure is a
// warning on stderr, as IO500's.
func dropCaches(ctx context.Context, cmd string, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(ctx, dropCacheTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, "/bin/sh", "-c", cmd)
	c.Stdout, c.Stderr = stderr, stderr
	if err := c.Run(); err != nil {
		fmt.Fprintf(stderr, "WARNING: [global] drop-caches-cmd %q: %v\n", cmd, err)
	}
}

// pauseCheck is how often a pause file is looked for.
const pauseCheck = time.Second

// pause waits while the file path exists ([debug] pause-dir: a file named
// after the phase holds the run before it), or until ctx ends.
func pause(ctx context.Context, path string) error {
	for {
		if _, err := os.Stat(path); err != nil {
			return nil
		}
		t := time.NewTimer(pauseCheck)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}
