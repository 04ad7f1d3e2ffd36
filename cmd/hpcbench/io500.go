package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/io500"
	"github.com/hpcbench/hpcbench/internal/ior"
	iorconfig "github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/internal/mdtest"
	mdconfig "github.com/hpcbench/hpcbench/internal/mdtest/config"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/internal/version"
	"github.com/hpcbench/hpcbench/report"
)

const io500Synopsis = "hpcbench io500 CONFIG.ini [--dry-run] [--archive FILE] | CONFIG.ini --verify result.txt | --list"

// runIO500 is `hpcbench io500`: IO500's INI file, phases, score and result
// files, the phases run by the ior and mdtest engines in this process.
func runIO500(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	reg, err := backends()
	if err != nil {
		return fmt.Errorf("io500: %w", err)
	}
	var pt cliflag.PhaseTimeout
	rest, err := cliflag.SplitPhaseTimeout(args, &pt)
	if err != nil {
		return usagef("io500: %v", err)
	}
	var file, archive, verify, timestamp string
	var dryRun, list, cfgHash, cleanup bool
	verbosity := -1 // -v and --verbose=N: [global] verbosity's override
	// IO500's own command line (not getopt's): its options as it spells
	// them, after the INI file or before it.
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-h" || a == "--help" || a == "-help":
			writeHelp(stdout, "io500", io500Synopsis, io500Options+"\n\n"+cliflag.PhaseTimeoutHelp(true))
			return nil
		case a == "--list" || a == "-l":
			list = true
		case a == "--dry-run":
			dryRun = true
		case a == "--verify" && i+1 < len(rest):
			i++
			verify = rest[i]
		case a == "--verify":
			return usagef("io500: --verify needs the result file (io500 CONFIG.ini --verify result.txt)")
		case a == "--archive" && i+1 < len(rest):
			i++
			archive = rest[i]
		case strings.HasPrefix(a, "--archive="):
			archive = strings.TrimPrefix(a, "--archive=")
		case a == "--cleanup":
			cleanup = true
		case a == "--config-hash":
			cfgHash = true
		case a == "-v":
			verbosity = max(verbosity, 0) + 1
		case strings.HasPrefix(a, "--verbose="):
			n, err := strconv.Atoi(strings.TrimPrefix(a, "--verbose="))
			if err != nil || n < 0 || n > 10 {
				return usagef("io500: %s: the verbosity is 0 to 10", a)
			}
			verbosity = n
		case strings.HasPrefix(a, "--timestamp="):
			timestamp = strings.TrimPrefix(a, "--timestamp=")
		case a == "--timestamp" && i+1 < len(rest):
			i++
			timestamp = rest[i]
		case a == "--mode=standard":
		case strings.HasPrefix(a, "--mode="):
			return usagef("io500: %s: only --mode=standard (the ranked list's phases) is supported", a)
		case strings.HasPrefix(a, "-"):
			return usagef("io500: unknown option %q (accepted: --dry-run, --list, --archive FILE, --verify FILE, --cleanup, --config-hash, --timestamp=NAME, -v, --verbose=N, --mode=standard, --phase-timeout)", a)
		case file == "":
			file = a
		default:
			return usagef("io500: one INI file is taken, got %q and %q", file, a)
		}
	}
	var cfg *io500.Config
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return usagef("io500: CONFIG.ini: %v", err)
		}
		if cfg, err = io500.ParseConfig(file, string(data)); err != nil {
			return usagef("io500: %v", err)
		}
	}
	if list {
		return io500.WriteList(stdout, cfg, true)
	}
	if cfg == nil {
		return usagef("io500: CONFIG.ini is missing (%s)", io500Synopsis)
	}
	if strings.ContainsAny(timestamp, "/\x00") || len(timestamp) > 29 {
		return usagef("io500: --timestamp=%s: a directory name of at most 29 bytes, without '/'", timestamp)
	}
	if cfgHash {
		return io500.WriteConfigHash(stdout, cfg)
	}
	if verify != "" {
		res, err := os.ReadFile(verify)
		if err != nil {
			return usagef("io500: --verify: %v", err)
		}
		if err := io500.Verify(stdout, cfg, io500Version(), string(res)); err != nil {
			return &pipeline.ExitError{Code: 1, Msg: "io500: --verify " + verify + ": " + err.Error()}
		}
		return nil
	}
	warnings, err := cfg.Check()
	if err != nil {
		return usagef("io500: %v", err)
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "WARNING: "+w)
	}
	api := strings.Fields(cfg.Str("global", "api") + " POSIX")[0]
	if _, ok := reg.Lookup(api); !ok {
		return usagef("io500: [global] api %q: not a backend of this build (%s)", api, strings.Join(reg.Names(), ", "))
	}
	// Every phase's command line is checked before any work: a bad
	// value of the file (a blockSize ior refuses, an api's options) is
	// a usage error naming the phase.
	for _, pc := range io500.Commands(cfg, "check") {
		var err error
		if pc.Tool == "ior" {
			_, err = iorconfig.Parse(pc.Args, reg)
		} else {
			_, err = mdconfig.Parse(pc.Args, reg)
		}
		if err != nil {
			return usagef("io500: %s: %s %s: %v", pc.Phase, pc.Tool, strings.Join(pc.Args, " "), err)
		}
	}
	b := &io500.Benchmark{
		Config: cfg, Args: args, DryRun: dryRun, Cleanup: cleanup, Version: io500Version(), Timestamp: timestamp,
		PhaseTimeout: pt,
		Archive:      archive, Stdout: stdout,
		IOR: io500IOR(reg), Mdtest: io500Mdtest(reg),
	}
	if verbosity >= 0 {
		b.Verbosity = &verbosity
	}
	if !strings.EqualFold(api, "POSIX") && !strings.EqualFold(api, "MMAP") {
		b.Namespace = io500Namespace(reg, strings.Fields(cfg.Str("global", "api")))
	}
	return pipeline.Main(ctx, b, pipeline.IO{Stdout: stdout, Stderr: stderr})
}

