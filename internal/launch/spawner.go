package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
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
//	launcher → spawner  "R <rank>[ <cpu>,<cpu>...]\x00KEY=VAL\x00..." with
//	                    SCM_RIGHTS [stdout, stderr] or [stdout, stderr, pmi];
//	                    the CPUs, if any, are the rank's affinity
//	spawner → launcher  "S <rank> <pid>"   started
//	                    "E <rank> <error>" could not start
//	                    "X <rank> <wait status>" exited and reaped
//
// The spawner's own argv is the rank's program and arguments, its working
// directory and environment are the ranks' (before their own variables), and
// fd 3 is its end of the socketpair.

// SpawnerCommand is the hidden subcommand that runs ServeSpawner.
const SpawnerCommand = "__spawn"

const maxSpawnMsg = 64 << 10

// spawner is the launcher's handle on its spawner process.
type spawner struct {
	cmd    *exec.Cmd
	fd     int // launcher's end of the socketpair
	events chan<- procEvent
	done   chan struct{} // closed when the reader has returned
	mu     sync.Mutex
	closed bool
}

type procEventKind int

const (
	evStarted procEventKind = iota
	evStartFailed
	evExited
	evSpawnerDied
)

// procEvent is what the spawner reports about one rank.
type procEvent struct {
	kind   procEventKind
	rank   int
	pid    int
	status syscall.WaitStatus
	err    error
}

// startSpawner starts the spawner for the job's program. Its events go to
// events, which must have room for every event of the job so the reader
// never blocks (two per rank, plus one).
func startSpawner(self, path string, argv []string, dir string, env []string, events chan<- procEvent) (*spawner, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("spawner socketpair: %w", err)
	}
	child := os.NewFile(uintptr(fds[1]), "spawner-ctl")
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
		unix.Close(fds[0])
		return nil, fmt.Errorf("start spawner %s: %w", self, err)
	}
	s := &spawner{cmd: cmd, fd: fds[0], events: events, done: make(chan struct{})}
	go s.read()
	return s, nil
}

// start asks the spawner to start rank r. files are [stdout, stderr] and
// optionally the rank's PMI socket; the caller closes them once start
// returns (the kernel holds them in flight).
func (s *spawner) start(r int, cpus string, extraEnv []string, files []*os.File) error {
	var b bytes.Buffer
	b.WriteString("R ")
	b.WriteString(strconv.Itoa(r))
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
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	err := unix.Sendmsg(s.fd, b.Bytes(), unix.UnixRights(fds...), nil, 0)
	if err != nil {
		return fmt.Errorf("send rank %d to the spawner: %w", r, err)
	}
	return nil
}

// read turns the spawner's messages into events until it closes its end.
func (s *spawner) read() {
	defer close(s.done)
	buf := make([]byte, 512)
	for {
		n, _, _, _, err := unix.Recvmsg(s.fd, buf, nil, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if !closed {
				if err == nil {
					err = errors.New("it exited")
				}
				s.events <- procEvent{kind: evSpawnerDied, rank: -1, err: err}
			}
			return
		}
		ev, perr := parseSpawnerMsg(buf[:n])
		if perr != nil {
			s.events <- procEvent{kind: evSpawnerDied, rank: -1, err: perr}
			return
		}
		s.events <- ev
	}
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
	unix.Shutdown(s.fd, unix.SHUT_WR)
	exited := make(chan struct{})
	go func() { s.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-exited
	}
	<-s.done
	unix.Close(s.fd)
}

