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
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/internal/exitcode"
	"github.com/hpcbench/hpcbench/internal/procstat"
	"github.com/hpcbench/hpcbench/pmi"
)

// Failure is how a job failed: the rank responsible (-1 when none is, as for
// a timeout), the launcher's exit status and a one-line message naming the
// rank and the cause.
type Failure struct {
	Rank int
	Code int
	Msg  string

	// Said reports that Msg was printed on Options.Stderr when it happened
	// (an interrupt): the caller need not print it again.
	Said bool

	fromPMI bool // the PMI server saw it; the rank's exit status may say more
	abort   bool // a rank called abort; a peer's death just before may be the cause
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
	if o.Self == "" {
		return nil, errors.New("launcher: the path of the hpcbench executable (Self) is unknown; it runs the process spawner")
	}
	if o.Grace == 0 {
		o.Grace = DefaultGrace
	}
	name := o.Command[0]
	path := ""
	if name == "hpcbench" {
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

// outputGrace is how long the launcher waits, once every rank has exited,
// for their output pipes to reach EOF: a process a rank left behind may
// hold them open.
const outputGrace = 2 * time.Second

// abortGrace is how long an abort is held back for the exit status of a
// rank that died by a signal just before it (see serverFailed).
const abortGrace = 200 * time.Millisecond

// failSource is where a job's PMI failure comes from: its pmi.Server, or
// the proxies of a job across hosts.
type failSource interface {
	// Err returns the first failure, or nil.
	Err() error
}

// remoteRanks is the launcher's hold on ranks it did not fork: those of a
// job across hosts, which the proxies on their hosts signal.
type remoteRanks interface {
	// signal sends sig to every live rank's process group, or with all
	// to every rank's, exited or not; each proxy also sends it to the
	// ranks it reports started later.
	signal(sig syscall.Signal, all bool)
	// host names the host rank r runs on.
	host(r int) string
}

// job is the state of one run, owned by Run's goroutine.
type job struct {
	o       Options
	srv     failSource
	remote  remoteRanks // nil on one host
	pids    []int       // by rank; 0 until the spawner reports it
	exited  []bool      // by rank
	pending int         // ranks asked for and not yet reported exited or failed to start
	fail    *Failure

	tornDown, killSent bool
	interrupted        bool // the launcher got SIGINT or SIGTERM
	// sent is the last signal sent to the ranks, 0 for none: a rank whose
	// pid is reported after it (the spawner sends the pids of ranks
	// started back to back together) gets it then.
	sent syscall.Signal
	// sentMask has bit s set once signal s was sent to the ranks: a rank
	// dead of it (or exiting 128+s) died of the launcher's doing.
	sentMask uint64
	// terminated marks the ranks the launcher signalled to end while
	// they ran; the failure's message counts them.
	terminated []bool
	extended   bool // the abort hold was extended for a dead rank's status
	killTimer  <-chan time.Time
	statusWait <-chan time.Time

	stderr *lineWriter // the launcher's own lines, between the ranks'
	wd     *watchdog
	notes  *noteBox
	// progress feeds the launcher's progress display; nil without one.
	progress *jobProgress
	wdRank   int // the rank the watchdog timer is armed for
	wdAt     time.Time
	wdT      *time.Timer

	// oomKills reads the kernel's OOM-kill count (procstat.OOMKills;
	// a test's fake), and oomStart is its reading when the job began.
	oomKills   func() (uint64, bool)
	oomStart   uint64
	oomStartOK bool
}

// newJob returns the state of a job of o.N ranks whose launcher lines go to
// stderr and PMI notes come through notes.
func newJob(o Options, stderr *lineWriter, notes *noteBox) *job {
	return newJobWith(o, stderr, notes, procstat.OOMKills)
}

// newJobWith is newJob reading the OOM-kill count with oomKills.
func newJobWith(o Options, stderr *lineWriter, notes *noteBox, oomKills func() (uint64, bool)) *job {
	jb := &job{o: o, pids: make([]int, o.N), exited: make([]bool, o.N), terminated: make([]bool, o.N),
		stderr: stderr, wd: newWatchdog(o.N, o.PhaseTimeout), notes: notes, wdRank: -1, oomKills: oomKills}
	jb.oomStart, jb.oomStartOK = oomKills()
	return jb
}

// oomNote is what the launcher adds to a rank's death by a SIGKILL it did
// not send: the kernel's OOM killer sends SIGKILL, and a user who reads
// only "killed by SIGKILL" does not learn that memory ran out. The count
// is the whole system's, so the note says what it knows: the killer ran
// during the job.
func (jb *job) oomNote() string {
	if !jb.oomStartOK {
		return ""
	}
	now, ok := jb.oomKills()
	if !ok || now <= jb.oomStart {
		return ""
	}
	n := now - jb.oomStart
	return fmt.Sprintf(": out of memory? the kernel's OOM killer killed %d %s during the job (oom_kill %d -> %d in /proc/vmstat)",
		n, plural(int(n), "process", "processes"), jb.oomStart, now)
}

// Run starts the ranks and waits for the job to end. It returns nil when
// every rank exited 0 after a clean PMI finalize (or without using PMI), and
// a *Failure otherwise. Whatever happens, every rank and its process group is
// gone and reaped when Run returns.
func (j *Job) Run(ctx context.Context) error {
	if len(j.opts.Hosts) > 0 {
		return j.runHosts(ctx)
	}
	o := j.opts
	raiseNoFile()
	start := time.Now()
	kvs := kvsName()
	// The job's progress on the launcher's terminal, or --progress lines;
	// closed before Run returns, and so before its failure is printed.
	bar := newJobBar(o)
	defer bar.Close()
	base := append(scrubbedEnv(o.Env, o.PhaseTimeout != 0), jobVars(kvs, o.PhaseTimeout, bar.Shows())...)
	base = append(base, crowdVars(o.Env, o.N, fabric.OnlineCPUs())...)
	events := make(chan procEvent, 2*o.N+1+stopRoom)
	sp, err := startSpawner(o.Self, j.path, o.Command, o.Dir, base, events)
	if err != nil {
		return &Failure{Rank: -1, Code: exitcode.Failed, Msg: "launch: " + err.Error()}
	}
	// While the spawner starts up, and before the PMI server and the
	// pipes open thousands of descriptors.
	growFDTable(launcherFDs(o.N, o.TraceDir != ""))
	stdout := &lineWriter{w: bar.Stdout(o.Stdout)}
	stderr := &lineWriter{w: bar.Stdout(o.Stderr)}
	fwd, err := newForwarder(o.N, stdout, stderr, o.TagOutput)
	if err != nil {
		sp.close()
		return &Failure{Rank: -1, Code: exitcode.Failed, Msg: "launch: " + err.Error()}
	}
	srvCfg := pmi.ServerConfig{
		Engine: pmi.EngineConfig{
			Size:           o.N,
			KVSName:        kvs,
			ProcessMapping: processMapping(o.N),
		},
		TraceDir: o.TraceDir,
	}
	notes := &noteBox{wake: make(chan struct{}, 1)}
	srvCfg.Notify = notes.add // --timeout's message names phases even with the watchdog off
	if o.PMIPort {
		srvCfg.Listen = "127.0.0.1:0"
	}
	srv, err := pmi.NewServer(srvCfg)
	if err != nil {
		sp.close()
		fwd.finish(0)
		return &Failure{Rank: -1, Code: exitcode.Failed, Msg: fmt.Sprintf("launch: start PMI server: %v", err)}
	}
	srvCtx, stopSrv := context.WithCancel(context.Background())
	srvDone := make(chan struct{})
	go func() { srv.Run(srvCtx); close(srvDone) }()

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	jb := newJob(o, stderr, notes)
	jb.srv = srv
	if bar.Shows() {
		jb.progress = &jobProgress{sink: bar}
	}
	defer jb.stopWatchdog()
	srvFailed := srv.Failed()

	var stdin *stdinCopy
	stdinFD, stdinStarted := -1, false
	if forwardsStdin(o.Stdin) {
		if stdin, stdinFD, err = newStdinCopy(o.Stdin); err != nil {
			jb.fail = &Failure{Rank: -1, Code: exitcode.Failed, Msg: "launch: " + err.Error()}
		}
	}

	var doms [][]int
	if o.Bind != BindNone && o.Bind != "" {
		cpus, err := allowedTopo()
		if err == nil && len(cpus) == 0 {
			err = errors.New("--bind-to: this process may run on no CPU")
		}
		if err != nil {
			jb.fail = &Failure{Rank: -1, Code: exitcode.Failed, Msg: "launch: " + err.Error()}
		}
		doms = domains(o.Bind, cpus)
	}
	for r := 0; r < o.N && jb.fail == nil; r++ {
		cpus := ""
		if len(doms) > 0 {
			cpus = formatCPUs(doms[r%len(doms)])
		}
		in := -1
		if r == 0 {
			in = stdinFD
		}
		started, err := startRank(sp, srv, fwd, r, r, rankVars(r, o.N, r, o.N, srv.Addr()), cpus, in)
		srv.CloseClientFile(r)
		if in >= 0 {
			unix.Close(in)
			stdinFD = -1
			if err == nil {
				stdin.start()
				stdinStarted = true
			}
		}
		if started {
			jb.pending++ // it runs, and its exit is still to come
			// Now, not on the spawner's report of its pid: that can
			// come after the rank's first PMI notes.
			jb.wd.started(r, time.Now())
		}
		if err != nil {
			jb.fail = &Failure{Rank: r, Code: exitcode.Failed, Msg: fmt.Sprintf("launch: rank %d: %v", r, err)}
			break
		}
		// Notice failures while starting, without waiting for them.
		for drained := false; !drained; {
			select {
			case ev := <-events:
				jb.handle(ev)
			case <-srvFailed:
				srvFailed = nil
				jb.serverFailed()
			case <-notes.wake:
				jb.applyNotes()
			case sig := <-sigs:
				// Ctrl-C while a thousand ranks start: stop starting.
				jb.interrupt(sig.(syscall.Signal))
			default:
				drained = true
			}
		}
	}
	if jb.fail != nil && !jb.interrupted {
		jb.teardown() // interrupt already signalled the ranks started
	}

	var timeout <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout - time.Since(start))
		defer t.Stop()
		timeout = t.C
	}
	jb.wait(ctx, events, srvFailed, sigs, timeout)
	// Leave nothing behind: background children of a rank share its group.
	jb.signalAll(syscall.SIGKILL)
	sp.close()

	// Let the server see the last EOFs (and any failure they mean), but do
	// not wait for connections a leftover process may hold.
	if jb.fail == nil {
		srv.EndAccepting() // every rank has exited: none is still to connect
		select {
		case <-srvDone:
		case <-time.After(time.Second):
		}
		if err := srv.Err(); err != nil {
			jb.fail = failureFrom(err)
		}
	}
	stopSrv()
	<-srvDone
	if stdinFD >= 0 {
		unix.Close(stdinFD) // rank 0 was never started
	}
	if stdin != nil {
		stdin.stop(stdinStarted)
	}
	fwd.finish(outputGrace)
	bar.Close()
	if o.Verbose {
		fmt.Fprintf(o.Stderr, "launch: job of %d ranks ended after %v\n", o.N, time.Since(start).Round(time.Microsecond))
	}
	return jb.failure()
}

