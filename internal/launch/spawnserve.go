package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// spawnRequest is one "R" message of the spawner protocol (see spawner.go)
// with its descriptors.
type spawnRequest struct {
	rank  int
	files rankFiles
	bind  bool
	mask  unix.CPUSet
	env   []string // the rank's own variables
}

// parseSpawnRequest parses msg, whose SCM_RIGHTS carried fds. On error the
// caller still owns (and closes) fds.
func parseSpawnRequest(msg []byte, fds []int) (spawnRequest, error) {
	req := spawnRequest{files: rankFiles{stdin: -1, stdout: -1, stderr: -1, pmi: -1}}
	parts := bytes.Split(msg, []byte{0})
	head := string(parts[0])
	bad := func(why string) (spawnRequest, error) {
		return spawnRequest{}, fmt.Errorf("malformed request %q with %d files: %s", head, len(fds), why)
	}
	rest, ok := strings.CutPrefix(head, "R ")
	if !ok {
		return bad("not R")
	}
	f := strings.Split(rest, " ")
	if len(f) < 2 || len(f) > 3 {
		return bad("want rank, files and optional CPUs")
	}
	r, err := strconv.Atoi(f[0])
	if err != nil || r < 0 {
		return bad("rank")
	}
	req.rank = r
	letters := f[1]
	if len(letters) != len(fds) {
		return bad("one descriptor per letter")
	}
	slots := map[byte]*int{'i': &req.files.stdin, 'o': &req.files.stdout, 'e': &req.files.stderr, 'p': &req.files.pmi}
	last := -1
	for i := range len(letters) {
		slot := slots[letters[i]]
		pos := strings.IndexByte("ioep", letters[i])
		if slot == nil || pos <= last {
			return bad("files must be a subsequence of ioep")
		}
		last = pos
		*slot = fds[i]
	}
	if req.files.stdout < 0 || req.files.stderr < 0 {
		return bad("stdout and stderr are required")
	}
	if len(f) == 3 {
		if req.mask, err = parseCPUs(f[2]); err != nil {
			return bad(err.Error())
		}
		req.bind = true
	}
	for _, p := range parts[1:] {
		req.env = append(req.env, string(p))
	}
	return req, nil
}

// ServeSpawner is the spawner process's main loop: fd 3 is its socketpair
// end, path and argv the ranks' program. It returns when the launcher shuts
// the socket down and every rank it started has been reaped.
//
// The socket is non-blocking and served by the runtime's poller, so that
// of its two goroutines only the reaper sits in a blocking system call
// (wait4): with both blocked, sysmon woke every 20 µs to retake their Ps.
func ServeSpawner(path string, argv []string) error {
	// One P: the spawner's two goroutines take turns anyway (the loop
	// forks, the reaper waits), and a second P only brought the
	// scheduler's spinning threads and hand-offs between them onto CPUs
	// the ranks being started need. launch -n 256 -- true, 30 interleaved
	// pairs: wall 0.92x, CPU 0.90x; -n 1024, 10 pairs: 0.94x, 0.93x.
	runtime.GOMAXPROCS(1)
	if err := unix.SetNonblock(3, true); err != nil {
		return fmt.Errorf("spawner: control socket (fd 3): %w", err)
	}
	ctl := os.NewFile(3, "spawner-ctl")
	defer ctl.Close()
	return serveSpawner(ctl, path, argv, os.Environ(), "")
}

