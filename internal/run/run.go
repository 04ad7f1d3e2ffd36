package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/internal/exitcode"
	"github.com/hpcbench/hpcbench/internal/job"
	"github.com/hpcbench/hpcbench/internal/progress"
	"github.com/hpcbench/hpcbench/pmi"
	"github.com/hpcbench/hpcbench/report"
)

// Phase is the hook an engine calls as it moves through its work: the
// phase's name ("write", "file creation", "Allreduce 1024"), the
// iteration (0-based), and how much of the phase is done out of its total
// (bytes for I/O, items for metadata, repetitions for collectives; total
// 0 when unknown). It is called on every rank, from the engine's own
// goroutine, and must return quickly.
type Phase func(name string, iter int, done, total int64)

// peerFailDelay is how long a rank other than 0 waits, after a hard
// failure, before it aborts the job and prints its error: when rank 0
// fails too (the same error, on every rank) its abort ends this rank
// first, and the job prints the error once, not once per rank.
const peerFailDelay = 500 * time.Millisecond

// QuietWait waits for d; it returns false if ctx ends first (a signal
// from the launcher tearing the job down). A rank that is not the one to
// speak waits so, for the launcher to end it.
func QuietWait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// SayBeforeAbort writes "hpcbench: " and err's text on one line to w
// (os.Stderr when nil), then waits job.SayLinger, or until ctx ends, so that
// the line reaches the user before the caller's PMI abort ends the job.
func SayBeforeAbort(ctx context.Context, w io.Writer, err error) {
	fmt.Fprintf(orStderr(w), "hpcbench: %v\n", err)
	QuietWait(ctx, job.SayLinger)
}

// FollowFirst is what a rank other than the first does with an error
// every rank of the job has, such as a usage error found before PMI: it
// waits job.SayLinger, or until ctx ends, so that the first rank's line gets
// out and a launcher that ends the job on the first exit names that rank,
// and then says nothing itself. The job prints the error once, at once,
// and every rank exits: Hydra does not end the others when rank 0 exits
// 2, and they used to wait 10 s for it and then print it each.
func FollowFirst(ctx context.Context) { QuietWait(ctx, job.SayLinger) }

// abortLinger bounds how long a rank that aborted the job waits for the
// launcher to end it.
const abortLinger = 10 * time.Second

// closeTimeout bounds tearing the job down after the engine.
const closeTimeout = 30 * time.Second

// runSpec is one benchmark run: what the subcommand's flag wiring hands the
// pipeline.
type runSpec struct {
	// Name is the subcommand ("ior"); it is the run record's Benchmark
	// unless the engine names its own, and prefixes the pipeline's errors.
	Name string
	// Args is the command line after the subcommand's name.
	Args []string
	// Job configures the bootstrap. NoJob skips it: the engine
	// bootstraps PMI itself (wireup measures that), gets no Job, and
	// aborts the job itself.
	Job   job.Options
	NoJob bool
	// Soft is the engine's benchmark failure (failed verification, failed
	// operations): errors matching it still get the results written and
	// exit 1. Nil means none.
	Soft error
	// Usage reports whether an engine error is a usage error (bad input
	// found only once the job size is known): the job aborts with 2.
	Usage func(error) bool
	// Archive is the file that gets the run's Result as report.WriteJSON
	// writes it ("" for none), and ArchiveFlag the option that named it,
	// for errors ("--archive", "-O archiveFile").
	Archive, ArchiveFlag string
	// Outputs are the other files rank 0 writes once the run is over
	// (--output, -O summaryFile, ...): each is checked with the archive,
	// before any work (CheckOutput), and refused with exit 2 naming its
	// flag.
	Outputs []Output
	// Backend names the I/O backend and BackendOptions holds its options,
	// for the run record.
	Backend        string
	BackendOptions aiori.Options
	// Phase receives the engine's progress; nil drops it.
	Phase Phase
	// Progress is what the environment asks of rank 0's progress: plain
	// lines (--progress), or reports to the launcher that shows it.
	Progress progress.Env
	// Stderr gets the pipeline's error line ("hpcbench: ..."); nil means
	// os.Stderr. When it is a terminal, rank 0 draws a progress bar on it
	// for runs longer than a couple of seconds (internal/progress).
	Stderr io.Writer
	// Stdout is where the results go; nil means os.Stdout. The engine
	// writes what it streams during the run through Env.Stdout.
	Stdout io.Writer
	// Getenv replaces os.LookupEnv (tests).
	Getenv func(string) (string, bool)
	// Engine runs the benchmark on this rank and returns the Result on
	// rank 0 (nil on the others).
	Engine func(ctx context.Context, e *Env) (*report.Result, error)
	// Render writes rank 0's views (stdout, report files) of res, which
	// is the Result the engine returned, with the record applied.
	Render func(res *report.Result) error
}