// failure is the job's outcome once it is over: nil, or its Failure,
// whose message counts the other ranks the launcher terminated.
func (jb *job) failure() error {
	f := jb.fail
	if f == nil {
		return nil
	}
	if n := jb.terminatedOthers(f.Rank); f.Rank >= 0 && n > 0 {
		if n == 1 {
			f.Msg += "; the other rank still running was terminated"
		} else {
			f.Msg += fmt.Sprintf("; the other %d ranks still running were terminated", n)
		}
	}
	return f
}

// wait runs the job until every rank has exited (or is known lost): it
// applies the ranks' events and PMI notes, arms the watchdog, and acts on
// the PMI server's failure, the hold on an abort, --timeout (timeout), ctx,
// the launcher's signals (sigs) and the teardown's SIGKILL timer.
func (jb *job) wait(ctx context.Context, events <-chan procEvent, srvFailed <-chan struct{}, sigs <-chan os.Signal, timeout <-chan time.Time) {
	for jb.pending > 0 {
		jb.armWatchdog()
		select {
		case <-jb.notes.wake:
			jb.applyNotes()
		case now := <-jb.watchdogC():
			jb.watchdogFired(now)
		case ev := <-events:
			jb.handle(ev)
		case <-srvFailed:
			srvFailed = nil
			jb.serverFailed()
		case <-jb.statusWait:
			jb.statusWait = nil
			if jb.fail.abort && !jb.extended && jb.anyZombie() {
				// A rank is dead and not yet reported: its status is
				// on its way and names the cause.
				jb.extended = true
				jb.statusWait = time.After(statusGrace)
				continue
			}
			if jb.fail.abort {
				// A rank aborted (its own stall deadline, say) while
				// another is stopped: the stopped one is the cause.
				jb.blameStopped(time.Now())
			}
			jb.teardown()
		case <-timeout:
			timeout = nil
			if jb.fail == nil {
				jb.applyNotes()
				jb.fail = &Failure{Rank: -1, Code: exitcode.Timeout, Msg: fmt.Sprintf("launch: job exceeded --timeout %v; %d of %d ranks still running were killed: %s",
					jb.o.Timeout, jb.pending, jb.o.N, jb.wd.states(jb.info))}
			}
			jb.teardown()
		case <-ctx.Done():
			if jb.fail == nil {
				jb.fail = &Failure{Rank: -1, Code: exitcode.Failed, Msg: fmt.Sprintf("launch: cancelled: %v", context.Cause(ctx))}
			}
			jb.teardown()
		case sig := <-sigs:
			jb.interrupt(sig.(syscall.Signal))
		case <-jb.killTimer:
			jb.signal(syscall.SIGKILL)
			jb.killTimer, jb.killSent = nil, true
		}
	}
}

