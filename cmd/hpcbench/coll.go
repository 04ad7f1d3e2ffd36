package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/shm"
	"github.com/hpcbench/hpcbench/fabric/tcp"
	"github.com/hpcbench/hpcbench/fabric/verbs"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/imb"
	"github.com/hpcbench/hpcbench/internal/job"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// parseColl parses coll's command line (IMB's single-dash options too),
// --phase-timeout into pt.
func parseColl(args []string, stdout io.Writer, pt *cliflag.PhaseTimeout) (imb.Args, error) {
	a := imb.NewArgs()
	norm, err := imb.NormalizeArgs(args)
	if err != nil {
		return a, usagef("coll: %s", oneLine(err.Error()))
	}
	fs := newFlagSet("coll")
	a.AddFlags(fs)
	cliflag.AddPhaseTimeout(fs, pt, false)
	if err := parseFlags(fs, norm, stdout, imb.Usage); err != nil {
		return a, err
	}
	if err := a.Finish(fs.Args()); err != nil {
		return a, usagef("coll: %s", oneLine(err.Error()))
	}
	if a.Options.Fabric == "" {
		a.Options.Fabric = job.FabricAuto
	}
	return a, nil
}

// transports is the registry of fabric transports this build offers,
// preferred first: shared memory between ranks of one host, then RDMA
// verbs when the build has them and the host an RDMA device, then TCP
// anywhere.
func transports() (fabric.Registry, error) {
	s, err := shm.New(shm.DefaultOptions())
	if err != nil {
		return nil, err
	}
	t, err := tcp.New(tcp.Options{})
	if err != nil {
		return nil, err
	}
	reg := fabric.Registry{s}
	if devs, err := verbs.Devices(); err == nil && len(devs) > 0 {
		v, err := verbs.New(verbs.DefaultOptions())
		if err != nil {
			return nil, err
		}
		reg = append(reg, v)
	}
	return append(reg, t), nil
}

// checkFabric refuses a --fabric (flag) that names a transport the
// registry lacks, saying why when it is verbs (the build, the host).
func checkFabric(flag, name string, reg fabric.Registry) error {
	if name == job.FabricAuto {
		return nil
	}
	if _, err := reg.Lookup(name); err == nil {
		return nil
	}
	if name == verbs.Name {
		if _, err := verbs.Devices(); err != nil {
			return fmt.Errorf("%s verbs: %w", flag, err)
		}
	}
	return fmt.Errorf("%s %q: want auto or one of %s", flag, name, strings.Join(reg.Names(), ", "))
}

func runColl(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	var pt cliflag.PhaseTimeout
	a, err := parseColl(args, stdout, &pt)
	if err != nil {
		if errors.Is(err, errHelp) || errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return err
	}
	// A rank is one thread of computation, as an MPI rank is: with one P,
	// the goroutine a Sendrecv hands its send to runs on this thread as
	// soon as the receive's busy-wait yields to it (the transports call
	// runtime.Gosched when GOMAXPROCS is 1), instead of after an idle
	// thread's wake-up (2 ranks on shm, 64 KiB Sendrecv: 60 -> 4 µs).
	// GOMAXPROCS in the environment still decides.
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(1)
	}
	o := a.Options
	algs, err := collectives.ParseAlgorithms(o.Alg)
	if err != nil {
		return usagef("coll: --alg: %v", err)
	}
	reg, err := transports()
	if err != nil {
		return fmt.Errorf("coll: %w", err)
	}
	if err := checkFabric("--fabric", o.Fabric, reg); err != nil {
		return usagef("coll: %v", err)
	}
	jo := job.Options{Fabric: o.Fabric, Transports: reg, Coll: collectives.Options{Algorithms: algs}}
	if err := stallJob("coll", &jo, &pt, false); err != nil {
		return err
	}
	if err := jo.Validate(); err != nil {
		return usagef("coll: %v", err)
	}
	if err := o.Validate(); err != nil {
		return usagef("coll: %v", err)
	}
	return pipeline.Main(ctx, pipeline.Spec{
		Name: "coll", Args: args, Job: jo, Soft: imb.ErrCheck, Usage: isUsage, Stdout: stdout, Stderr: stderr,
		Archive: a.Archive, ArchiveFlag: "--archive", Outputs: optionalOutput("--output", a.Output),
		Engine: func(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
			j, rec := e.Job, &e.Record
			if err := o.ValidateSize(j.Comm.Size()); err != nil {
				return nil, usagef("coll: %v", err) // exit 2, said by rank 0
			}
			np := j.Comm.Size()
			host, ok, err := hostMemory(ctx, e)
			if err != nil {
				return nil, fmt.Errorf("coll: %w", err)
			}
			if ok {
				if err := checkHostMemory("coll", rec, j.PMI.Rank(), host, func(ranks int, host hostmem.HostMemory) error {
					return o.CheckMemory(np, ranks, host)
				}); err != nil {
					return nil, err
				}
			}
			extra := map[string]string{"pmi": rec.Run.Env["pmi"], "hosts": fmt.Sprint(rec.Run.Hosts)}
			o.Env = imb.Env{
				Run:       rec.BaseRun(),
				Transport: j.Transports(),
				CPUs:      rec.CPUs,
				HostRanks: rec.HostRanks,
				RankHosts: rec.RankHosts,
				Extra:     extra,
			}
			stall := newCollStall(j.Comm)
			o.Env.Phase = stall.phase(e.Phase)
			o.Group = func(ctx context.Context, n int) (imb.Comm, error) {
				sub, err := j.Comm.Sub(ctx, n)
				if sub == nil || err != nil {
					return nil, err // nil Comm: this rank waits
				}
				stall.group(sub)
				return sub, nil
			}
			res, err := imb.Run(ctx, j.Comm, o)
			if errors.Is(err, imb.ErrCheck) {
				err = fmt.Errorf("coll: %w", err)
			}
			return res, err
		},
		Render: func(res *report.Result) error {
			if a.Output != "" {
				f := report.FormatJSON
				if strings.HasSuffix(a.Output, ".csv") {
					f = report.FormatCSV
				}
				if err := writeFileAtomic(a.Output, func(w io.Writer) error { return report.Write(w, res, f) }); err != nil {
					return err
				}
			}
			if a.Format == report.FormatText {
				return report.WriteIMB(stdout, res) // it says what was not run
			}
			for _, p := range res.Params {
				if p.Name == report.IMBSkippedParam {
					fmt.Fprintf(stderr, "hpcbench: coll: %s\n", oneLine(p.Value))
				}
			}
			return report.Write(stdout, res, a.Format)
		},
	})
}
