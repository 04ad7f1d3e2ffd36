package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The spawner is a small child process of the launcher ("hpcbench
// __spawn") that forks the ranks. Forking from the launcher itself costs
// O(open files) per rank, because the kernel copies the file table at fork
// and closes every close-on-exec file at exec, and the launcher holds a
// socket and two pipes per rank: starting N ranks would cost O(N²). The
// spawner holds only the few files of the rank it is starting, so each fork
// costs what a posix_spawn loop pays. It is also the seed of the per-node
// proxy of the scale plan.
//
// Wire protocol over a SOCK_SEQPACKET socketpair, one message per packet:
//
//	launcher → spawner  "R <rank> <files>[ <cpu>,<cpu>...]\x00KEY=VAL\x00..."
//	                    with SCM_RIGHTS one descriptor per letter of <files>,
//	                    in its order: i (stdin; /dev/null without it), o
//	                    (stdout), e (stderr), p (PMI socket, fd 3); o and e
//	                    are required. The CPUs, if any, are the affinity
//	spawner → launcher  records, one or more per packet, each ending in a
//	                    newline but the last:
//	                    "S <rank> <pid>"   started
//	                    "E <rank> <error>" could not start
//	                    "X <rank> <wait status>" exited and reaped
//	                    "T <rank> <signal>" stopped by the signal
//	                    "C <rank> 0"       continued after a stop
//
// The spawner's own argv is the rank's program and arguments, its working
// directory and environment are the ranks' (before their own variables), and
// fd 3 is its end of the socketpair.

// SpawnerCommand is the hidden subcommand that runs ServeSpawner.
const SpawnerCommand = "__spawn"

const maxSpawnMsg = 64 << 10

// maxSpawnerReport bounds a packet of records from the spawner.
const maxSpawnerReport = 16 << 10

// spawner is the launcher's handle on its spawner process, or on a proxy's
// spawner served in-process (startSpawnerHere: cmd is nil).
type spawner struct {
	cmd *exec.Cmd
	// here, for a spawner served in-process, is closed when it returns,
	// with hereErr its error.
	here    chan struct{}
	hereErr error
	// ctl is the launcher's end of the socketpair, non-blocking and served
	// by the runtime's poller: a goroutine blocked in recvmsg holds its P
	// in a system call, and with GOMAXPROCS 2 two such goroutines (this
	// reader and another) keep sysmon waking every 20 µs to retake them,
	// which was a tenth of the launcher's CPU time.
	ctl    *os.File
	rc     syscall.RawConn
	events chan<- procEvent
	done   chan struct{} // closed when the reader has returned
	mu     sync.Mutex
	closed bool

	waitOnce sync.Once
	exited   chan struct{} // closed once the spawner is reaped (see wait)
}

type procEventKind int

const (
	evStarted procEventKind = iota
	evStartFailed
	evExited
	evSpawnerDied
	evStopped   // the rank is stopped; sig says by what
	evContinued // the rank runs again after a stop
	// evHostLost: a host of a job across hosts is lost (its proxy, its
	// link or its remote shell); lost lists its ranks, err says why.
	evHostLost
)

// procEvent is what the spawner reports about one rank.
type procEvent struct {
	kind   procEventKind
	rank   int
	pid    int
	status syscall.WaitStatus
	sig    syscall.Signal // evStopped
	err    error
	lost   []int // evHostLost
}

// startSpawner starts the spawner for the job's program. Its events go to
// events, which must have room for every start, exit and failure of the job
// so the reader never blocks (two per rank, plus one); stops and continues
// take what room is left.
func startSpawner(self, path string, argv []string, dir string, env []string, events chan<- procEvent) (*spawner, error) {
	ctl, rc, child, err := spawnerPair(false)
	if err != nil {
		return nil, err
	}
	defer child.Close()
	cmd := &exec.Cmd{
		Path:       self,
		Args:       append([]string{"hpcbench", SpawnerCommand, path}, argv...),
		Dir:        dir,
		Env:        env,
		Stdin:      nil,
		Stdout:     os.Stderr, // the spawner prints nothing unless it breaks
		Stderr:     os.Stderr,
		ExtraFiles: []*os.File{child},
		SysProcAttr: &syscall.SysProcAttr{
			Pdeathsig: syscall.SIGKILL,
		},
	}
	if err := cmd.Start(); err != nil {
		ctl.Close()
		return nil, fmt.Errorf("start spawner %s: %w", self, err)
	}
	s := &spawner{cmd: cmd, ctl: ctl, rc: rc, events: events, done: make(chan struct{})}
	go s.read()
	return s, nil
}

// startSpawnerHere serves the spawner protocol in this process, on a
// goroutine, for a proxy: its ranks are then its own children, forked
// from a process that holds few files (the O(N²) of forking from the
// launcher does not arise), and each host of a job across hosts starts one
// process fewer (a Go process is about 4 ms of CPU to start; 10 simulated
// hosts took twice Hydra's time with a spawner process each). The
// goroutine keeps its thread (LockOSThread) for its life: the ranks'
// Pdeathsig is the death of the thread that forked them, and once it
// returns they die with it, as with the spawner process. The process must
// have no children but the ranks: the spawner reaps any.
func startSpawnerHere(path string, argv []string, dir string, env []string, events chan<- procEvent) (*spawner, error) {
	ctl, rc, child, err := spawnerPair(true)
	if err != nil {
		return nil, err
	}
	s := &spawner{ctl: ctl, rc: rc, events: events, done: make(chan struct{}), here: make(chan struct{})}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		defer close(s.here)
		defer child.Close()
		s.hereErr = serveSpawner(child, path, argv, env, dir)
	}()
	go s.read()
	return s, nil
}