// ServeSpawner is the spawner process's main loop: fd 3 is its socketpair
// end, path and argv the ranks' program. It returns when the launcher shuts
// the socket down and every rank it started has been reaped.
func ServeSpawner(path string, argv []string) error {
	const ctl = 3
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("spawner: open %s: %w", os.DevNull, err)
	}
	defer devnull.Close()
	base := os.Environ()
	var mu sync.Mutex // orders each "S" before the same rank's "X"
	ranks := map[int]int{}
	forked := make(chan struct{}, 1<<16)
	var reaper sync.WaitGroup
	reaper.Go(func() {
		for range forked {
			var ws unix.WaitStatus
			var pid int
			var err error
			for {
				pid, err = unix.Wait4(-1, &ws, 0, nil)
				if !errors.Is(err, unix.EINTR) {
					break
				}
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "hpcbench spawner: wait: %v\n", err)
				return
			}
			mu.Lock()
			r, ok := ranks[pid]
			delete(ranks, pid)
			if ok {
				send(ctl, "X "+strconv.Itoa(r)+" "+strconv.Itoa(int(ws)))
			}
			mu.Unlock()
		}
	})
	defer func() { close(forked); reaper.Wait() }()

	buf := make([]byte, maxSpawnMsg)
	oob := make([]byte, unix.CmsgSpace(3*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(ctl, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("spawner: read request: %w", err)
		}
		if n == 0 && oobn == 0 {
			return nil // the launcher is done
		}
		fds, err := rights(oob[:oobn])
		if err != nil {
			return fmt.Errorf("spawner: %w", err)
		}
		parts := bytes.Split(buf[:n], []byte{0})
		head := string(parts[0])
		rank, cpus, bind := strings.Cut(head[min(2, len(head)):], " ")
		r, err := strconv.Atoi(rank)
		var mask unix.CPUSet
		if err == nil && bind {
			mask, err = parseCPUs(cpus)
		}
		if len(head) < 3 || head[:2] != "R " || err != nil || (len(fds) != 2 && len(fds) != 3) {
			closeAll(fds)
			return fmt.Errorf("spawner: malformed request %q with %d files", head, len(fds))
		}
		env := make([]string, len(base), len(base)+len(parts)-1)
		copy(env, base)
		for _, p := range parts[1:] {
			env = append(env, string(p))
		}
		files := []uintptr{devnull.Fd(), uintptr(fds[0]), uintptr(fds[1])}
		if len(fds) == 3 {
			files = append(files, uintptr(fds[2])) // fd 3 = PMI_FD
		}
		mu.Lock()
		attr := &syscall.ProcAttr{
			Env:   env,
			Files: files,
			Sys: &syscall.SysProcAttr{
				Setpgid:   true,            // its own group, so teardown reaches its children
				Pdeathsig: syscall.SIGKILL, // and it dies with the spawner
			},
		}
		var pid int
		if bind {
			pid, err = forkExecBound(path, argv, attr, &mask)
		} else {
			pid, err = syscall.ForkExec(path, argv, attr)
		}
		if err != nil {
			send(ctl, "E "+strconv.Itoa(r)+" "+err.Error())
		} else {
			ranks[pid] = r
			send(ctl, "S "+strconv.Itoa(r)+" "+strconv.Itoa(pid))
			forked <- struct{}{}
		}
		mu.Unlock()
		closeAll(fds)
	}
}

func send(fd int, msg string) {
	for {
		err := unix.Sendmsg(fd, []byte(msg), nil, nil, 0)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

func rights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, fmt.Errorf("parse control message: %w", err)
	}
	var fds []int
	for _, m := range msgs {
		f, err := unix.ParseUnixRights(&m)
		if err != nil {
			closeAll(fds)
			return nil, fmt.Errorf("parse rights: %w", err)
		}
		fds = append(fds, f...)
	}
	return fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// forkExecBound is syscall.ForkExec with the child bound to mask: the
// calling thread takes mask for the fork, which the child inherits (so that
// the program sees its binding from its first instruction: the Go runtime
// sizes GOMAXPROCS from it), and gets its own back afterwards.
func forkExecBound(path string, argv []string, attr *syscall.ProcAttr, mask *unix.CPUSet) (int, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return 0, fmt.Errorf("reading the spawner's CPU affinity: %w", err)
	}
	if err := unix.SchedSetaffinity(0, mask); err != nil {
		return 0, fmt.Errorf("binding to CPUs: %w", err)
	}
	pid, err := syscall.ForkExec(path, argv, attr)
	if rerr := unix.SchedSetaffinity(0, &old); rerr != nil {
		// The rank is started; only ranks started later without a
		// binding would inherit this one.
		fmt.Fprintf(os.Stderr, "hpcbench spawner: restoring its CPU affinity: %v\n", rerr)
	}
	return pid, err
}
