package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hpcbench/hpcbench/internal/job"
	"github.com/hpcbench/hpcbench/internal/mdtest"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
	"github.com/hpcbench/hpcbench/internal/version"
	"github.com/hpcbench/hpcbench/report"
)

// runMdtest is `hpcbench mdtest`: mdtest's command line, phases and
// SUMMARY tables, plus JSON and CSV summaries.
func runMdtest(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	reg, err := backends()
	if err != nil {
		return fmt.Errorf("mdtest: %w", err)
	}
	o, err := config.Parse(args, reg)
	if err != nil {
		if errors.Is(err, config.ErrHelp) {
			writeHelp(stdout, "mdtest", "hpcbench mdtest [-a API] [-n N | -I N -z DEPTH -b BRANCH] [-d DIR] [-F|-D] [-u] [-i N] [OPTION...]", config.Usage(reg))
			return nil
		}
		return usagef("mdtest: %v", err)
	}
	if err := mdtestUnsupported(o); err != nil {
		return usagef("mdtest: %v", err)
	}
	return benchJob(ctx, "mdtest", mdtest.ErrOps, func(j *job.Job, host string) (*report.Result, error) {
		if len(o.TaskCounts()) > 1 || (o.LastTasks != 0 && o.LastTasks != j.Comm.Size()) {
			return nil, usagef("mdtest: -f, -l, -s: sweeping rank counts is not supported yet; run the job at each size instead")
		}
		env := mdtest.Env{
			Command:   append([]string{"hpcbench", "mdtest"}, args...),
			Version:   version.String(),
			Machine:   machine(),
			Hostnames: []string{host},
			Hosts:     j.Hosts,
		}
		if j.PMI.Rank() == 0 {
			env.Warn = func(line string) { fmt.Fprintln(stderr, line) }
		}
		return mdtest.Run(ctx, j.Comm, o, env)
	}, func(res *report.Result) error { return writeMdtestReports(stdout, res, o) })
}

// mdtestUnsupported refuses, before any file is created, the mdtest
// options hpcbench parses but does not implement.
func mdtestUnsupported(o *config.Options) error {
	switch {
	case o.Collective:
		return fmt.Errorf("-c: collective creates are not supported yet")
	case o.SavePerOpDataCSV != "":
		return fmt.Errorf("--savePerOpDataCSV: per-operation CSV files are not supported yet")
	case o.PrintAllProcs:
		return fmt.Errorf("--print-all-procs: not supported yet; --saveRankPerformanceDetails=FILE has every rank's figures")
	}
	return nil
}

// writeMdtestReports renders res: the stdout format, the --output file,
// the per-rank CSV. Files are written whole or not at all.
func writeMdtestReports(stdout io.Writer, res *report.Result, o *config.Options) error {
	render := func(format string) func(io.Writer) error {
		return func(w io.Writer) error {
			switch format {
			case config.FormatJSON:
				return report.WriteMdtestJSON(w, res)
			case config.FormatCSV:
				return report.WriteMdtestCSV(w, res)
			}
			return report.WriteMdtest(w, res)
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
		if err := writeFileAtomic(path, func(w io.Writer) error { return report.WriteMdtestRankCSV(w, res) }); err != nil {
			return fmt.Errorf("mdtest: --saveRankPerformanceDetails: %w", err)
		}
	}
	return nil
}
