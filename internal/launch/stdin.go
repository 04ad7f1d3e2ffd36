package launch

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// stdinCopy forwards the launcher's stdin to rank 0, as Hydra does; the
// other ranks get /dev/null. It copies through a pipe of its own whose
// write end is non-blocking, and it waits in poll(2) on the launcher's
// stdin or that pipe, and on a wake-up eventfd: a rank 0 that never reads,
// a stdin that never ends (an idle terminal, a pipe nobody closes) or a
// full pipe never keep the job or the launcher from ending. The launcher's
// stdin itself is left as it is (blocking, say): its file description may
// be shared with the shell, which setting O_NONBLOCK would break.
type stdinCopy struct {
	in   int // the launcher's stdin
	out  int // write end of rank 0's stdin pipe
	wake int // eventfd: stop
	done chan struct{}
}

// forwardsStdin reports whether f is worth forwarding: not /dev/null (rank
// 0 then gets /dev/null directly), and not a terminal whose foreground
// process group is not ours (reading it would stop the launcher with
// SIGTTIN).
func forwardsStdin(f *os.File) bool {
	if f == nil {
		return false
	}
	fd := int(f.Fd())
	var st, null unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return false // closed
	}
	if st.Mode&unix.S_IFMT == unix.S_IFCHR && unix.Stat(os.DevNull, &null) == nil && st.Rdev == null.Rdev {
		return false
	}
	if pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && pgrp != unix.Getpgrp() {
		return false // a terminal, and we are in the background
	}
	return true
}

// newStdinCopy makes rank 0's stdin pipe and returns the copier and the
// pipe's read end, for the spawner; the caller closes that end once the
// rank has it. start begins the copying.
func newStdinCopy(in *os.File) (*stdinCopy, int, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, -1, fmt.Errorf("stdin pipe: %w", err)
	}
	if err := unix.SetNonblock(p[1], true); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, -1, fmt.Errorf("stdin pipe: set O_NONBLOCK: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, -1, fmt.Errorf("stdin forwarder: eventfd: %w", err)
	}
	return &stdinCopy{in: int(in.Fd()), out: p[1], wake: wake, done: make(chan struct{})}, p[0], nil
}

func (c *stdinCopy) start() { go c.loop() }

// stop ends the copying, if start began it, and frees the copier.
func (c *stdinCopy) stop(started bool) {
	if started {
		one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
		for {
			if _, err := unix.Write(c.wake, one); !errors.Is(err, unix.EINTR) {
				break
			}
		}
		<-c.done
	} else {
		unix.Close(c.out)
	}
	unix.Close(c.wake)
}

// loop copies until stdin ends (rank 0 then reads EOF), rank 0 closes its
// stdin or exits, or stop; it closes the pipe's write end when it returns.
func (c *stdinCopy) loop() {
	defer close(c.done)
	defer unix.Close(c.out)
	buf := make([]byte, 64<<10)
	var pending []byte // read from stdin, not yet written to rank 0
	for {
		fds := []unix.PollFd{{Fd: int32(c.wake), Events: unix.POLLIN}, {}}
		if len(pending) > 0 {
			fds[1] = unix.PollFd{Fd: int32(c.out), Events: unix.POLLOUT}
		} else {
			fds[1] = unix.PollFd{Fd: int32(c.in), Events: unix.POLLIN}
		}
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		if fds[0].Revents != 0 {
			return // stop
		}
		if fds[1].Revents == 0 {
			continue
		}
		if len(pending) > 0 {
			n, err := unix.Write(c.out, pending)
			if n > 0 {
				pending = pending[n:]
			}
			if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
				return // EPIPE: rank 0 closed its stdin or exited
			}
			continue
		}
		n, err := unix.Read(c.in, buf)
		switch {
		case n > 0:
			pending = buf[:n]
		case err == nil, !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR):
			return // EOF, or a stdin that cannot be read: rank 0 sees EOF
		}
	}
}