// handle applies one spawner event.
func (jb *job) handle(ev procEvent) {
	r := ev.rank
	switch ev.kind {
	case evStarted:
		jb.pids[r] = ev.pid
		// A proxy signals the ranks it starts after a signal itself.
		switch {
		case jb.tornDown:
			if jb.remote == nil {
				syscall.Kill(-ev.pid, syscall.SIGKILL)
			}
			jb.terminated[r] = true
		case jb.sent != 0:
			if jb.remote == nil {
				syscall.Kill(-ev.pid, jb.sent)
			}
			jb.terminated[r] = jb.sent == syscall.SIGTERM || jb.sent == syscall.SIGKILL
		}
	case evStopped:
		jb.wd.stop(r, ev.sig, time.Now())
		if jb.o.Verbose {
			fmt.Fprintf(jb.stderr, "launch: rank %d was stopped by %s\n", r, unix.SignalName(ev.sig))
		}
	case evContinued:
		jb.wd.cont(r)
		if jb.o.Verbose {
			fmt.Fprintf(jb.stderr, "launch: rank %d continued\n", r)
		}
	case evStartFailed:
		jb.pending--
		jb.exited[r] = true
		jb.wd.finished(r, time.Now(), false)
		if jb.fail == nil {
			jb.fail = &Failure{Rank: r, Code: exitcode.Failed, Msg: fmt.Sprintf("launch: %s: start %s: %v", jb.rankName(r), jb.o.Command[0], ev.err)}
		}
		jb.teardown()
	case evExited:
		jb.pending--
		jb.exited[r] = true
		jb.wd.finished(r, time.Now(), false)
		code, msg := describeExit(ev.status)
		ours := jb.ourSignal(ev.status)
		if killedBy(ev.status) == syscall.SIGKILL && !ours {
			msg += jb.oomNote()
		}
		if jb.o.Verbose {
			fmt.Fprintf(jb.stderr, "launch: %s %s\n", jb.rankName(r), msg)
		}
		if !ours {
			// It ended on its own (its exit was still queued when the
			// teardown signalled it): not one the launcher terminated.
			jb.terminated[r] = false
		}
		if code == 0 {
			return
		}
		switch {
		case jb.fail == nil:
			jb.fail = &Failure{Rank: r, Code: code, Msg: fmt.Sprintf("launch: %s %s", jb.rankName(r), msg)}
		case jb.fail.fromPMI && jb.fail.Rank == r && !ours:
			// The PMI server saw this rank's connection drop first; its
			// exit status, unless it is the signal the teardown sent,
			// says more.
			jb.fail = &Failure{Rank: r, Code: code, Msg: fmt.Sprintf("launch: %s %s", jb.rankName(r), msg)}
		case jb.fail.abort && jb.fail.Rank != r && !jb.tornDown && killedBy(ev.status) != 0 &&
			killedBy(ev.status) != syscall.SIGPIPE && !ours:
			// Another rank died by a signal while the abort was held
			// back: it died first, and the abort is its peers noticing.
			// (SIGPIPE is a rank writing to the PMI server after the
			// abort closed it: a consequence, not a cause.)
			jb.fail = &Failure{Rank: r, Code: code, Msg: fmt.Sprintf("launch: %s %s", jb.rankName(r), msg)}
		default:
			if jb.fail.abort && jb.statusWait != nil {
				// The abort is held back: peers that noticed the same
				// death exit with an error of their own, which must not
				// end the wait for the death's status.
				return
			}
		}
		jb.teardown()
	case evHostLost:
		now := time.Now()
		for _, r := range ev.lost {
			if !jb.exited[r] {
				jb.exited[r] = true
				jb.pending--
				jb.wd.finished(r, now, false)
			}
		}
		if jb.fail == nil || (!jb.tornDown && (jb.fail.fromPMI || jb.fail.abort)) {
			// Its ranks' closed connections, and their peers' aborts,
			// are the consequence.
			jb.fail = &Failure{Rank: -1, Code: exitcode.Failed, Msg: "launch: " + ev.err.Error()}
		}
		jb.teardown()
	case evSpawnerDied:
		if jb.fail == nil || (!jb.tornDown && (jb.fail.fromPMI || jb.fail.abort)) {
			// Its ranks die with it (Pdeathsig): their closed PMI
			// connections, and their peers' aborts, are the
			// consequence, not the cause.
			jb.fail = &Failure{Rank: -1, Code: exitcode.Failed, Msg: fmt.Sprintf("launch: the process spawner died (%v); the %d ranks it had started and not yet reaped were killed with it", ev.err, jb.pending)}
		}
		// No exit statuses will come: kill what is known and stop waiting.
		jb.signalAll(syscall.SIGKILL)
		jb.pending = 0
	}
}

