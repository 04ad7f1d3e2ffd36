// Command hpcbench launches ranks and measures file systems, collectives and
// fabrics: one binary for what mpiexec, IOR, mdtest, fabtests and the Intel
// MPI Benchmarks do together.
//
// Each subcommand lives in its own file, builds its own flag set and options
// struct, and returns an error from run(ctx, stdout, stderr, args); main only
// dispatches and turns the error into an exit code (see exitCode).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/hpcbench/hpcbench/internal/exitcode"
	"github.com/hpcbench/hpcbench/internal/launch"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/objstore/engine"
)

// command is one entry of the subcommand table.
type command struct {
	summary string
	run     func(ctx context.Context, stdout, stderr io.Writer, args []string) error
	hidden  bool // internal plumbing, not listed by help
	iface   bool // takes --iface (splitIface) before its own options
	// progress takes --progress and --progress-interval (splitProgress)
	// before its own options.
	progress bool
	notes    bool // takes --notes (splitNotes) before its own options
}

// commands returns the subcommand table. It is a function, not a package
// variable, so nothing global is mutable.
func commands() map[string]command {
	return map[string]command{
		"help":    {summary: "show the commands, or the help of one: hpcbench help CMD", run: runHelp},
		"version": {summary: "print the version of this build (also hpcbench --version)", run: runVersion},
		"report":  {summary: "re-render saved runs (archives) in any of their views, as the run printed them", run: runReport},
		"launch":  {summary: "start N ranks under hpcbench's own PMI-1 server (like mpiexec)", run: runLaunch},
		"wireup":  {summary: "benchmark the PMI bootstrap itself: put, barrier, get of business cards", run: runWireup, iface: true, progress: true},
		"coll":    {summary: "Intel MPI Benchmarks (IMB-MPI1) analogue: ping-pong and collectives over shm/tcp", run: runColl, iface: true, progress: true, notes: true},
		"ior":     {summary: "IOR analogue: parallel file I/O bandwidth over POSIX, MMAP or DUMMY", run: runIOR, iface: true, progress: true, notes: true},
		"mdtest":  {summary: "mdtest analogue: metadata rates of file and directory operations, with JSON and CSV", run: runMdtest, iface: true, progress: true, notes: true},
		"io500":   {summary: "IO500 analogue: its INI files, phases, score and result files, over the ior and mdtest engines", run: runIO500, iface: true, progress: true, notes: true},
		"fabric":  {summary: "fabtests and perftest analogue: ping-pong and bandwidth between two ends over tcp, shm, verbs, ucx or libfabric (ofi:PROVIDER)", run: runFabric, iface: true, progress: true},
		"dfs":     {summary: "the DAOS-like object store behind ior and mdtest -a DFS: pools, containers, a standalone engine", run: runDfs, iface: true},
		"compare": {summary: "compare two sets of saved runs, benchstat-style: deltas, intervals, p-values; a CI gate", run: runCompare},
		"plot":    {summary: "chart saved runs: bandwidth, latency or rate against size, phase or time (PNG, SVG, terminal)", run: runPlot},

		launch.SpawnerCommand: {summary: "the launcher's process spawner", run: runSpawner, hidden: true},
		launch.ProxyCommand:   {summary: "the launcher's proxy on a host of a job across hosts", run: runProxy, hidden: true},
		engine.ChildCommand:   {summary: "the engine a rank starts for -a DFS", run: runDfsEngineChild, hidden: true},
	}
}

// unknownCommand words the refusal of a first argument that names no
// command: an option given before any command says that a command comes
// first, and names the commands.
func unknownCommand(name string) string {
	if strings.HasPrefix(name, "-") {
		var names []string
		for n, c := range commands() {
			if !c.hidden && n != "help" && n != "version" {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		return fmt.Sprintf("unknown option %q: a command comes first (hpcbench COMMAND [OPTIONS], COMMAND one of %s); run 'hpcbench help'",
			oneLine(name), strings.Join(names, ", "))
	}
	return fmt.Sprintf("unknown command %q; run 'hpcbench help' for the list", oneLine(name))
}

func main() {
	os.Exit(mainExit(os.Args[1:], os.Stdout, os.Stderr))
}

// mainExit runs the subcommand named by args[0] and returns the process exit
// code. The launcher handles SIGINT/SIGTERM itself (it forwards them to its
// ranks); every other subcommand cancels its context on them.
func mainExit(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitcode.Usage
	}
	name := args[0]
	switch {
	case isHelp(name):
		usage(stdout)
		return 0
	case isVersion(name):
		name = "version"
	}
	cmd, ok := commands()[name]
	if !ok {
		fmt.Fprintf(stderr, "hpcbench: %s\n", unknownCommand(name))
		return exitcode.Usage
	}
	ctx := context.Background()
	var sigs chan os.Signal
	if name != "launch" {
		// A termination signal cancels the command's context so it can
		// clean up; it then exits 128+signal without a message of its own,
		// as a process killed by the signal would (the launcher that sent
		// it has already said why).
		sigs = make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case s := <-sigs:
				cancel(&signalError{s.(syscall.Signal)})
			case <-stop:
			}
		}()
	}
	rest, err := args[1:], error(nil)
	if cmd.iface {
		rest, err = splitIface(name, rest)
	}
	if err == nil && cmd.progress {
		rest, err = splitProgress(name, rest)
	}
	if err == nil && cmd.notes {
		rest, err = splitNotes(name, rest)
	}
	if err == nil {
		err = cmd.run(ctx, stdout, stderr, rest)
	}
	if pipeline.IsUsage(err) && name != "launch" && !pipeline.FirstRank(nil) {
		// Every rank of the job has the same bad command line: rank 0
		// says so, the others exit 2 a moment later, saying nothing.
		pipeline.FollowFirst(ctx)
		return exitcode.Usage
	}
	var se *signalError
	if err != nil && errors.As(context.Cause(ctx), &se) {
		return exitcode.Signal + int(se.sig)
	}
	return exitCode(err, stderr)
}

// signalError is the cancellation cause when a termination signal arrives.
type signalError struct{ sig syscall.Signal }

func (e *signalError) Error() string { return "stopped by " + e.sig.String() }

// exitCode maps an error to the process exit status, printing it first.
// Usage errors exit 2, a *pipeline.ExitError its own code (printing its message only
// when it has one), anything else 1.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var re *pipeline.ExitError // the run pipeline's: printed by one rank only
	if errors.As(err, &re) {
		if re.Msg != "" {
			fmt.Fprintf(stderr, "hpcbench: %s\n", re.Msg)
		}
		return re.Code
	}
	fmt.Fprintf(stderr, "hpcbench: %v\n", err)
	if pipeline.IsUsage(err) {
		return exitcode.Usage
	}
	return exitcode.Failed
}

// usagef returns a usage error (exit 2) with a formatted message.
func usagef(format string, a ...any) error { return pipeline.Usagef(format, a...) }
