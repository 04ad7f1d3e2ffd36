package main

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric/ofi"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/imb"
	"github.com/hpcbench/hpcbench/internal/job"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/internal/transport"
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
	if err := o.Validate(); err != nil {
		return usagef("coll: %v", err)
	}
	if _, isOFI, _ := ofi.ParseProvider(o.Fabric); isOFI {
		if err := transport.CheckProvider(o.Fabric, ""); err != nil {
			return usagef("coll: --fabric %v", strings.TrimPrefix(err.Error(), "-p "))
		}
	}
	return pipeline.Main(ctx, &imb.Benchmark{Args: a, Algorithms: algs, CmdArgs: args, PhaseTimeout: pt, Stdout: stdout, Stderr: stderr},
		pipeline.IO{Stdout: stdout, Stderr: stderr})
}
