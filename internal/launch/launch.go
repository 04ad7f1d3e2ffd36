package launch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/pmi"
)

// Failure is how a job failed: the rank responsible (-1 when none is, as for
// a timeout), the launcher's exit status and a one-line message naming the
// rank and the cause.
type Failure struct {
	Rank int
	Code int
	Msg  string

	fromPMI bool // the PMI server saw it; the rank's exit status may say more
}

func (f *Failure) Error() string { return f.Msg }

// Job is a validated job, ready to run.
type Job struct {
	opts Options
	path string // resolved executable
}

// Prepare validates o and resolves its command, so that bad input is
// reported before anything starts. Its errors are usage errors.
func Prepare(o Options) (*Job, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Grace == 0 {
		o.Grace = DefaultGrace
	}
	name := o.Command[0]
	path := ""
	if name == "hpcbench" && o.Self != "" {
		path = o.Self
	} else {
		p, err := exec.LookPath(name)
		if err != nil {
			return nil, fmt.Errorf("command %q: %w", name, unwrapExecErr(err))
		}
		path = p
	}
	return &Job{opts: o, path: path}, nil
}

func unwrapExecErr(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// statusGrace is how long the launcher waits, after the PMI server saw a
// rank's connection drop, for that rank's exit status before tearing the job
// down; a status such as "killed by signal 9" names the cause better.
const statusGrace = time.Second

// rank is one started process.
type rank struct {
	id   int
	cmd  *exec.Cmd
	pgid int
}

type exitEvent struct {
	rank   int
	status syscall.WaitStatus
	err    error
}

// Run starts the ranks and waits for the job to end. It returns nil when
// every rank exited 0 after a clean PMI finalize (or without using PMI), and
// a *Failure otherwise. Whatever happens, every rank and its process group is
// gone and reaped when Run returns.
func (j *Job) Run(ctx context.Context) error {
	o := j.opts
	raiseNoFile()
	srvCfg := pmi.ServerConfig{
		Engine: pmi.EngineConfig{
			Size:           o.N,
			KVSName:        kvsName(),
			ProcessMapping: processMapping(o.N),
		},
		TraceDir: o.TraceDir,
	}
	if o.PMIPort {
		srvCfg.Listen = "127.0.0.1:0"
	}
	srv, err := pmi.NewServer(srvCfg)
	if err != nil {
		return &Failure{Rank: -1, Code: 1, Msg: fmt.Sprintf("launch: start PMI server: %v", err)}
	}
	srvCtx, stopSrv := context.WithCancel(context.Background())
	defer stopSrv()
	srvDone := make(chan struct{})
	go func() { srv.Run(srvCtx); close(srvDone) }()
	// srv.Run always returns once stopSrv is called; failures are read
	// from srv.Err.
	defer func() { stopSrv(); <-srvDone }()

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	stdout := &lineWriter{w: o.Stdout}
	stderr := &lineWriter{w: o.Stderr}
	var fwd sync.WaitGroup
	var readers []*os.File
	var waiters sync.WaitGroup
	events := make(chan exitEvent, o.N)
	ranks := make([]*rank, 0, o.N)
	start := time.Now()

	base := scrubbedEnv(o.Env)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return &Failure{Rank: -1, Code: 1, Msg: fmt.Sprintf("launch: open %s: %v", os.DevNull, err)}
	}
	defer devnull.Close()

	var fail *Failure
	for r := 0; r < o.N && fail == nil; r++ {
		rk, rOut, rErr, err := j.startRank(r, base, srv, devnull)
		srv.CloseClientFile(r)
		if err != nil {
			fail = &Failure{Rank: r, Code: 1, Msg: fmt.Sprintf("launch: rank %d: start %s: %v", r, o.Command[0], err)}
			break
		}
		ranks = append(ranks, rk)
		readers = append(readers, rOut, rErr)
		fwd.Go(func() { forward(rOut, stdout, r, o.TagOutput) })
		fwd.Go(func() { forward(rErr, stderr, r, o.TagOutput) })
		waiters.Go(func() {
			err := rk.cmd.Wait()
			ev := exitEvent{rank: r, err: err}
			if ps := rk.cmd.ProcessState; ps != nil {
				ev.status = ps.Sys().(syscall.WaitStatus)
			}
			events <- ev
		})
		select {
		case <-srv.Failed():
			fail = failureFrom(srv.Err())
		default:
		}
	}
	if o.Verbose {
		fmt.Fprintf(o.Stderr, "launch: started %d of %d ranks in %v\n", len(ranks), o.N, time.Since(start).Round(time.Microsecond))
	}

	var timeout <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout - time.Since(start))
		defer t.Stop()
		timeout = t.C
	}
	var killTimer, statusWait <-chan time.Time
	exited := make([]bool, len(ranks))
	live := len(ranks)
	tornDown, killSent := false, false
	teardown := func() {
		if tornDown {
			return
		}
		tornDown = true
		signalRanks(ranks, exited, syscall.SIGTERM)
		killTimer = time.After(o.Grace)
	}
	if fail != nil {
		teardown()
	}
	srvFailed := srv.Failed()
	for live > 0 {
		select {
		case ev := <-events:
			exited[ev.rank] = true
			live--
			code, msg := describeExit(ev)
			if o.Verbose {
				fmt.Fprintf(o.Stderr, "launch: rank %d %s\n", ev.rank, msg)
			}
			if code != 0 {
				switch {
				case fail == nil:
					fail = &Failure{Rank: ev.rank, Code: code, Msg: fmt.Sprintf("launch: rank %d %s", ev.rank, msg)}
				case fail.fromPMI && fail.Rank == ev.rank && !ourSignal(ev.status, killSent):
					// The PMI server saw this rank's connection drop
					// first; its exit status, unless it is the signal
					// the teardown sent, says more.
					fail = &Failure{Rank: ev.rank, Code: code, Msg: fmt.Sprintf("launch: rank %d %s", ev.rank, msg)}
				}
				teardown()
			}
		case <-srvFailed:
			srvFailed = nil
			if fail != nil {
				break
			}
			fail = failureFrom(srv.Err())
			if fail.fromPMI && fail.Rank >= 0 && fail.Rank < len(exited) && !exited[fail.Rank] {
				// A dropped connection usually means the process is
				// dying: give its exit status a moment to arrive.
				statusWait = time.After(statusGrace)
				break
			}
			teardown()
		case <-statusWait:
			statusWait = nil
			teardown()
		case <-timeout:
			if fail == nil {
				fail = &Failure{Rank: -1, Code: 124, Msg: fmt.Sprintf("launch: job exceeded --timeout %v; %d of %d ranks still running were killed", o.Timeout, live, o.N)}
			}
			teardown()
		case <-ctx.Done():
			if fail == nil {
				fail = &Failure{Rank: -1, Code: 1, Msg: fmt.Sprintf("launch: cancelled: %v", context.Cause(ctx))}
			}
			teardown()
		case sig := <-sigs:
			// Forward as mpiexec does; a second signal, or ranks that
			// ignore it for longer than the grace period, get SIGKILL.
			if killTimer != nil {
				signalRanks(ranks, exited, syscall.SIGKILL)
				killSent = true
				continue
			}
			signalRanks(ranks, exited, sig.(syscall.Signal))
			killTimer = time.After(o.Grace)
		case <-killTimer:
			signalRanks(ranks, exited, syscall.SIGKILL)
			killTimer, killSent = nil, true
		}
	}
	waiters.Wait()
	// Leave nothing behind: background children of a rank share its group.
	signalRanks(ranks, nil, syscall.SIGKILL)

	// Let the server see the last EOFs (and any failure they mean), but do
	// not wait for connections a leftover process may hold.
	if fail == nil {
		select {
		case <-srvDone:
		case <-time.After(time.Second):
		}
		if err := srv.Err(); err != nil {
			fail = failureFrom(err)
		}
	}
	drainOutput(&fwd, readers)
	if o.Verbose {
		fmt.Fprintf(o.Stderr, "launch: job of %d ranks ended after %v\n", o.N, time.Since(start).Round(time.Microsecond))
	}
	if fail != nil {
		if fail.Rank >= 0 && len(ranks) > 1 {
			fail.Msg += fmt.Sprintf("; the other %d ranks were terminated", len(ranks)-1)
		}
		return fail
	}
	return nil
}

