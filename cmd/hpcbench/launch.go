package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/progress"
	pipeline "github.com/hpcbench/hpcbench/internal/run"

	"github.com/hpcbench/hpcbench/internal/launch"
)

const launchUsage = "hpcbench launch -n N [flags] -- CMD [ARGS...]"

func runLaunch(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	o, err := parseLaunch(args, stdout)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	o.Stdout, o.Stderr, o.Env = stdout, stderr, append(os.Environ(), o.Env...)
	o.Stdin = os.Stdin // rank 0 reads it, as under Hydra
	if self, err := os.Executable(); err == nil {
		o.Self = self
	}
	job, err := launch.Prepare(o)
	if err != nil {
		return usagef("launch: %v", err)
	}
	err = job.Run(ctx)
	var f *launch.Failure
	if errors.As(err, &f) {
		if f.Said {
			return &pipeline.ExitError{Code: f.Code} // printed when it happened
		}
		return &pipeline.ExitError{Code: f.Code, Msg: f.Msg}
	}
	return err
}

// parseLaunch parses launch's flags; the command is what follows them.
func parseLaunch(args []string, stdout io.Writer) (launch.Options, error) {
	fs := newFlagSet("launch")
	fs.SetInterspersed(false) // everything after the command belongs to it
	var o launch.Options
	fs.IntVarP(&o.N, "np", "n", 1, "number of ranks to start (Hydra's -np N too; with --hosts or --hostfile, default the hosts' slots, with --ppn K, K per host); rank 0 reads the launcher's stdin, the others /dev/null")
	cliflag.SetRange(fs, "np", fmt.Sprintf("1 to %d", launch.MaxRanks))
	fs.DurationVar(&o.Timeout, "timeout", 0, "kill the job and exit 124 when it runs longer than this (e.g. 10m); 0 means no limit")
	fs.DurationVar(&o.PhaseTimeout, "phase-timeout", 0, "watchdog: end the job (exit 123) when a rank stays stopped, or stays in a phase another rank has left, this long; 0 turns it off (default: 10s stopped, max(30s, twice the first rank's time) in a phase)")
	fs.BoolVar(&o.TagOutput, "tag-output", false, "prefix every output line with [rank]")
	fs.BoolVar(&o.PMIPort, "pmi-port", false, "serve PMI over a loopback TCP port (PMI_PORT, PMI_ID) instead of an inherited fd (PMI_FD)")
	fs.StringVar(&o.TraceDir, "pmi-trace", "", "write each rank's PMI wire lines to `DIR`/rank<R>.txt (C: client, S: server)")
	fs.DurationVar(&o.Grace, "grace", launch.DefaultGrace, "after SIGTERM, wait this long before SIGKILL when tearing a job down")
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "print the launcher's own diagnostics on stderr")
	fs.BoolVar(&o.Progress, "progress", false, "write the job's progress (rank 0's phase, amount, rate, ETA) as a plain line on stderr every 10s where stderr is not a terminal; on a terminal the launcher draws a bar anyway. The ranks print none of their own")
	fs.DurationVar(&o.ProgressInterval, "progress-interval", 0, "write the --progress lines at this interval (1s to 1h) instead of every 10s; implies --progress")
	bind := fs.String("bind-to", string(launch.BindNone), "bind rank r to the r-th (round robin) `unit` of the CPUs the launcher may use: none, hwthread, core or socket (Hydra's -bind-to)")
	hosts := addHostFlags(fs)
	rsh := addRshFlags(fs)
	fs.StringVar(&o.ProxyPath, "proxy-path", "", "the hpcbench executable on the hosts of --hosts (default: the path of this one)")
	iface := fs.String(ifaceFlag, "", "the interface (or one of this host's addresses) the ranks listen on and publish (HPCBENCH_IFACE), and across hosts the launcher's control port")
	if err := parseFlags(fs, args, stdout, launchUsage); err != nil {
		return o, err
	}
	if fs.Changed("pmi-trace") {
		if err := checkTraceDir(o.TraceDir); err != nil {
			return o, usagef("launch: --pmi-trace %w", err)
		}
	}
	if fs.Changed("phase-timeout") {
		// The ranks take the value from $HPCBENCH_PHASE_TIMEOUT: refuse
		// here what they would refuse there, naming this flag.
		if _, err := cliflag.ParsePhaseTimeout(o.PhaseTimeout.String()); err != nil || o.PhaseTimeout < 0 {
			return o, usagef("launch: --phase-timeout %v: want 0 (off) or a duration in [100ms, 1000h]", o.PhaseTimeout)
		}
		if o.PhaseTimeout == 0 {
			o.PhaseTimeout = launch.PhaseTimeoutOff
		}
	}
	if fs.Changed("progress-interval") {
		if err := progress.CheckLineInterval(o.ProgressInterval); err != nil {
			return o, usagef("launch: --progress-interval %v", err)
		}
		o.Progress = true
	}
	b, err := launch.ParseBinding(*bind)
	if err != nil {
		return o, usagef("launch: %v", err)
	}
	o.Bind = b
	if err := hosts.apply(fs, &o); err != nil {
		return o, err
	}
	o.Command = fs.Args()
	if fs.Changed(ifaceFlag) {
		if _, err := fabric.LocalIP(*iface); err != nil {
			return o, usagef("launch: --%s %q: %v", ifaceFlag, *iface, err)
		}
		o.Env = append(o.Env, fabric.IfaceEnv+"="+*iface) // the ranks' too, as Hydra's -iface
	}
	if err := rsh.apply(fs, &o); err != nil {
		return o, err
	}
	return o, nil
}

// runProxy is the launcher's proxy on a host of a job across hosts (see
// launch.ServeProxy); it takes no arguments: its job comes from stdin and
// the control connection.
func runProxy(ctx context.Context, _, _ io.Writer, args []string) error {
	if len(args) != 0 {
		return usagef("%s: internal command of hpcbench launch, not for direct use", launch.ProxyCommand)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("%s: the path of this executable: %w", launch.ProxyCommand, err)
	}
	err = launch.ServeProxy(ctx, self)
	if errors.Is(err, launch.ErrRefused) {
		return &pipeline.ExitError{Code: 1} // the launcher says why, once
	}
	return err
}

// runSpawner is the launcher's hidden helper process (see launch.ServeSpawner):
// args are the ranks' program and its argv.
func runSpawner(_ context.Context, _, _ io.Writer, args []string) error {
	if len(args) < 2 {
		return usagef("%s: internal command of hpcbench launch, not for direct use", launch.SpawnerCommand)
	}
	return launch.ServeSpawner(args[0], args[1:])
}

// checkTraceDir refuses a --pmi-trace directory that the launcher could
// not make or fill: empty, a file, or one whose parent is missing (only
// the last directory is made, as mdtest makes only the last of -d).
func checkTraceDir(dir string) error {
	if dir == "" {
		return errors.New(`"": want a directory`)
	}
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s: not a directory", dir)
		}
		return nil
	}
	parent := filepath.Dir(dir)
	if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: directory %s does not exist, and only the last directory is made", dir, parent)
	}
	// Made and removed at once: a parent that takes no directory (/proc,
	// a read-only mount) refuses it now, not after the ranks start.
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("%s: cannot be made: %w", dir, errors.Unwrap(err))
	}
	return os.Remove(dir)
}
