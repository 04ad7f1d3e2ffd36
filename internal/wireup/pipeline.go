package wireup

import (
	"context"
	"io"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// Benchmark is hpcbench wireup as the run pipeline runs it
// (pipeline.Engine). It measures the bootstrap itself: it connects to PMI
// on its own (Plan.NoJob), and the ranks send their host names to rank 0
// with their times.
type Benchmark struct {
	// Options are the command line's, validated.
	Options Options
	// Args is the command line, for the run record.
	Args []string
	// Format is stdout's format, Output the --output file ("" for
	// none), Archive the --archive file.
	Format          report.Format
	Output, Archive string
	// Stdout gets the table.
	Stdout io.Writer
}

// Plan returns what wireup needs: no job (it makes its own), and the
// files it writes.
func (b *Benchmark) Plan() pipeline.Plan {
	return pipeline.Plan{
		Name: "wireup", Args: b.Args, NoJob: true, Archive: b.Archive, ArchiveFlag: "--archive",
		Outputs: pipeline.OptionalOutput("--output", b.Output),
	}
}

// Run runs the bootstrap's phases on this rank.
func (b *Benchmark) Run(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
	o := b.Options
	o.Phase = e.Phase
	o.Host = e.Record.RankHosts[0]
	_, ip, err := fabric.Iface(nil)
	if err != nil {
		return nil, pipeline.Usagef("wireup: %v", err)
	}
	if ip != nil {
		o.Publish = ip.String()
	}
	said := false
	o.OnAbort = func(err error) {
		// This rank's own failure (another cannot see it): said now,
		// before the abort lets the launcher end the job.
		pipeline.SayBeforeAbort(ctx, e.Stderr, err) // Run's errors start "wireup: "
		said = true
	}
	start := time.Now()
	out, err := Run(ctx, o)
	if err != nil && said {
		return nil, &pipeline.SaidError{Err: err}
	}
	if err != nil || out.Rank != 0 {
		return nil, err
	}
	return Result(out, o, Meta{Run: e.Record.BaseRun(), Start: start, End: time.Now()}), nil
}

// Render writes res to the --output file and to stdout.
func (b *Benchmark) Render(res *report.Result) error {
	if err := pipeline.WriteOutput(b.Output, res); err != nil {
		return err
	}
	return report.Write(b.Stdout, res, b.Format)
}