// serverFailed takes the PMI server's failure as the job's.
func (jb *job) serverFailed() {
	if jb.fail != nil {
		return
	}
	jb.fail = failureFrom(jb.srv.Err())
	if r := jb.fail.Rank; jb.remote != nil && r >= 0 && r < jb.o.N {
		jb.fail.Msg += " (on host " + jb.remote.host(r) + ")"
	}
	if jb.fail.abort {
		// A rank often aborts because a peer died under it (its
		// connection closed); give that peer's exit status a moment to
		// arrive so the message names the cause, not the messenger.
		jb.statusWait = time.After(abortGrace)
		return
	}
	if r := jb.fail.Rank; jb.fail.fromPMI && r >= 0 && r < len(jb.exited) && !jb.exited[r] {
		// A dropped connection usually means the process is dying: give
		// its exit status a moment to arrive.
		jb.statusWait = time.After(statusGrace)
		return
	}
	jb.teardown()
}

// teardown sends SIGTERM to every live rank, then SIGCONT so that a
// stopped one gets it too, and arms the SIGKILL timer.
func (jb *job) teardown() {
	if jb.tornDown {
		return
	}
	jb.tornDown = true
	jb.statusWait = nil
	jb.signal(syscall.SIGTERM)
	jb.signal(syscall.SIGCONT)
	jb.sent = syscall.SIGTERM
	jb.killTimer = time.After(jb.o.Grace)
}