func (j *Job) startRank(r int, base []string, srv *pmi.Server, devnull *os.File) (*rank, *os.File, *os.File, error) {
	o := j.opts
	rOut, wOut, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("stdout pipe: %w", err)
	}
	rErr, wErr, err := os.Pipe()
	if err != nil {
		rOut.Close()
		wOut.Close()
		return nil, nil, nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd := &exec.Cmd{
		Path:   j.path,
		Args:   o.Command,
		Env:    rankEnv(base, r, o.N, srv.Addr()),
		Dir:    o.Dir,
		Stdin:  devnull,
		Stdout: wOut,
		Stderr: wErr,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid:   true,            // its own group, so teardown reaches its children too
			Pdeathsig: syscall.SIGKILL, // and it dies with the launcher
		},
	}
	if f := srv.ClientFile(r); f != nil {
		cmd.ExtraFiles = []*os.File{f} // fd 3 = PMI_FD
	}
	err = cmd.Start()
	wOut.Close()
	wErr.Close()
	if err != nil {
		rOut.Close()
		rErr.Close()
		return nil, nil, nil, unwrapExecErr(err)
	}
	return &rank{id: r, cmd: cmd, pgid: cmd.Process.Pid}, rOut, rErr, nil
}

// signalRanks sends sig to the process group of every rank not known to
// have exited (every rank when exited is nil).
func signalRanks(ranks []*rank, exited []bool, sig syscall.Signal) {
	for i, rk := range ranks {
		if exited != nil && exited[i] {
			continue
		}
		syscall.Kill(-rk.pgid, sig)
	}
}