// spawnerPair makes the spawner protocol's socketpair: ctl, the
// launcher's or proxy's end, non-blocking and served by the runtime's
// poller (rc), and child, the spawner's end, non-blocking too when the
// spawner runs in this process (here), blocking for a spawner process
// (which makes it non-blocking itself).
func spawnerPair(here bool) (ctl *os.File, rc syscall.RawConn, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("spawner socketpair: %w", err)
	}
	nonblock := fds[:1]
	if here {
		nonblock = fds[:]
	}
	for _, fd := range nonblock {
		if err := unix.SetNonblock(fd, true); err != nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
			return nil, nil, nil, fmt.Errorf("spawner socketpair: set O_NONBLOCK: %w", err)
		}
	}
	ctl = os.NewFile(uintptr(fds[0]), "spawner-ctl-launcher")
	child = os.NewFile(uintptr(fds[1]), "spawner-ctl")
	if rc, err = ctl.SyscallConn(); err != nil {
		ctl.Close()
		child.Close()
		return nil, nil, nil, fmt.Errorf("spawner socketpair: %w", err)
	}
	return ctl, rc, child, nil
}

// rankFiles are the descriptors a rank starts with, -1 for none: stdin
// (/dev/null when none), stdout, stderr and its PMI socket (fd 3).
type rankFiles struct{ stdin, stdout, stderr, pmi int }

