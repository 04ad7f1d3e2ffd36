package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/mdtest"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// runMdtest is `hpcbench mdtest`: mdtest's command line, phases (for each
// task count of a -f/-l/-s sweep) and SUMMARY tables, plus JSON and CSV
// summaries.
func runMdtest(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	reg, err := backends()
	if err != nil {
		return fmt.Errorf("mdtest: %w", err)
	}
	var pt cliflag.PhaseTimeout
	mdArgs, err := cliflag.SplitPhaseTimeout(args, &pt)
	if err != nil {
		return usagef("mdtest: %v", err)
	}
	o, err := config.Parse(mdArgs, reg)
	if err != nil {
		if errors.Is(err, config.ErrHelp) {
			writeHelp(stdout, "mdtest", "hpcbench mdtest [-a API] [-n N | -I N -z DEPTH -b BRANCH] [-d DIR] [-F|-D] [-u] [-i N] [OPTION...]",
				config.Usage(reg)+"\n"+cliflag.PhaseTimeoutHelp(true))
			return nil
		}
		return usagef("mdtest: %v", err)
	}
	jo, err := benchJob("mdtest")
	if err != nil {
		return err
	}
	if err := stallJob("mdtest", &jo, &pt, true); err != nil {
		return err
	}
	// Rank 0's Results, one per number of tasks of a -f/-l/-s sweep; the
	// first is the run's (its archive).
	var results []*report.Result
	return pipeline.Main(ctx, pipeline.Spec{
		Name: "mdtest", Args: args, Job: jo, Soft: mdtest.ErrOps, Usage: isUsage, Stdout: stdout, Stderr: stderr,
		Archive: o.Archive, ArchiveFlag: "--archive", Outputs: mdtestOutputs(o),
		Backend: o.Backend.Name, BackendOptions: o.BackendOptions,
		Engine: func(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
			// What depends on the job size (-l, --warningAsErrors) is bad
			// input too: exit 2 before anything is created.
			plan := *o
			if _, err := plan.Resolve(e.Job.Comm.Size()); err != nil {
				return nil, usagef("mdtest: %v", err)
			}
			host, ok, err := hostMemory(ctx, e)
			if err != nil {
				return nil, fmt.Errorf("mdtest: %w", err)
			}
			if ok {
				if err := checkHostMemory("mdtest", &e.Record, e.Job.PMI.Rank(), host, o.CheckMemory); err != nil {
					return nil, err
				}
			}
			if o.Archive != "" && plan.LastTasks > plan.FirstTasks {
				// One archive is one run: rather refuse than keep one
				// task count of the sweep and let report and compare
				// miss the others.
				return nil, usagef("mdtest: --archive: -f %d -l %d is a sweep of several task counts and an archive holds one run: archive one task count per run (-f N -l N)",
					plan.FirstTasks, plan.LastTasks)
			}
			if rank0Works(o) && !pt.Given && e.Job.PMI.Rank() != 0 {
				// Rank 0 alone does some phases' work while the others
				// wait for it, for a time their own phase says nothing
				// about: every rank's creates and removes with -c, the
				// shared tree's creation and removal without -u, the
				// --run-cmd-*-phase commands. Those ranks keep no default
				// deadline (rank 0 keeps its own, and finds a stopped
				// rank at the barrier after its work; a stopped rank 0 is
				// left to the launcher's watchdog, or --phase-timeout).
				co := e.Job.Comm.Options()
				co.StallTimeout = 0
				if err := e.Job.Comm.SetOptions(co); err != nil {
					return nil, fmt.Errorf("mdtest: %w", err)
				}
			}
			env := mdtest.Env{Run: e.Record.BaseRun(), Machine: e.Record.Machine, Phase: stallPhase(e.Job.Comm, e.Phase), RankHosts: e.Record.RankHosts}
			if e.Job.PMI.Rank() == 0 {
				env.Warn = func(line string) { fmt.Fprintln(e.Stderr, line) }
			}
			rs, err := mdtest.Sweep(ctx, e.Job.Comm, o, env)
			var bad *mdtest.BadInputError
			if errors.As(err, &bad) {
				// Found by the rank that has that -d: it says so.
				uerr := usagef("mdtest: %v", bad)
				if e.Job.PMI.Rank() != 0 {
					return nil, &pipeline.OwnError{Err: uerr}
				}
				return nil, uerr
			}
			results = rs
			if len(rs) == 0 {
				return nil, err
			}
			return rs[0], err
		},
		Render: func(*report.Result) error { return writeMdtestReports(stdout, results, o) },
	})
}

// writeMdtestReports renders rs, one Result per number of tasks: the
// stdout format, the --output file, the per-rank CSV. Files are written
// whole or not at all.
func writeMdtestReports(stdout io.Writer, rs []*report.Result, o *config.Options) error {
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
		if err := writeFileAtomic(o.Output, render(o.Format)); err != nil {
			return fmt.Errorf("mdtest: --output: %w", err)
		}
	}
	if err := render(o.StdoutFormat())(stdout); err != nil {
		return err
	}
	if path := o.SaveRankPerformanceDetails; path != "" {
		if err := writeFileAtomic(path, func(w io.Writer) error { return report.WriteMdtestSweepRankCSV(w, rs) }); err != nil {
			return fmt.Errorf("mdtest: --saveRankPerformanceDetails: %w", err)
		}
	}
	return nil
}

// mdtestOutputs lists the files a run writes, for the pipeline to check
// before any work: --output, --saveRankPerformanceDetails, rank 0's first
// --savePerOpDataCSV file, and -x's status file when the run creates and
// the file is not under a test directory the run makes.
func mdtestOutputs(o *config.Options) []pipeline.Output {
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
