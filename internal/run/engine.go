package run

import (
	"context"
	"fmt"
	"io"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/job"
	"github.com/hpcbench/hpcbench/internal/progress"
	"github.com/hpcbench/hpcbench/internal/transport"
	"github.com/hpcbench/hpcbench/report"
)

// Engine is a benchmark as the pipeline runs it: ior, mdtest, coll, every
// fabric test (allpairs included) and wireup implement it. A command binds
// its flags to an engine's options and hands the engine to Main, which
// does everything that is not the benchmark's own (see the package doc).
type Engine interface {
	// Plan says what the engine needs before it runs. Main calls it
	// once, before the job starts.
	Plan() Plan
	// Run runs the benchmark on this rank, reporting its phases through
	// e.Phase, and returns the job's Result on rank 0 (nil elsewhere).
	Run(ctx context.Context, e *Env) (*report.Result, error)
	// Render writes rank 0's views of res, the Result Run returned with
	// the run record applied: stdout and the report files. Main writes
	// the archive after it.
	Render(res *report.Result) error
}

// Plan is what an engine needs from the pipeline, and what the pipeline
// needs to know of it, before it runs.
type Plan struct {
	// Name is the subcommand ("ior"): the run record's Benchmark unless
	// the engine names its own, and the prefix of the pipeline's errors.
	Name string
	// Args is the command line after the subcommand's name.
	Args []string
	// NoJob: the engine bootstraps PMI itself (wireup measures that), and
	// gets no Job. The fields below about the job are then unused.
	NoJob bool
	// Fabric is the transport the ranks connect with: job.FabricAuto (or
	// "") for the best one for each peer, or the name of one of
	// Transports; FabricFlag is the option that named it, for errors
	// ("--fabric"). Transports, when not nil, replaces every transport
	// this build offers (transport.Registry): a fabric test's one.
	Fabric, FabricFlag string
	Transports         fabric.Registry
	// Coll configures the collectives (coll's --alg).
	Coll collectives.Options
	// PhaseTimeout is the watchdog's --phase-timeout, nil for none: the
	// stall deadline of the job's communicator, and how long a rank of
	// the host may stay stopped. WorkPhases is true for the benchmarks
	// whose barriers follow phases of independent work (ior, mdtest),
	// where the default deadline grows with the rank's own phase.
	PhaseTimeout *cliflag.PhaseTimeout
	WorkPhases   bool
	// ForSize checks what depends on the job's size, once it is known
	// and before the memory check: a usage error (exit 2, said once).
	ForSize func(np int) error
	// Memory checks the engine's buffers for one host: np ranks in the
	// job, ranks of them on this host, which can give them host. Nil
	// means no check. The pipeline gathers the hosts' memory and refuses
	// in one line, naming the host when the job has several.
	Memory func(np, ranks int, host hostmem.HostMemory) error
	// Soft is the engine's benchmark failure (verification, operations):
	// errors matching it still get the results written, and exit 1.
	Soft error
	// Archive is the --archive file ("" for none) and ArchiveFlag the
	// option that named it ("--archive", "-O archiveFile").
	Archive, ArchiveFlag string
	// Outputs are the other files rank 0 writes at the end, checked with
	// the archive before any work.
	Outputs []Output
	// Backend names the I/O backend and BackendOptions holds its
	// options, for the run record.
	Backend        string
	BackendOptions aiori.Options
}

// IO is where a run's output goes, and the environment it reads.
type IO struct {
	// Stdout gets the results, Stderr the pipeline's error line and, on
	// a terminal, rank 0's progress bar; nil means os.Stdout, os.Stderr.
	Stdout, Stderr io.Writer
	// Getenv replaces os.LookupEnv (tests).
	Getenv func(string) (string, bool)
	// Phase receives the engine's progress too; nil drops it.
	Phase Phase
}