// interrupt handles SIGINT or SIGTERM to the launcher. The first says so
// at once ("interrupted (SIGINT): stopping 4 ranks"), is the job's failure
// unless another came first, and is forwarded to the ranks, as mpiexec
// does, with SIGKILL after the grace period; a second kills at once.
func (jb *job) interrupt(sig syscall.Signal) {
	if jb.interrupted || jb.killTimer != nil {
		jb.signalAll(syscall.SIGKILL)
		jb.signal(syscall.SIGKILL)
		jb.killTimer, jb.killSent = nil, true
		return
	}
	jb.interrupted = true
	if jb.fail == nil {
		live := jb.pending // started and not yet exited: not those never started
		msg := fmt.Sprintf("launch: interrupted (%s): stopping %d %s", unix.SignalName(sig), live, plural(live, "rank", "ranks"))
		fmt.Fprintf(jb.stderr, "hpcbench: %s\n", msg)
		jb.fail = &Failure{Rank: -1, Code: exitcode.Signal + int(sig), Msg: msg, Said: true}
	}
	jb.statusWait = nil
	jb.signal(sig)
	jb.signal(syscall.SIGCONT)
	jb.sent = sig
	jb.killTimer = time.After(jb.o.Grace)
}

// signal sends sig to the process group of every rank not known to have
// exited, and to those whose start is reported later.
func (jb *job) signal(sig syscall.Signal) {
	jb.sent = sig
	if sig < 64 {
		jb.sentMask |= 1 << uint(sig)
	}
	if jb.remote != nil {
		jb.remote.signal(sig, false)
	}
	for r, pid := range jb.pids {
		if pid > 0 && !jb.exited[r] {
			if jb.remote == nil {
				syscall.Kill(-pid, sig)
			}
			if sig != syscall.SIGCONT {
				jb.terminated[r] = true
			}
		}
	}
}

