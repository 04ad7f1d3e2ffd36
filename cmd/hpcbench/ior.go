package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/dfs"
	"github.com/hpcbench/hpcbench/aiori/dummy"
	"github.com/hpcbench/hpcbench/aiori/mmap"
	"github.com/hpcbench/hpcbench/aiori/posix"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/ior"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/internal/job"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// backends is the registry of I/O backends this build offers, the default
// first, as IOR's default is its first compiled-in backend.
func backends() (*aiori.Registry, error) {
	return aiori.NewRegistry(posix.Entry(), mmap.Entry(), dummy.Entry(), dfs.Entry())
}

// runIOR is `hpcbench ior`: IOR's command line, measurement and output.
func runIOR(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	reg, err := backends()
	if err != nil {
		return fmt.Errorf("ior: %w", err)
	}
	var pt cliflag.PhaseTimeout
	iorArgs, err := cliflag.SplitPhaseTimeout(args, &pt)
	if err != nil {
		return usagef("ior: %v", err)
	}
	cfg, err := config.Parse(iorArgs, reg)
	if err != nil {
		if errors.Is(err, config.ErrHelp) {
			writeHelp(stdout, "ior", "hpcbench ior [-a API] [-b SIZE] [-t SIZE] [-s N] [-F] [-w] [-r] [-W] [-R] [-o FILE] [OPTION...]",
				config.Usage(reg)+"\n"+cliflag.PhaseTimeoutHelp(true))
			return nil
		}
		return usagef("ior: %v", err)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "WARNING: "+w)
	}
	last := cfg.Tests[len(cfg.Tests)-1]
	// The human report goes to stdout as the run goes, as IOR prints it,
	// unless stdout gets IOR's JSON or CSV.
	streams := last.SummaryFile != "" || last.SummaryFormat == config.SummaryDefault
	var human *ior.Stream
	jo, err := benchJob("ior")
	if err != nil {
		return err
	}
	if err := stallJob("ior", &jo, &pt, true); err != nil {
		return err
	}
	return pipeline.Main(ctx, pipeline.Spec{
		Name: "ior", Args: args, Job: jo, Soft: ior.ErrVerify, Usage: isUsage, Stdout: stdout, Stderr: stderr,
		Archive: last.ArchiveFile, ArchiveFlag: "-O archiveFile", Outputs: iorOutputs(cfg.Tests),
		Backend: cfg.Tests[0].Backend.Name, BackendOptions: cfg.Tests[0].BackendOptions,
		Engine: func(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
			host, ok, err := hostMemory(ctx, e)
			if err != nil {
				return nil, fmt.Errorf("ior: %w", err)
			}
			for i := range cfg.Tests {
				if !ok {
					break
				}
				if err := checkHostMemory("ior", &e.Record, e.Job.PMI.Rank(), host, cfg.Tests[i].CheckMemory); err != nil {
					return nil, err
				}
			}
			if !pt.Given && idleInSomeTest(cfg.Tests, e.Job.Comm.Rank(), e.Job.Comm.Size()) {
				// -N below the job's size: this rank sits out a test's
				// phases at their barriers, for as long as the working
				// ranks take, which its own (empty) phase says nothing
				// about: it keeps no default deadline. The working ranks
				// keep theirs and find a stopped one among them.
				co := e.Job.Comm.Options()
				co.StallTimeout = 0
				if err := e.Job.Comm.SetOptions(co); err != nil {
					return nil, fmt.Errorf("ior: %w", err)
				}
			}
			env := ior.Env{
				Run:       e.Record.BaseRun(),
				Machine:   e.Record.Machine,
				Platform:  e.Record.Platform,
				HostRanks: e.Record.HostRanks,
				RankHosts: e.Record.RankHosts,
				Phase:     stallPhase(e.Job.Comm, e.Phase),
			}
			if e.Job.PMI.Rank() == 0 {
				env.Warn = func(line string) { fmt.Fprintln(e.Stderr, line) }
				if streams {
					human = ior.NewStream(e.Stdout)
					env.Progress = human.Update
				}
			}
			return ior.Run(ctx, e.Job.Comm, cfg.Tests, env)
		},
		Render: func(res *report.Result) error { return writeIORReports(stdout, human, res, &last) },
	})
}

// writeIORReports renders res: the human report on stdout, or IOR's
// summaryFormat there when no summaryFile is given; the summaryFile in its
// format; the per-rank CSV. Files are written whole or not at all.
func writeIORReports(stdout io.Writer, human *ior.Stream, res *report.Result, o *config.Options) error {
	format := func(w io.Writer) error {
		switch o.SummaryFormat {
		case config.SummaryJSON:
			return report.WriteIORJSON(w, res)
		case config.SummaryCSV:
			return report.WriteIORCSV(w, res)
		}
		return report.WriteIOR(w, res)
	}
	if o.SummaryFile != "" {
		if err := writeFileAtomic(o.SummaryFile, format); err != nil {
			return fmt.Errorf("ior: -O summaryFile: %w", err)
		}
	}
	if human != nil {
		if err := human.Finish(res); err != nil {
			return err
		}
	} else if err := format(stdout); err != nil {
		return err
	}
	if path := o.SaveRankPerformanceDetailsCSV; path != "" {
		if err := writeFileAtomic(path, func(w io.Writer) error { return report.WriteIORRankCSV(w, res) }); err != nil {
			return fmt.Errorf("ior: -O saveRankPerformanceDetailsCSV: %w", err)
		}
	}
	return nil
}

// iorOutputs lists the files a run of tests writes, for the pipeline to
// check before any work: the last test's summaryFile and per-rank CSV
// (the command writes those once, at the end), and each test's per-op CSV
// prefix (rank 0's first file) and, when it writes, its stonewalling
// status file.
func iorOutputs(tests []config.Options) []pipeline.Output {
	last := &tests[len(tests)-1]
	var outs []pipeline.Output
	add := func(flag, path string) {
		for _, o := range outs {
			if o.Path == path {
				return
			}
		}
		outs = append(outs, pipeline.Output{Flag: flag, Path: path})
	}
	if last.SummaryFile != "" {
		add("-O summaryFile", last.SummaryFile)
	}
	if last.SaveRankPerformanceDetailsCSV != "" {
		add("-O saveRankPerformanceDetailsCSV", last.SaveRankPerformanceDetailsCSV)
	}
	for i := range tests {
		t := &tests[i]
		if t.SavePerOpDataCSV != "" {
			add("-O savePerOpDataCSV", t.SavePerOpDataCSV+"-0-00000.csv")
		}
		if t.StoneWallingStatusFile != "" && t.WriteFile {
			add("-O stoneWallingStatusFile", t.StoneWallingStatusFile)
		}
	}
	return outs
}

// benchJob is the bootstrap of ior's and mdtest's ranks: every transport
// this build offers, the best for each peer.
func benchJob(name string) (job.Options, error) {
	trs, err := transports()
	if err != nil {
		return job.Options{}, fmt.Errorf("%s: %w", name, err)
	}
	return job.Options{Fabric: job.FabricAuto, Transports: trs}, nil
}

// isUsage reports whether err is a usage error (exit 2).
func isUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}

// idleInSomeTest reports whether rank, of a job of size ranks, takes no
// part in one of the tests (-N below the job's size).
func idleInSomeTest(tests []config.Options, rank, size int) bool {
	for _, t := range tests {
		if n := t.NumTasks; n > 0 && n < size && rank >= n {
			return true
		}
	}
	return false
}
