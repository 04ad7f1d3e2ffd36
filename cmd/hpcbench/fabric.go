package main

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/hpcbench/hpcbench/internal/fabtest"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/internal/transport"
)

const fabricUsage = "hpcbench fabric pingpong|bw|rma_bw|rma_pingpong|allpairs|info [-p tcp|shm|verbs|ucx] [-d DEVICE] [-S SIZE[,SIZE...]|all] [--max-size SIZE] [-I ITERS] [-W WINDOW] [-w WARMUP] [-D SECONDS [--report-interval D]] [-c] [-B PORT] [-P PORT] [--timeout D] [--accept-timeout D] [--format human|json|csv] [--output FILE] [--archive FILE] [HOST]"

func runFabric(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		return usagef("fabric: want a test: %s, allpairs or info (hpcbench fabric --help)", strings.Join(fabtest.Tests(), ", "))
	}
	sub := args[0]
	switch {
	case isHelp(sub):
		writeHelp(stdout, "fabric", fabricUsage, "Options:\n"+fabricOptionsHelp())
		return nil
	case sub == "info":
		return runFabricInfo(ctx, stdout, args[1:])
	case sub == "allpairs":
		return runAllpairs(ctx, stdout, stderr, args[1:])
	}
	fa, err := parseFabric(sub, args[1:], stdout)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	// One thread of computation per end, as coll's ranks (see runColl):
	// a transport's busy-wait then hands the CPU to the goroutine it
	// waits for at once. GOMAXPROCS in the environment still decides.
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(1)
	}
	b := fa.benchmark(args, stdout)
	if err := b.Open(); err != nil {
		return usagef("fabric: %v", err)
	}
	return pipeline.Main(ctx, b, pipeline.IO{Stdout: stdout, Stderr: stderr})
}

// benchmark is the test fa's command line asks for.
func (fa *fabricArgs) benchmark(args []string, stdout io.Writer) *fabtest.Benchmark {
	src := fa.srcPort
	if fa.host != "" {
		src = fa.clientSrcPort
	}
	return &fabtest.Benchmark{
		Options:   fa.opts,
		Transport: transport.Options{Provider: fa.provider, Device: fa.device, GID: fa.gid, Event: fa.eventMode, Inline: fa.inline, Endpoint: fa.endpoint},
		Host:      fa.host, SrcPort: src, DstPort: fa.dstPort, Timeout: fa.timeout, AcceptTimeout: fa.acceptTimeout,
		PlanFlags: fa.planFlags, Format: fa.format, Output: fa.output, Archive: fa.archive, Args: args, Stdout: stdout,
	}
}
