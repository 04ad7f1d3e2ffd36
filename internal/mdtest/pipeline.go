package mdtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// Benchmark is hpcbench mdtest as the run pipeline runs it
// (pipeline.Engine): the phases for each task count of a -f/-l/-s sweep,
// and mdtest's SUMMARY tables, JSON and CSV of them.
type Benchmark struct {
	// Options are the command line's, validated (config.Parse).
	Options *config.Options
	// Args is the command line, for the run record.
	Args []string
	// PhaseTimeout is --phase-timeout.
	PhaseTimeout cliflag.PhaseTimeout
	// Stdout gets the tables.
	Stdout io.Writer

	// results are rank 0's, one per number of tasks of the sweep; the
	// first is the run's (its archive).
	results []*report.Result
}

// Plan returns what an mdtest run needs: every transport, the stall
// deadlines of phases of independent work, the checks that depend on the
// job's size, the buffers of -w and -e against the host's memory, and the
// files it writes.
func (b *Benchmark) Plan() pipeline.Plan {
	o := b.Options
	return pipeline.Plan{
		Name: "mdtest", Args: b.Args, PhaseTimeout: &b.PhaseTimeout, WorkPhases: true,
		ForSize: func(np int) error {
			// What depends on the job size (-l, --warningAsErrors) is
			// bad input too: exit 2 before anything is created.
			plan := *o
			if _, err := plan.Resolve(np); err != nil {
				return pipeline.Usagef("mdtest: %v", err)
			}
			return nil
		},
		Memory: o.CheckMemory,
		Soft:   ErrOps, Archive: o.Archive, ArchiveFlag: "--archive", Outputs: outputs(o),
		Backend: o.Backend.Name, BackendOptions: o.BackendOptions,
	}
}

// Run runs the sweep on this rank.
func (b *Benchmark) Run(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
	o, c := b.Options, e.Job.Comm
	if plan := *o; o.Archive != "" {
		if _, err := plan.Resolve(c.Size()); err == nil && plan.LastTasks > plan.FirstTasks {
			// One archive is one run: rather refuse than keep one task
			// count of the sweep and let report and compare miss the
			// others.
			return nil, pipeline.Usagef("mdtest: --archive: -f %d -l %d is a sweep of several task counts and an archive holds one run: archive one task count per run (-f N -l N)",
				plan.FirstTasks, plan.LastTasks)
		}
	}
	if rank0Works(o) && !b.PhaseTimeout.Given && c.Rank() != 0 {
		// Rank 0 alone does some phases' work while the others wait for
		// it, for a time their own phase says nothing about: every
		// rank's creates and removes with -c, the shared tree's creation
		// and removal without -u, the --run-cmd-*-phase commands. Those
		// ranks keep no default deadline (rank 0 keeps its own, and finds
		// a stopped rank at the barrier after its work; a stopped rank 0
		// is left to the launcher's watchdog, or --phase-timeout).
		co := c.Options()
		co.StallTimeout = 0
		if err := c.SetOptions(co); err != nil {
			return nil, fmt.Errorf("mdtest: %w", err)
		}
	}
	env := Env{Run: e.Record.BaseRun(), Machine: e.Record.Machine, Phase: e.Phase, RankHosts: e.Record.RankHosts}
	if c.Rank() == 0 {
		env.Warn = func(line string) { fmt.Fprintln(e.Stderr, line) }
	}
	rs, err := Sweep(ctx, c, o, env)
	var bad *BadInputError
	if errors.As(err, &bad) {
		// Found by the rank that has that -d: it says so.
		uerr := pipeline.Usagef("mdtest: %v", bad)
		if c.Rank() != 0 {
			return nil, &pipeline.OwnError{Err: uerr}
		}
		return nil, uerr
	}
	b.results = rs
	if len(rs) == 0 {
		return nil, err
	}
	return rs[0], err
}

// Render writes the sweep's Results: the stdout format, the --output
// file, the per-rank CSV. Files are written whole or not at all.
func (b *Benchmark) Render(*report.Result) error {
	o, rs := b.Options, b.results
	render := func(format string) func(io.Writer) error {
		return func(w io.Writer) error {
			switch format {
			case config.FormatJSON:
				return report.WriteMdtestSweepJSON(w, rs)
			case config.FormatCSV:
				return report.WriteMdtestSweepCSV(w, rs)
			}
			return report.WriteMdtestSweep(w, rs)
		}
	}
	if o.Output != "" {
		if err := pipeline.WriteFile(o.Output, render(o.Format)); err != nil {
			return fmt.Errorf("mdtest: --output: %w", err)
		}
	}
	if err := render(o.StdoutFormat())(b.Stdout); err != nil {
		return err
	}
	if path := o.SaveRankPerformanceDetails; path != "" {
		if err := pipeline.WriteFile(path, func(w io.Writer) error { return report.WriteMdtestSweepRankCSV(w, rs) }); err != nil {
			return fmt.Errorf("mdtest: --saveRankPerformanceDetails: %w", err)
		}
	}
	return nil
}

// outputs lists the files a run writes, for the pipeline to check before
// any work: --output, --saveRankPerformanceDetails, rank 0's first
// --savePerOpDataCSV file, and -x's status file when the run creates and
// the file is not under a test directory the run makes.
func outputs(o *config.Options) []pipeline.Output {
	var outs []pipeline.Output
	if o.Output != "" {
		outs = append(outs, pipeline.Output{Flag: "--output", Path: o.Output})
	}
	if o.SaveRankPerformanceDetails != "" {
		outs = append(outs, pipeline.Output{Flag: "--saveRankPerformanceDetails", Path: o.SaveRankPerformanceDetails})
	}
	if o.SavePerOpDataCSV != "" {
		outs = append(outs, pipeline.Output{Flag: "--savePerOpDataCSV", Path: o.SavePerOpDataCSV + "-0-00000.csv"})
	}
	if f := o.StonewallStatusFile; f != "" && o.Create && !underAny(f, o.Dirs) {
		outs = append(outs, pipeline.Output{Flag: "-x", Path: f})
	}
	return outs
}

// underAny reports whether path lies under one of dirs.
func underAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// rank0Works reports whether rank 0 alone works in some phase of o while
// the other ranks wait for it: -c, the shared tree without -u, the
// --run-cmd-*-phase commands.
func rank0Works(o *config.Options) bool {
	return o.Collective || !o.UniqueDir || o.RunCmdBeforePhase != "" || o.RunCmdAfterPhase != ""
}
