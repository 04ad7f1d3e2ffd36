package ior

import (
	"context"
	"fmt"
	"io"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// Benchmark is hpcbench ior as the run pipeline runs it
// (pipeline.Engine): the tests of one command line, run in turn, and
// IOR's views of their Result.
type Benchmark struct {
	// Tests are the command line's tests (several with -f), each
	// validated (config.Parse).
	Tests []config.Options
	// Args is the command line, for the run record.
	Args []string
	// PhaseTimeout is --phase-timeout.
	PhaseTimeout cliflag.PhaseTimeout
	// Stdout gets the report; Stderr the warnings.
	Stdout, Stderr io.Writer

	human *Stream // the report as the run goes, on rank 0
}

func (b *Benchmark) last() *config.Options { return &b.Tests[len(b.Tests)-1] }

// Plan returns what an IOR run needs: every transport, the stall
// deadlines of phases of independent work, each test's buffers checked
// against the host's memory, and the files it writes.
func (b *Benchmark) Plan() pipeline.Plan {
	return pipeline.Plan{
		Name: "ior", Args: b.Args, PhaseTimeout: &b.PhaseTimeout, WorkPhases: true,
		Memory: func(_, ranks int, host hostmem.HostMemory) error {
			for i := range b.Tests {
				if err := b.Tests[i].CheckMemory(ranks, host); err != nil {
					return err
				}
			}
			return nil
		},
		Soft: ErrVerify, Archive: b.last().ArchiveFile, ArchiveFlag: "-O archiveFile", Outputs: outputs(b.Tests),
		Backend: b.Tests[0].Backend.Name, BackendOptions: b.Tests[0].BackendOptions,
	}
}

// Run runs the tests on this rank.
func (b *Benchmark) Run(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
	c := e.Job.Comm
	if !b.PhaseTimeout.Given && idleInSomeTest(b.Tests, c.Rank(), c.Size()) {
		// -N below the job's size: this rank sits out a test's phases at
		// their barriers, for as long as the working ranks take, which
		// its own (empty) phase says nothing about: it keeps no default
		// deadline. The working ranks keep theirs and find a stopped one
		// among them.
		co := c.Options()
		co.StallTimeout = 0
		if err := c.SetOptions(co); err != nil {
			return nil, fmt.Errorf("ior: %w", err)
		}
	}
	env := Env{
		Run:       e.Record.BaseRun(),
		Machine:   e.Record.Machine,
		Platform:  e.Record.Platform,
		HostRanks: e.Record.HostRanks,
		RankHosts: e.Record.RankHosts,
		Phase:     e.Phase,
	}
	if c.Rank() == 0 {
		env.Warn = func(line string) { fmt.Fprintln(e.Stderr, line) }
		// The human report goes to stdout as the run goes, as IOR
		// prints it, unless stdout gets IOR's JSON or CSV.
		if last := b.last(); last.SummaryFile != "" || last.SummaryFormat == config.SummaryDefault {
			b.human = NewStream(e.Stdout)
			env.Progress = b.human.Update
		}
	}
	return Run(ctx, c, b.Tests, env)
}

// Render writes res: the human report on stdout, or IOR's summaryFormat
// there when no summaryFile is given; the summaryFile in its format; the
// per-rank CSV. Files are written whole or not at all.
func (b *Benchmark) Render(res *report.Result) error {
	o := b.last()
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
		if err := pipeline.WriteFile(o.SummaryFile, format); err != nil {
			return fmt.Errorf("ior: -O summaryFile: %w", err)
		}
	}
	if b.human != nil {
		if err := b.human.Finish(res); err != nil {
			return err
		}
	} else if err := format(b.Stdout); err != nil {
		return err
	}
	if path := o.SaveRankPerformanceDetailsCSV; path != "" {
		if err := pipeline.WriteFile(path, func(w io.Writer) error { return report.WriteIORRankCSV(w, res) }); err != nil {
			return fmt.Errorf("ior: -O saveRankPerformanceDetailsCSV: %w", err)
		}
	}
	return nil
}

// outputs lists the files a run of tests writes, for the pipeline to
// check before any work: the last test's summaryFile and per-rank CSV
// (the command writes those once, at the end), and each test's per-op CSV
// prefix (rank 0's first file) and, when it writes, its stonewalling
// status file.
func outputs(tests []config.Options) []pipeline.Output {
	last := &tests[len(tests)-1]
	var outs []pipeline.Output
	add := func(flag, path string) {
		for _, o := range outs {
			if o.Flag == flag && o.Path == path {
				return // one option, in several tests of a script
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
		if n := t.Backend.Name; !t.FilePerProc && (n == "POSIX" || n == "MMAP") {
			// The shared test file is on this file system: no output
			// may name it (-k would keep the data, and lose it to the
			// archive).
			outs = append(outs, pipeline.Output{Flag: "-o", Path: t.TestFile, Data: true})
		}
	}
	return outs
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