// drainOutput waits for the forwarders to reach EOF, and closes the pipes of
// any that a leftover process keeps open.
func drainOutput(fwd *sync.WaitGroup, readers []*os.File) {
	done := make(chan struct{})
	go func() { fwd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		for _, r := range readers {
			r.Close()
		}
		<-done
	}
}

func describeExit(ev exitEvent) (int, string) {
	ws := ev.status
	switch {
	case ev.err != nil && ws == 0 && !isExitError(ev.err):
		return 1, fmt.Sprintf("could not be waited for: %v", ev.err)
	case ws.Signaled():
		sig := ws.Signal()
		return 128 + int(sig), fmt.Sprintf("was killed by signal %d (%s)", int(sig), unix.SignalName(sig))
	case ws.ExitStatus() != 0:
		return ws.ExitStatus(), "exited with status " + strconv.Itoa(ws.ExitStatus())
	}
	return 0, "exited with status 0"
}

// ourSignal reports whether ws is death by a signal the teardown sent:
// SIGTERM, or SIGKILL once the launcher has sent it.
func ourSignal(ws syscall.WaitStatus, killSent bool) bool {
	return ws.Signaled() && (ws.Signal() == syscall.SIGTERM || ws.Signal() == syscall.SIGKILL && killSent)
}

func isExitError(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}

// failureFrom turns a PMI server error into a Failure.
func failureFrom(err error) *Failure {
	var re *pmi.RankError
	if errors.As(err, &re) {
		if re.Abort {
			return &Failure{Rank: re.Rank, Code: re.Code, Msg: "launch: " + re.Err.Error()}
		}
		return &Failure{Rank: re.Rank, Code: 1, Msg: "launch: " + trimPMI(re.Err.Error()), fromPMI: true}
	}
	return &Failure{Rank: -1, Code: 1, Msg: fmt.Sprintf("launch: PMI server: %v", err)}
}

func trimPMI(s string) string {
	if len(s) > 5 && s[:5] == "pmi: " {
		return s[5:]
	}
	return s
}

// kvsName returns a job-unique KVS name in Hydra's spirit.
func kvsName() string {
	var b [4]byte
	rand.Read(b[:])
	return "kvs_hpcbench_" + strconv.Itoa(os.Getpid()) + "_" + hex.EncodeToString(b[:])
}

// raiseNoFile lifts the soft open-file limit to the hard one: each rank costs
// the launcher a socket and two pipes, and 1,024 ranks must fit.
func raiseNoFile() {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && lim.Cur < lim.Max {
		lim.Cur = lim.Max
		unix.Setrlimit(unix.RLIMIT_NOFILE, &lim)
	}
}