// io500Namespace opens [global] api's backend, with its options, as the
// data dir's namespace, on every rank of the job at once.
func io500Namespace(reg *aiori.Registry, api []string) func(ctx context.Context, e *pipeline.Env) (io500.FS, error) {
	return func(ctx context.Context, e *pipeline.Env) (io500.FS, error) {
		cfg, err := iorconfig.Parse(append([]string{"-a"}, api...), reg)
		if err != nil {
			return nil, fmt.Errorf("[global] api: %w", err)
		}
		t := &cfg.Tests[0]
		c := e.Job.Comm
		be, err := t.Backend.New(t.BackendOptions, aiori.Env{Rank: c.Rank(), Size: c.Size(), Comm: c, Context: ctx, Hosts: e.Record.RankHosts})
		if err != nil {
			return nil, err
		}
		fsys, err := io500.NewBackendFS(be)
		if err != nil {
			_ = be.Close()
			return nil, err
		}
		return fsys, nil
	}
}

// io500Version is IO500's "version" of hpcbench's runs.
func io500Version() string { return "hpcbench-" + version.Version }

const io500Options = `Options:
  --list, -l        print every option of the INI file, with its help and
                    value (the file's, or the default), as IO500 --list
  --dry-run         print every phase's ior/mdtest/pfind command line and
                    write the result files, running nothing (INVALID)
  --archive FILE    also write hpcbench's archive of the run (JSON), which
                    report, compare and plot read
  --verify FILE     check a result.txt against CONFIG.ini: its config-hash
                    and score-hash (exit 1 for a mismatch or an invalid run)
  --cleanup         run only the delete phases, to clean up after a run that
                    failed (with its --timestamp when the dirs are timestamped)
  --config-hash     print the configuration's hash, as result.txt has it
  --timestamp=NAME  the timestamp of the run's directories (timestamp-datadir,
                    timestamp-resultdir) instead of the start's date
  -v, --verbose=N   [global] verbosity: -v adds one, --verbose sets it
  --mode=standard   IO500's standard mode (the only one supported)`

// io500IOR runs one ior command line of a phase with the ior engine.
func io500IOR(reg *aiori.Registry) io500.Tool {
	return func(ctx context.Context, e *pipeline.Env, args []string, out io.Writer) (*report.Result, error) {
		cfg, err := iorconfig.Parse(args, reg)
		if err != nil {
			return nil, fmt.Errorf("ior %s: %w", strings.Join(args, " "), err)
		}
		b := &ior.Benchmark{Tests: cfg.Tests, Args: args, Stdout: out, Stderr: out}
		return runTool(ctx, e, b, out, ior.ErrVerify)
	}
}

// io500Mdtest runs one mdtest command line of a phase with the mdtest
// engine.
func io500Mdtest(reg *aiori.Registry) io500.Tool {
	return func(ctx context.Context, e *pipeline.Env, args []string, out io.Writer) (*report.Result, error) {
		o, err := mdconfig.Parse(args, reg)
		if err != nil {
			return nil, fmt.Errorf("mdtest %s: %w", strings.Join(args, " "), err)
		}
		return runTool(ctx, e, &mdtest.Benchmark{Options: o, Args: args, Stdout: out}, out, mdtest.ErrOps)
	}
}

// runTool runs eng on this rank with its output going to out, and renders
// its report there on rank 0; a soft failure (counted in the Result) is
// not an error.
func runTool(ctx context.Context, e *pipeline.Env, eng pipeline.Engine, out io.Writer, soft error) (*report.Result, error) {
	sub := *e
	sub.Stdout, sub.Stderr = out, out // the tool's warnings go in its output file, as IO500's
	res, err := eng.Run(ctx, &sub)
	if err != nil && !errors.Is(err, soft) {
		return nil, err
	}
	if res != nil {
		if err := eng.Render(res); err != nil {
			return nil, err
		}
	}
	return res, nil
}