// terminatedOthers counts the ranks but rank the launcher signalled to end
// while they still ran.
func (jb *job) terminatedOthers(rank int) int {
	n := 0
	for r, t := range jb.terminated {
		if t && r != rank {
			n++
		}
	}
	return n
}

// ourSignal reports whether ws is a death by a signal the launcher sent
// (or the exit status 128+S a rank that caught it exits with).
func (jb *job) ourSignal(ws syscall.WaitStatus) bool {
	sig := killedBy(ws)
	return sig != 0 && sig < 64 && jb.sentMask&(1<<uint(sig)) != 0
}

// signalAll sends sig to every rank's process group, exited or not: what a
// rank left running in its group goes too.
func (jb *job) signalAll(sig syscall.Signal) {
	if jb.remote != nil {
		jb.remote.signal(sig, true)
		return
	}
	for _, pid := range jb.pids {
		if pid > 0 {
			syscall.Kill(-pid, sig)
		}
	}
}

// startRank creates the output pipes of the rank served at index slot
// (its job-wide rank r: the same on one host), hands their write ends,
// with its PMI socket, its stdin (-1: /dev/null), its variables and the
// CPUs to bind it to ("" for none), to the spawner, and gives the read
// ends to the forwarder. started reports that the spawner took the rank,
// even when err then says the forwarder did not. The pipes are raw
// descriptors, blocking at both ends: the rank's ends must be, and the
// forwarder reads its ends only when epoll says they are ready. The
// launcher on one host and each proxy of a job across hosts start their
// ranks here.
func startRank(sp *spawner, srv *pmi.Server, fwd *forwarder, slot, r int, vars []string, cpus string, stdin int) (started bool, err error) {
	var out, errp [2]int
	if err := unix.Pipe2(out[:], unix.O_CLOEXEC); err != nil {
		return false, fmt.Errorf("stdout pipe: %w", err)
	}
	if err := unix.Pipe2(errp[:], unix.O_CLOEXEC); err != nil {
		unix.Close(out[0])
		unix.Close(out[1])
		return false, fmt.Errorf("stderr pipe: %w", err)
	}
	files := rankFiles{stdin: stdin, stdout: out[1], stderr: errp[1], pmi: -1}
	if f := srv.ClientFile(slot); f != nil {
		files.pmi = int(f.Fd())
	}
	err = sp.start(r, cpus, vars, files)
	unix.Close(out[1])
	unix.Close(errp[1])
	if err != nil {
		unix.Close(out[0])
		unix.Close(errp[0])
		return false, err
	}
	// After the hand-over, so that a failure to forward is the rank's
	// output lost, not a rank left unstarted; the pipes then break. The
	// rank runs either way (started), so the job waits for its exit.
	return true, fwd.add(slot, r, out[0], errp[0])
}