// Output is a file a run writes and the option that named it, for
// errors ("--output", "-O summaryFile").
type Output struct {
	Flag, Path string
	// Data marks the benchmark's own data (IOR's test file): not an
	// output the pipeline checks or writes, but one no output may name.
	Data bool
}

// Env is what the pipeline hands the engine.
type Env struct {
	// Job is the bootstrapped rank; nil with runSpec.NoJob.
	Job *job.Job
	// Record is the run record, filled before the engine starts.
	Record Record
	// Phase is the pipeline's hook; never nil.
	Phase Phase
	// Stdout and Stderr are runSpec's, wrapped so that what the engine
	// writes during the run lifts the progress bar off the terminal's
	// line first; the bytes pass through unchanged.
	Stdout, Stderr io.Writer
}

// ExitError ends a command (a rank, the launcher) with a status other
// than 0. Msg, when not empty,
// is for the caller to print (a usage error found before the job, a
// benchmark failure on rank 0); a hard failure's error the pipeline has
// printed itself, once per job. Code is the exit status: 1 for a failed
// run, 2 for a usage error.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// OwnError is an engine's usage error that is this rank's own rather than
// every rank's (its host's memory is short): the rank prints it even when
// it is not rank 0, where the pipeline prints other usage errors from rank
// 0 only. An engine returns it from one rank per host at most.
type OwnError struct{ Err error }

func (e *OwnError) Error() string { return e.Err.Error() }

// Unwrap returns the usage error.
func (e *OwnError) Unwrap() error { return e.Err }

// SaidError is an engine's failure it has said itself, on the pipeline's
// stderr, before it aborted the job (a launcher may end every rank as soon
// as it sees the abort): the pipeline does not say it again.
type SaidError struct{ Err error }

func (e *SaidError) Error() string { return e.Err.Error() }

// Unwrap returns the error.
func (e *SaidError) Unwrap() error { return e.Err }

// orStderr is w, or os.Stderr when w is nil.
func orStderr(w io.Writer) io.Writer {
	if w == nil {
		return os.Stderr
	}
	return w
}

// orLookupEnv is getenv, or os.LookupEnv when getenv is nil.
func orLookupEnv(getenv func(string) (string, bool)) func(string) (string, bool) {
	if getenv == nil {
		return os.LookupEnv
	}
	return getenv
}

// FailedEnv is the Run.Env key that marks a run whose benchmark failed
// (verification, operations), holding the error; its results are still
// written.
const FailedEnv = "failed"

// FirstRank reports whether this process is rank 0 of its job, or a
// singleton, from the environment, before PMI is up (pmi.EnvRank).
// getenv nil means os.LookupEnv. A usage error found before the job is
// printed by the first rank only (every rank has it).
func FirstRank(getenv func(string) (string, bool)) bool {
	r, ok := pmi.EnvRank(getenv)
	return !ok || r == 0
}

// foreignLaunch refuses, before any work, a launch this rank cannot join
// (pmi.CheckLaunch: a PMIx launch without OpenPMIx, Slurm without an MPI
// plugin...): exit 2, with one line from the launch's first rank only; the
// others wait for the launcher to end them, so that the job says it once.
// nil when the launch can be joined, or there is none.
func foreignLaunch(ctx context.Context, s *runSpec) error {
	err := pmi.CheckLaunch(s.Getenv)
	if err == nil {
		return nil
	}
	if !FirstRank(s.Getenv) {
		FollowFirst(ctx)
		return &ExitError{Code: exitcode.Usage}
	}
	return &ExitError{Code: exitcode.Usage, Msg: fmt.Sprintf("%s: %v", s.Name, err)}
}