// Main runs eng on this rank: the whole lifecycle (see the package doc).
// It returns nil, or an *ExitError, or a *UsageError found before the
// job (every rank has it: the caller prints it from the first rank only);
// any other error is a failure after the results were handled and exits
// 1.
func Main(ctx context.Context, eng Engine, o IO) error {
	p := eng.Plan()
	s := runSpec{
		Name: p.Name, Args: p.Args, NoJob: p.NoJob, Soft: p.Soft, Usage: IsUsage,
		Archive: p.Archive, ArchiveFlag: p.ArchiveFlag, Outputs: p.Outputs,
		Backend: p.Backend, BackendOptions: p.BackendOptions,
		Stdout: o.Stdout, Stderr: o.Stderr, Getenv: o.Getenv, Phase: o.Phase,
		Render: eng.Render,
	}
	prog, err := progress.FromEnv(orLookupEnv(o.Getenv))
	if err != nil {
		return Usagef("%s: %v", p.Name, err)
	}
	s.Progress = prog
	if !p.NoJob {
		jo, err := jobOptions(&p, o.Getenv)
		if err != nil {
			return err
		}
		s.Job = jo
	}
	s.Engine = func(ctx context.Context, e *Env) (*report.Result, error) {
		if e.Job == nil {
			return eng.Run(ctx, e)
		}
		c := e.Job.Comm
		if p.ForSize != nil {
			if err := p.ForSize(c.Size()); err != nil {
				return nil, err
			}
		}
		if p.Memory != nil {
			if err := checkMemory(ctx, p.Name, e, p.Memory); err != nil {
				return nil, err
			}
		}
		// A wait that stalls says which phase it was in, and the
		// deadline after a phase grows with it.
		next := e.Phase
		e.Phase = func(name string, iter int, done, total int64) {
			c.SetPhase(name, iter)
			next(name, iter, done, total)
		}
		return eng.Run(ctx, e)
	}
	err = mainSpec(ctx, s)
	closeTransports(s.Job.Transports)
	return err
}

// closeTransports closes the transports of a finished run that hold
// resources of the host beyond the process (fabric/ofi: libfabric's shm
// provider keeps a file in /dev/shm per endpoint until fi_close, which a Go
// exit never runs), once the job and its connections are closed.
func closeTransports(reg fabric.Registry) {
	for _, t := range reg {
		if c, ok := t.(io.Closer); ok {
			_ = c.Close()
		}
	}
}

// jobOptions is the bootstrap p asks for: its transports (every one this
// build offers unless p names its own), the one it chooses, the
// collectives' options and the stall deadlines of --phase-timeout. A name
// the build or host lacks, or a bad deadline in the environment, is a
// usage error.
func jobOptions(p *Plan, getenv func(string) (string, bool)) (job.Options, error) {
	reg := p.Transports
	if reg == nil {
		_, ip, err := fabric.Iface(getenv)
		if err != nil {
			return job.Options{}, Usagef("%s: %v", p.Name, err)
		}
		if reg, err = transport.Registry(ip, p.Fabric); err != nil {
			return job.Options{}, fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	jo := job.Options{Fabric: p.Fabric, Transports: reg, Coll: p.Coll}
	if jo.Fabric == "" {
		jo.Fabric = job.FabricAuto
	}
	if p.Transports == nil {
		if err := transport.Check(p.FabricFlag, jo.Fabric, reg); err != nil {
			return jo, Usagef("%s: %v", p.Name, err)
		}
	}
	if pt := p.PhaseTimeout; pt != nil {
		if err := pt.FromEnv(orLookupEnv(getenv)); err != nil {
			return jo, Usagef("%s: %v", p.Name, err)
		}
		jo.Coll.StallTimeout, jo.Coll.StallScale = pt.Stall(p.WorkPhases)
		jo.StopDeadline = pt.StopDeadline()
	}
	if err := jo.Validate(); err != nil {
		return jo, Usagef("%s: %v", p.Name, err)
	}
	return jo, nil
}
