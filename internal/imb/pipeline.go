package imb

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// Benchmark is hpcbench coll as the run pipeline runs it
// (pipeline.Engine): IMB's benchmarks over the job's communicator, and
// IMB's tables (or JSON, CSV) of their Result.
type Benchmark struct {
	// Args is the parsed command line (ParseArgs' NormalizeArgs, Finish);
	// its Options are validated.
	Args Args
	// Algorithms are --alg's, parsed.
	Algorithms map[string]string
	// CmdArgs is the command line, for the run record.
	CmdArgs []string
	// PhaseTimeout is --phase-timeout.
	PhaseTimeout cliflag.PhaseTimeout
	// Stdout gets the tables, Stderr the note of what was not run.
	Stdout, Stderr io.Writer
}

// Plan returns what coll needs: the transport --fabric names, the
// collectives' algorithms, the stall deadline of --phase-timeout, the job
// size's checks, and the buffers at the largest message size against the
// host's memory.
func (b *Benchmark) Plan() pipeline.Plan {
	o := &b.Args.Options
	return pipeline.Plan{
		Name: "coll", Args: b.CmdArgs, Fabric: o.Fabric, FabricFlag: "--fabric",
		Coll: collectives.Options{Algorithms: b.Algorithms}, PhaseTimeout: &b.PhaseTimeout,
		ForSize: func(np int) error {
			if err := o.ValidateSize(np); err != nil {
				return pipeline.Usagef("coll: %v", err) // exit 2, said by rank 0
			}
			return nil
		},
		Memory: o.CheckMemory,
		Soft:   ErrCheck, Archive: b.Args.Archive, ArchiveFlag: "--archive",
		Outputs: pipeline.OptionalOutput("--output", b.Args.Output),
	}
}

// Run runs the benchmarks on this rank.
func (b *Benchmark) Run(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
	j, rec := e.Job, &e.Record
	o := b.Args.Options
	extra := map[string]string{"pmi": rec.Run.Env["pmi"], "hosts": fmt.Sprint(rec.Run.Hosts)}
	if v, ok := rec.Run.Env["iface"]; ok {
		extra["iface"] = v
	}
	o.Env = Env{
		Run:       rec.BaseRun(),
		Transport: j.Transports(),
		CPUs:      rec.CPUs,
		HostRanks: rec.HostRanks,
		RankHosts: rec.RankHosts,
		Extra:     extra,
	}
	stall := newStall(j.Comm)
	o.Env.Phase = stall.phase(e.Phase)
	o.Group = func(ctx context.Context, n int) (Comm, error) {
		sub, err := j.Comm.Sub(ctx, n)
		if sub == nil || err != nil {
			return nil, err // nil Comm: this rank waits
		}
		stall.group(sub)
		return sub, nil
	}
	res, err := Run(ctx, j.Comm, o)
	if errors.Is(err, ErrCheck) {
		err = fmt.Errorf("coll: %w", err)
	}
	return res, err
}

// Render writes res: the --output file (CSV when its name ends in .csv,
// else JSON), and stdout's format; IMB's layout says what was not run,
// the others leave it to a line on stderr.
func (b *Benchmark) Render(res *report.Result) error {
	a := &b.Args
	if err := pipeline.WriteOutput(a.Output, res); err != nil {
		return err
	}
	if a.Format == report.FormatText {
		return report.WriteIMB(b.Stdout, res)
	}
	for _, p := range res.Params {
		if p.Name == report.IMBSkippedParam {
			fmt.Fprintf(b.Stderr, "hpcbench: coll: %v\n", cliflag.OneLineError{Err: errors.New(p.Value)})
		}
	}
	return report.Write(b.Stdout, res, a.Format)
}

var _ pipeline.Engine = (*Benchmark)(nil)