func describeExit(ws syscall.WaitStatus) (int, string) {
	switch {
	case ws.Signaled():
		sig := ws.Signal()
		return exitcode.Signal + int(sig), fmt.Sprintf("was killed by %s (signal %d)", unix.SignalName(sig), int(sig))
	case killedBy(ws) != 0:
		return ws.ExitStatus(), fmt.Sprintf("was killed by %s (it caught it and exited with status %d)", unix.SignalName(killedBy(ws)), ws.ExitStatus())
	case ws.ExitStatus() != 0:
		return ws.ExitStatus(), "exited with status " + strconv.Itoa(ws.ExitStatus())
	}
	return 0, "exited with status 0"
}

// killedBy returns the signal ws says the process died of, 0 for none: the
// signal that killed it, or SIGHUP, SIGINT or SIGTERM for an exit status of
// 128 plus it, as hpcbench's ranks (and shells) exit when they catch one.
func killedBy(ws syscall.WaitStatus) syscall.Signal {
	if ws.Signaled() {
		return ws.Signal()
	}
	if ws.Exited() {
		switch sig := syscall.Signal(ws.ExitStatus() - 128); sig {
		case syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM:
			return sig
		}
	}
	return 0
}

// rankName is "rank 3", or across hosts "rank 3 on host h2".
func (jb *job) rankName(r int) string {
	if jb.remote == nil || r < 0 || r >= jb.o.N {
		return "rank " + strconv.Itoa(r)
	}
	return "rank " + strconv.Itoa(r) + " on host " + jb.remote.host(r)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// failureFrom turns a PMI server error into a Failure.
func failureFrom(err error) *Failure {
	var re *pmi.RankError
	if errors.As(err, &re) {
		if re.Abort {
			return &Failure{Rank: re.Rank, Code: re.Code, Msg: "launch: " + re.Err.Error(), abort: true}
		}
		return &Failure{Rank: re.Rank, Code: exitcode.Failed, Msg: "launch: " + trimPMI(re.Err.Error()), fromPMI: true}
	}
	return &Failure{Rank: -1, Code: exitcode.Failed, Msg: fmt.Sprintf("launch: PMI server: %v", err)}
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