// start asks the spawner to start rank r with files; the caller closes them
// once start returns (the kernel holds them in flight).
func (s *spawner) start(r int, cpus string, extraEnv []string, files rankFiles) error {
	var b bytes.Buffer
	b.WriteString("R ")
	b.WriteString(strconv.Itoa(r))
	b.WriteByte(' ')
	fds := make([]int, 0, 4)
	for _, f := range []struct {
		letter byte
		fd     int
	}{{'i', files.stdin}, {'o', files.stdout}, {'e', files.stderr}, {'p', files.pmi}} {
		if f.fd >= 0 {
			b.WriteByte(f.letter)
			fds = append(fds, f.fd)
		}
	}
	if cpus != "" {
		b.WriteByte(' ')
		b.WriteString(cpus)
	}
	for _, kv := range extraEnv {
		b.WriteByte(0)
		b.WriteString(kv)
	}
	if b.Len() > maxSpawnMsg {
		return fmt.Errorf("rank %d: environment of %d bytes exceeds %d", r, b.Len(), maxSpawnMsg)
	}
	oob := unix.UnixRights(fds...)
	var err error
	werr := s.rc.Write(func(fd uintptr) bool {
		for {
			err = unix.Sendmsg(int(fd), b.Bytes(), oob, nil, 0)
			switch {
			case errors.Is(err, unix.EINTR):
				continue
			case errors.Is(err, unix.EAGAIN):
				return false // a full socket: wait until it drains
			}
			return true
		}
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("send rank %d to the spawner: %w", r, err)
	}
	return nil
}

// read turns the spawner's messages into events until it closes its end.
// It drains every message queued before it waits again.
func (s *spawner) read() {
	defer close(s.done)
	buf := make([]byte, maxSpawnerReport)
	var end error     // why the stream ended; nil: the spawner closed its end
	reported := false // a malformed message ended it, already reported
	rerr := s.rc.Read(func(fd uintptr) bool {
		for {
			n, _, _, _, err := unix.Recvmsg(int(fd), buf, nil, 0)
			switch {
			case errors.Is(err, unix.EINTR):
				continue
			case errors.Is(err, unix.EAGAIN):
				return false // wait for the next message
			case err != nil:
				end = err
				return true
			case n == 0:
				return true
			}
			for rec := range bytes.Lines(buf[:n]) {
				ev, perr := parseSpawnerMsg(bytes.TrimSuffix(rec, []byte("\n")))
				if perr != nil {
					s.events <- procEvent{kind: evSpawnerDied, rank: -1, err: perr}
					reported = true
					return true
				}
				if ev.kind == evStopped || ev.kind == evContinued {
					// Stops are not bounded by the ranks' count: one
					// that finds no room is dropped rather than
					// stall the reader (the watchdog reads /proc
					// before it acts on a stop).
					select {
					case s.events <- ev:
					default:
					}
					continue
				}
				s.events <- ev
			}
		}
	})
	if end == nil {
		end = rerr
	}
	if reported {
		return
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if !closed {
		if end == nil {
			end = s.death()
		}
		s.events <- procEvent{kind: evSpawnerDied, rank: -1, err: end}
	}
}

// death says how the spawner ended, once its socket closed while the
// launcher still needed it: "was killed by signal 9 (SIGKILL)", or "exited"
// when its status does not come within a second.
func (s *spawner) death() error {
	if s.cmd == nil {
		<-s.wait()
		if s.hereErr != nil {
			return fmt.Errorf("the in-process spawner failed: %w", s.hereErr)
		}
		return errors.New("the in-process spawner ended")
	}
	select {
	case <-s.wait():
	case <-time.After(time.Second):
		return fmt.Errorf("spawner (pid %d) closed its socket", s.cmd.Process.Pid)
	}
	ws, _ := s.cmd.ProcessState.Sys().(syscall.WaitStatus)
	_, how := describeExit(ws)
	return fmt.Errorf("pid %d %s", s.cmd.Process.Pid, how)
}

// wait reaps the spawner, once; the channel is closed when it is reaped.
// It is not started before it is needed: a goroutine blocked in wait4 for
// the whole job would cost what the non-blocking sockets save.
func (s *spawner) wait() <-chan struct{} {
	s.waitOnce.Do(func() {
		if s.cmd == nil {
			s.exited = s.here
			return
		}
		s.exited = make(chan struct{})
		go func() { s.cmd.Wait(); close(s.exited) }()
	})
	return s.exited
}

func parseSpawnerMsg(b []byte) (procEvent, error) {
	f := bytes.SplitN(b, []byte(" "), 3)
	if len(f) != 3 || len(f[0]) != 1 {
		return procEvent{}, fmt.Errorf("spawner sent a malformed message %q", b)
	}
	r, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return procEvent{}, fmt.Errorf("spawner sent a malformed message %q", b)
	}
	ev := procEvent{rank: r}
	switch f[0][0] {
	case 'S':
		ev.kind = evStarted
		ev.pid, err = strconv.Atoi(string(f[2]))
	case 'E':
		ev.kind = evStartFailed
		ev.err = errors.New(string(f[2]))
	case 'X':
		ev.kind = evExited
		var st int
		st, err = strconv.Atoi(string(f[2]))
		ev.status = syscall.WaitStatus(st)
	case 'T':
		ev.kind = evStopped
		var sig int
		sig, err = strconv.Atoi(string(f[2]))
		ev.sig = syscall.Signal(sig)
	case 'C':
		ev.kind = evContinued
	default:
		err = errors.New("unknown kind")
	}
	if err != nil {
		return procEvent{}, fmt.Errorf("spawner sent a malformed message %q", b)
	}
	return ev, nil
}

// close tells the spawner no more ranks are coming and waits for it to
// exit; every rank must have been reported exited first. A spawner that
// does not exit within a few seconds is killed.
func (s *spawner) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.rc.Control(func(fd uintptr) { unix.Shutdown(int(fd), unix.SHUT_WR) })
	exited := s.wait()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		if s.cmd == nil {
			// An in-process spawner still waiting for a rank: closing
			// the socket ends the reader; the proxy's exit, next, ends
			// the rest.
			s.ctl.Close()
			<-s.done
			return
		}
		s.cmd.Process.Kill()
		<-exited
	}
	<-s.done
	s.ctl.Close()
}
