package fabtest

import (
	"context"
	"fmt"
	"io"
	"strings"

	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// AllPairsBenchmark is hpcbench fabric allpairs as the run pipeline runs
// it (pipeline.Engine): every pair of hosts (or of ranks) of the job,
// measured in rounds.
type AllPairsBenchmark struct {
	// Options are the tests' sizes, counts and deadline.
	Options AllPairsOptions
	// Provider is -p: auto (the job's choice for each pair) or one
	// transport.
	Provider string
	// Ranks measures every pair of ranks, not only of hosts.
	Ranks bool
	// Format is stdout's format, Output the --output file, Archive the
	// --archive file.
	Format          report.Format
	Output, Archive string
	// Args is the command line after "fabric", for the run record.
	Args []string
	// Stdout gets the table.
	Stdout io.Writer
}

// Plan returns what allpairs needs: a job over the transport -p names.
func (b *AllPairsBenchmark) Plan() pipeline.Plan {
	return pipeline.Plan{
		Name: "fabric", Args: b.Args, Fabric: b.Provider, FabricFlag: "-p", Soft: ErrCheck,
		Archive: b.Archive, ArchiveFlag: "--archive", Outputs: pipeline.OptionalOutput("--output", b.Output),
	}
}

// Run measures the pairs; rank 0 returns the table.
func (b *AllPairsBenchmark) Run(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
	c := e.Job.Comm
	eps := Endpoints(e.Record.RankHosts, b.Ranks)
	if len(eps) < 2 && !b.Ranks {
		// One host: its ranks are the endpoints, as --ranks would have them,
		// rather than a refusal after the job has started.
		if eps = Endpoints(e.Record.RankHosts, true); len(eps) >= 2 && c.Rank() == 0 {
			fmt.Fprintf(e.Stderr, "hpcbench: fabric allpairs: note: the job has one host (%s): measuring every pair of its %d ranks, as --ranks does\n",
				strings.Join(e.Record.Run.Hostnames, ", "), len(eps))
		}
	}
	if len(eps) < 2 {
		return nil, pipeline.Usagef("fabric allpairs: the job has %d rank on %s: no pair to measure; run it with 2 ranks or more",
			len(eps), strings.Join(e.Record.Run.Hostnames, ", "))
	}
	o := b.Options
	o.OnRound = func(done, total int) { e.Phase("allpairs round", 0, int64(done), int64(total)) }
	pairs, err := AllPairs(ctx, c, eps, o)
	if err != nil || c.Rank() != 0 {
		return nil, err
	}
	res := AllPairsResult(o, eps, pairs)
	run := e.Record.BaseRun()
	run.Benchmark = res.Run.Benchmark
	run.Env[report.FabEnvTest] = "allpairs"
	run.Env[report.FabEnvRole] = RoleLaunched
	run.Env[report.FabEnvProv] = b.Provider
	res.Run = run
	return res, nil
}

// Render writes res: the --output file, and the table in stdout's format.
func (b *AllPairsBenchmark) Render(res *report.Result) error {
	return render(b.Stdout, res, b.Format, b.Output)
}

// Endpoints lists allpairs' endpoints: the first rank of every host, by
// the host's name, or with ranks every rank, as "rank N (host)".
func Endpoints(rankHosts []string, ranks bool) []Endpoint {
	var eps []Endpoint
	seen := map[string]bool{}
	for r, h := range rankHosts {
		switch {
		case ranks:
			eps = append(eps, Endpoint{Rank: r, Name: fmt.Sprintf("rank %d (%s)", r, h)})
		case !seen[h]:
			seen[h] = true
			eps = append(eps, Endpoint{Rank: r, Name: h})
		}
	}
	return eps
}