// serveSpawner serves the spawner protocol on ctl, a non-blocking
// SOCK_SEQPACKET socket, until the other end shuts it: it forks path with
// argv for every request, in base's environment (before the rank's own
// variables) and in dir ("": this process's), and reports their starts,
// stops and deaths. The spawner process runs it (ServeSpawner), and a
// proxy in-process (startSpawnerHere), whose only children are its ranks:
// it reaps any child of the process.
func serveSpawner(ctl *os.File, path string, argv, base []string, dir string) error {
	rc, err := ctl.SyscallConn()
	if err != nil {
		return fmt.Errorf("spawner: control socket: %w", err)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("spawner: open %s: %w", os.DevNull, err)
	}
	defer devnull.Close()
	var mu sync.Mutex // orders each "S" before the same rank's "X"; guards ranks and started
	ranks := map[int]int{}
	// started holds the "S" records not yet sent. While requests keep
	// coming, the spawner sends them together when it runs out of
	// requests (or of room), not one packet, and one wake-up of the
	// launcher, per rank; a rank's "X" goes after its "S" all the same.
	var started []byte
	flush := func() { // with mu held
		if len(started) > 0 {
			send(rc, string(started))
			started = started[:0]
		}
	}
	// The reaper sits in a blocking wait4, so that it reports each rank the
	// moment it dies, in the order they die: the first death names the
	// job's failure, and a peer that noticed it and exited 1 must not be
	// reported first. (Reaping on SIGCHLD with WNOHANG, on one P, saved a
	// third of the spawner's system calls, but reaped the dead oldest
	// first, and TestCollRankKilled named the messenger.)
	forked := make(chan struct{}, 1<<16)
	var reaper sync.WaitGroup
	//
	// WUNTRACED and WCONTINUED make the same wait4 report a rank stopped
	// ("T", for the launcher's watchdog) and continued ("C") at no cost:
	// such a report consumes no fork, and the wait goes on for a death.
	reaper.Go(func() {
		for range forked {
			for {
				var ws unix.WaitStatus
				var pid int
				var err error
				for {
					pid, err = unix.Wait4(-1, &ws, unix.WUNTRACED|unix.WCONTINUED, nil)
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
				var rec string
				switch {
				case ws.Stopped():
					rec = "T " + strconv.Itoa(r) + " " + strconv.Itoa(int(ws.StopSignal()))
				case ws.Continued():
					rec = "C " + strconv.Itoa(r) + " 0"
				default:
					delete(ranks, pid)
					rec = "X " + strconv.Itoa(r) + " " + strconv.Itoa(int(ws))
				}
				if ok {
					flush()
					send(rc, rec)
				}
				mu.Unlock()
				if !ws.Stopped() && !ws.Continued() {
					break // one death per fork
				}
			}
		}
	})
	defer func() { close(forked); reaper.Wait() }()

	buf := make([]byte, maxSpawnMsg)
	oob := make([]byte, unix.CmsgSpace(4*4))
	for {
		var n, oobn int
		var rerr error
		idle := false // no request is waiting: time to send the "S" records
		err := rc.Read(func(fd uintptr) bool {
			for {
				n, oobn, _, _, rerr = unix.Recvmsg(int(fd), buf, oob, unix.MSG_CMSG_CLOEXEC)
				switch {
				case errors.Is(rerr, unix.EINTR):
					continue
				case errors.Is(rerr, unix.EAGAIN):
					mu.Lock()
					idle = len(started) > 0
					mu.Unlock()
					return idle // wait for a request, unless there is news to send first
				}
				return true
			}
		})
		if idle {
			mu.Lock()
			flush()
			mu.Unlock()
			continue
		}
		if err == nil {
			err = rerr
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
		req, err := parseSpawnRequest(buf[:n], fds)
		if err != nil {
			closeAll(fds)
			return fmt.Errorf("spawner: %w", err)
		}
		env := make([]string, len(base), len(base)+len(req.env))
		copy(env, base)
		env = append(env, req.env...)
		stdin := devnull.Fd()
		if req.files.stdin >= 0 {
			stdin = uintptr(req.files.stdin)
		}
		files := []uintptr{stdin, uintptr(req.files.stdout), uintptr(req.files.stderr)}
		if req.files.pmi >= 0 {
			files = append(files, uintptr(req.files.pmi)) // fd 3 = PMI_FD
		}
		r := req.rank
		mu.Lock()
		attr := &syscall.ProcAttr{
			Dir:   dir,
			Env:   env,
			Files: files,
			Sys: &syscall.SysProcAttr{
				// Its own session, as Hydra's ranks: its own process
				// group, so teardown reaches its children, and under
				// sched autogroup its own share of the CPU against
				// other sessions, not one share for the whole job
				// (MPI_Init of 16 ranks on 2 busy cores: 1.9 s in
				// the caller's session, against Hydra's 0.77 s).
				Setsid:    true,
				Pdeathsig: syscall.SIGKILL, // and it dies with the spawner
			},
		}
		var pid int
		if req.bind {
			pid, err = forkExecBound(path, argv, attr, &req.mask)
		} else {
			pid, err = syscall.ForkExec(path, argv, attr)
		}
		if err != nil {
			flush()
			send(rc, "E "+strconv.Itoa(r)+" "+strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			ranks[pid] = r
			started = append(started, "S "+strconv.Itoa(r)+" "+strconv.Itoa(pid)+"\n"...)
			if len(started) > maxSpawnerReport/2 {
				flush()
			}
			forked <- struct{}{}
		}
		mu.Unlock()
		closeAll(fds)
	}
}

// send writes one message to the launcher, waiting while the socket is full.
// A spawner that cannot (the launcher is gone, or the socket failed) would
// leave the launcher waiting for reports that never come, so it says why
// on stderr and exits: its ranks die with it (Pdeathsig) and the launcher
// sees the spawner end.
func send(rc syscall.RawConn, msg string) {
	var serr error
	err := rc.Write(func(fd uintptr) bool {
		for {
			serr = unix.Sendmsg(int(fd), []byte(msg), nil, nil, 0)
			switch {
			case errors.Is(serr, unix.EINTR):
				continue
			case errors.Is(serr, unix.EAGAIN):
				return false
			}
			return true
		}
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "hpcbench: spawner: report to the launcher failed: %v\n", err)
		os.Exit(1)
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
