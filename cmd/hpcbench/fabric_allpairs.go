package main

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/fabtest"
	"github.com/hpcbench/hpcbench/internal/job"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/internal/transport"
	"github.com/hpcbench/hpcbench/internal/units"
	"github.com/hpcbench/hpcbench/report"
)

const allpairsUsage = "hpcbench fabric allpairs [-p auto|tcp|shm] [--ranks] [--lat-size SIZE] [-I ITERS] [--bw-size SIZE] [--bw-iters N] [-W WINDOW] [-w WARMUP] [-c] [--timeout D] [--format human|json|csv] [--output FILE] [--archive FILE]"

// allpairsArgs is what fabric allpairs' command line asks for.
type allpairsArgs struct {
	o        fabtest.AllPairsOptions
	provider string
	ranks    bool
	format   report.Format
	output   string
	archive  string
}

// parseAllpairs parses fabric allpairs' flags.
func parseAllpairs(args []string, stdout io.Writer) (*allpairsArgs, error) {
	aa := &allpairsArgs{o: fabtest.AllPairsOptions{LatIters: 1000, BWIters: 256, Window: fabtest.DefaultWindow, Warmup: fabtest.DefaultWarmup}}
	fs := newFlagSet("fabric allpairs")
	var latSize, bwSize, slow string
	var formats cliflag.OneOf
	fs.StringVarP(&aa.provider, "provider", "p", job.FabricAuto, "the transport: auto (shm on one host, verbs or else tcp between hosts), tcp, shm, verbs or ucx")
	fs.BoolVar(&aa.ranks, "ranks", false, "measure every pair of ranks, not only of hosts (the first rank of each)")
	fs.StringVar(&latSize, "lat-size", "8", "the ping-pong's transfer size")
	fs.Int64VarP(&aa.o.LatIters, "iterations", "I", aa.o.LatIters, "the ping-pong's timed iterations per pair")
	fs.StringVar(&bwSize, "bw-size", "1m", "the bandwidth test's transfer size")
	fs.Int64Var(&aa.o.BWIters, "bw-iters", aa.o.BWIters, "the bandwidth test's timed messages per pair")
	fs.IntVarP(&aa.o.Window, "window", "W", aa.o.Window, "bandwidth test: messages per acknowledgement")
	fs.Int64VarP(&aa.o.Warmup, "warmup", "w", aa.o.Warmup, "untimed iterations before each test")
	fs.BoolVarP(&aa.o.Check, "check", "c", false, "check every received message's bytes")
	fs.DurationVar(&aa.o.Timeout, "timeout", fabricDefaultTimeout, "fail when a partner sends nothing for this long (0: no limit)")
	for name, accepted := range map[string]string{"iterations": "1 or more", "bw-iters": "1 or more", "window": "1 or more", "warmup": "0 or more"} {
		cliflag.SetRange(fs, name, accepted)
	}
	fs.StringVar(&slow, "test-slow-link", "", "for tests: delay every message between ranks A and B (A:B:DELAY)")
	_ = fs.MarkHidden("test-slow-link")
	addResultFlags(fs, &formats, &aa.format, &aa.output, &aa.archive, "human")
	if err := parseFlags(fs, args, stdout, allpairsUsage); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usagef("fabric allpairs: unexpected argument %q (allpairs runs under a launcher: hpcbench launch -n N -- hpcbench fabric allpairs)", fs.Arg(0))
	}
	if err := formats.Err(); err != nil {
		return nil, usagef("fabric allpairs: %v", err)
	}
	if aa.provider != job.FabricAuto {
		if err := transport.CheckProvider(aa.provider, ""); err != nil {
			return nil, usagef("fabric allpairs: %v", err)
		}
	}
	for _, s := range []struct {
		flag, v string
		dst     *int
	}{{"--lat-size", latSize, &aa.o.LatSize}, {"--bw-size", bwSize, &aa.o.BWSize}} {
		n, err := units.ParseSize(s.v)
		if err != nil || n < 0 || n > fabtest.MaxSize {
			return nil, usagef("fabric allpairs: %s %q: want a size of 0 to 1g", s.flag, s.v)
		}
		*s.dst = int(n)
	}
	if err := aa.o.Validate(); err != nil {
		return nil, usagef("fabric allpairs: %v", err)
	}
	if slow != "" {
		if aa.o.Slow, _ = parseSlowLink(slow); aa.o.Slow.Delay <= 0 {
			return nil, usagef("fabric allpairs: --test-slow-link %q: want A:B:DELAY (1:3:2ms)", slow)
		}
	}
	if err := fabtest.CheckMemory([]int{aa.o.LatSize, aa.o.BWSize}); err != nil {
		return nil, usagef("fabric allpairs: %v", err)
	}
	return aa, nil
}

// parseSlowLink reads A:B:DELAY.
func parseSlowLink(s string) (fabtest.Slowdown, error) {
	f := strings.Split(s, ":")
	if len(f) != 3 {
		return fabtest.Slowdown{}, errors.New("want A:B:DELAY")
	}
	a, err1 := strconv.Atoi(f[0])
	b, err2 := strconv.Atoi(f[1])
	d, err3 := time.ParseDuration(f[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return fabtest.Slowdown{}, err
	}
	return fabtest.Slowdown{A: a, B: b, Delay: d}, nil
}

// runAllpairs is hpcbench fabric allpairs.
func runAllpairs(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	aa, err := parseAllpairs(args, stdout)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(1) // see runFabric
	}
	return pipeline.Main(ctx, &fabtest.AllPairsBenchmark{Options: aa.o, Provider: aa.provider, Ranks: aa.ranks,
		Format: aa.format, Output: aa.output, Archive: aa.archive, Args: append([]string{"allpairs"}, args...), Stdout: stdout},
		pipeline.IO{Stdout: stdout, Stderr: stderr})
}