// mainSpec runs s on this rank: the whole lifecycle (see the package doc). It
// returns nil, or an *ExitError; any other error is a failure after the
// results were handled (rendering or writing them, tearing the job down)
// and exits 1.
func mainSpec(ctx context.Context, s runSpec) error {
	start := time.Now()
	if err := foreignLaunch(ctx, &s); err != nil {
		return err
	}
	outputsErr := func() error {
		outs := s.Outputs
		if s.Archive != "" {
			outs = append([]Output{{Flag: s.ArchiveFlag, Path: s.Archive}}, outs...)
		}
		if err := distinctOutputs(outs); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		for _, o := range outs {
			if o.Data {
				continue
			}
			if err := CheckOutput(o.Path); err != nil {
				return fmt.Errorf("%s: %s %w", s.Name, o.Flag, err)
			}
		}
		return nil
	}
	if s.NoJob {
		// No job to abort: every rank refuses the outputs before it
		// connects to PMI, and only the one that writes it (rank 0 or a
		// singleton) says so (FollowFirst).
		if err := outputsErr(); err != nil {
			if !FirstRank(s.Getenv) {
				FollowFirst(ctx)
				return &ExitError{Code: exitcode.Usage}
			}
			return &ExitError{Code: exitcode.Usage, Msg: err.Error()}
		}
	}
	var j *job.Job
	if !s.NoJob {
		var err error
		jo := s.Job
		if jo.Stderr == nil {
			jo.Stderr = s.Stderr // the stop watch's line goes where the run's do
		}
		said := false
		jo.OnAbort = func(err error) {
			// Said before the abort: the launcher may end every rank as
			// soon as it sees it (Hydra does). The other ranks first
			// leave rank 0, which reads every card, the time to say its
			// own and abort (their error is often the same, or a
			// consequence of its abort); one that is still running
			// then says its own.
			if !FirstRank(s.Getenv) && !QuietWait(ctx, peerFailDelay) {
				return
			}
			SayBeforeAbort(ctx, s.Stderr, fmt.Errorf("%s: %w", s.Name, err))
			said = true
		}
		if j, err = job.Start(ctx, jo); err != nil {
			code := exitcode.Failed
			if fe := (*pmi.ForeignLaunchError)(nil); errors.As(err, &fe) {
				code = exitcode.Usage // a launch found unjoinable only at PMIx_Init
			}
			if said {
				return &ExitError{Code: code}
			}
			// Connections are made on first use, so rank 0 may finish
			// its bootstrap, fail (a bad --archive) and abort while the
			// others still read the cards: their bootstrap then fails
			// on the closed PMI connection, a consequence. They wait
			// for the launcher's teardown before saying anything.
			if !FirstRank(s.Getenv) && !QuietWait(ctx, peerFailDelay) {
				return &ExitError{Code: code}
			}
			return &ExitError{Code: code, Msg: fmt.Sprintf("%s: %v", s.Name, err)}
		}
	}
	rank := 0
	if j != nil {
		rank = j.PMI.Rank()
	}
	stderr := orStderr(s.Stderr)
	stdout := s.Stdout
	if stdout == nil {
		stdout = os.Stdout
	}
	// nil (draws nothing) but on rank 0 with a terminal or --progress
	bar := newBar(stderr, rank == 0 && (j != nil || FirstRank(s.Getenv)), s.Progress)
	defer bar.Close()
	failCode := func(err error, code int) error {
		bar.Close()
		if ctx.Err() != nil {
			// Cancelled (a signal: the launcher is tearing the job
			// down, or the user stopped it): the failure is the
			// cancellation's, which the caller reports.
			return &ExitError{Code: exitcode.Failed}
		}
		multi := j != nil && j.Comm.Size() > 1
		// A stall is not the same error on every rank: each says whom it
		// waited for, and the rank that waited for the stopped one may not
		// be rank 0 (rank 0 may wait for a rank that waits for it). Every
		// stalled rank says so at once, and aborts a moment later, so
		// that the others' lines get out before the job ends.
		stalled := errors.Is(err, collectives.ErrStalled)
		// A connection a peer closed is the echo of that peer's failure
		// (a stall it found closes its connections), which the peer
		// reports: rank 0 waits too before it speaks.
		echo := errors.Is(err, fabric.ErrClosed)
		if multi && (rank != 0 || echo) && !stalled && !QuietWait(ctx, peerFailDelay) {
			// Stopped while waiting: rank 0 had its own failure (the
			// same one, say every rank's open failing) and said it.
			return &ExitError{Code: exitcode.Failed}
		}
		var own *OwnError
		var said *SaidError
		// A usage error is every rank's, and rank 0 says it, but an
		// OwnError; and a rank other than 0 that is still alive after its
		// wait above says its own: rank 0 did not fail the same way (a
		// library or provider this host lacks, say), or its abort would
		// have ended this rank.
		if !errors.As(err, &said) && (code == 1 || rank == 0 || multi || errors.As(err, &own)) {
			fmt.Fprintf(stderr, "hpcbench: %v\n", err)
		}
		if stalled && multi && !QuietWait(ctx, peerFailDelay) {
			return &ExitError{Code: exitcode.Failed}
		}
		if j != nil {
			j.PMI.Abort(code, s.Name+" failed")
		}
		if multi {
			// Keep the connections open until the launcher ends this
			// rank: a peer that saw them close would fail too, and say
			// so, before the abort reaches it.
			QuietWait(ctx, abortLinger)
		}
		return &ExitError{Code: code}
	}
	fail := func(err error) error {
		code := 1
		if s.Usage != nil && s.Usage(err) {
			code = 2
		}
		return failCode(err, code)
	}
	if !s.NoJob && rank == 0 {
		// Only rank 0 writes the archive and the outputs, so only its host's paths
		// matter, and the error is printed once for the job.
		if err := outputsErr(); err != nil {
			return failCode(err, 2)
		}
	}
	rec, err := newRecord(ctx, &s, j, start)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", s.Name, err))
	}
	phase := bar.Phase
	if s.Phase != nil {
		phase = func(name string, iter int, done, total int64) {
			s.Phase(name, iter, done, total)
			bar.Phase(name, iter, done, total)
		}
	}
	if report := launcherPhase(j, rank == 0 && s.Progress.Launcher); report != nil {
		inner := phase
		phase = func(name string, iter int, done, total int64) {
			report(name, iter, done, total)
			inner(name, iter, done, total)
		}
	}
	res, runErr := s.Engine(ctx, &Env{Job: j, Record: rec, Phase: phase,
		Stdout: bar.Stdout(stdout), Stderr: bar.Stdout(stderr)})
	bar.Close() // before the views, and before a failure is printed
	soft := runErr != nil && s.Soft != nil && errors.Is(runErr, s.Soft)
	if runErr != nil && !soft {
		return fail(runErr)
	}
	if j != nil {
		closeCtx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		if err := j.Close(closeCtx); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	if rank == 0 && res != nil {
		if res.Run.End.IsZero() {
			res.Run.End = time.Now()
		}
		// Wall-clock readings only, as the archive stores them: the views
		// then print the same Elapsed from the run as from its archive.
		res.Run.Start, res.Run.End = res.Run.Start.Round(0), res.Run.End.Round(0)
		if soft {
			if res.Run.Env == nil {
				res.Run.Env = map[string]string{}
			}
			res.Run.Env[FailedEnv] = runErr.Error()
		}
		if err := s.Render(res); err != nil {
			return err
		}
		// Stragglers worth a look go to stderr: stdout keeps the C
		// tools' layout, byte for byte, and the archive keeps them all;
		// --notes (NotesEnv) asks for them on stdout, after the report.
		writeNotes(stdout, stderr, s.Name, report.Stragglers(res), notesOnStdout(s.Getenv))
		if s.Archive != "" {
			if err := WriteFile(s.Archive, func(w io.Writer) error { return report.WriteJSON(w, res) }); err != nil {
				return fmt.Errorf("%s: %s: %w", s.Name, s.ArchiveFlag, err)
			}
		}
	}
	if soft {
		if rank == 0 {
			return &ExitError{Code: exitcode.Failed, Msg: runErr.Error()}
		}
		return &ExitError{Code: exitcode.Failed}
	}
	return nil
}
