package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/objstore/store"
)

// ChildCommand is the hidden subcommand that runs ServeChild: the engine
// a job's first rank on a host starts in a process of its own, as DAOS runs
// daos_engine apart from its clients. In a process of its own the engine
// is not bound to the rank's CPU (hpcbench launch --bind-to), shares no Go
// runtime with the rank's benchmark loop, and stops cleanly, closing the
// pool, when the rank dies.
const ChildCommand = "__dfs-engine"

// Engine child protocol, on the child's stdout: "ok", then its addresses
// one a line, then an empty line; or "busy: MESSAGE" (another engine
// holds the pool), or "error: MESSAGE". The child serves until its stdin
// reaches EOF.
const (
	childOK    = "ok"
	childBusy  = "busy: "
	childError = "error: "
)

// childStartTimeout bounds how long a rank waits for its engine's
// addresses: the engine opens the pool first, which replays its
// containers' logs.
const childStartTimeout = 2 * time.Minute

// childStopTimeout bounds how long a rank waits for its engine to close
// the pool after it told it to stop.
const childStopTimeout = 30 * time.Second

// maxChildStderr bounds what a rank keeps of its engine's stderr.
const maxChildStderr = 16 << 10

// ServeChild runs the engine of the pool in dir for the rank that started
// it (ChildCommand): it reports on stdout as the protocol above says,
// serves until stdin reaches EOF (the rank closed it, or died) or ctx
// ends, then stops the engine and returns Stop's error.
func ServeChild(ctx context.Context, dir string, stdin *os.File, stdout io.Writer) error {
	e, err := Start(ctx, dir, Options{})
	if errors.Is(err, store.ErrBusy) {
		fmt.Fprintln(stdout, childBusy+foldLine(err.Error()))
		return nil
	}
	if err != nil {
		fmt.Fprintln(stdout, childError+foldLine(err.Error()))
		return err
	}
	_, werr := fmt.Fprintf(stdout, "%s\n%s\n\n", childOK, strings.Join(e.Addrs(), "\n"))
	if werr == nil {
		werr = awaitEOF(ctx, stdin)
	}
	return errors.Join(werr, e.Stop())
}

// awaitEOF returns once f reaches EOF or ctx ends. f is read through the
// runtime's poller, so that ctx's end interrupts the read.
func awaitEOF(ctx context.Context, f *os.File) error {
	fd := int(f.Fd())
	if err := unix.SetNonblock(fd, true); err != nil {
		return fmt.Errorf("engine: stdin: %w", err)
	}
	in := os.NewFile(uintptr(fd), "stdin") // pollable now
	eof := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		io.Copy(io.Discard, in)
		close(eof)
	})
	select {
	case <-eof:
	case <-ctx.Done():
		in.SetReadDeadline(time.Now()) // ends the copy
	}
	wg.Wait()
	return nil
}

// foldLine folds s onto one line.
func foldLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Child is the engine a rank started in a process of its own.
type Child struct {
	cmd    *exec.Cmd
	stop   *os.File // the write end of its stdin: closing it stops the engine
	stderr *capped
	addrs  []string
	wg     sync.WaitGroup // the goroutines that wait for the child and read its stdout
	waited chan struct{}  // closed once cmd.Wait returned
	err    error          // cmd.Wait's
}

// StartChild starts self's ChildCommand on dir and waits for its
// addresses. A non-empty busy says why another engine holds the pool (then
// no child runs). The child may run on every CPU of the host, whatever
// this rank is bound to.
func StartChild(ctx context.Context, self, dir string) (c *Child, busy string, err error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, "", fmt.Errorf("start the engine: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, "", fmt.Errorf("start the engine: %w", err)
	}
	cmd := exec.Command(self, ChildCommand, dir)
	cmd.Env = childEnv(os.Environ())
	cmd.Stdin, cmd.Stdout = inR, outW
	c = &Child{cmd: cmd, stop: inW, stderr: &capped{max: maxChildStderr}, waited: make(chan struct{})}
	cmd.Stderr = c.stderr
	err = startUnbound(cmd)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, "", fmt.Errorf("start the engine %s %s: %w", self, ChildCommand, err)
	}
	c.wg.Go(func() {
		c.err = cmd.Wait()
		close(c.waited)
	})
	lines := make(chan []string, 1)
	c.wg.Go(func() { // until the child's stdout ends: at its exit
		defer outR.Close()
		var got []string
		sc := bufio.NewScanner(outR)
		for sc.Scan() && sc.Text() != "" {
			got = append(got, sc.Text())
		}
		lines <- got
		io.Copy(io.Discard, outR)
	})
	t := time.NewTimer(childStartTimeout)
	defer t.Stop()
	var got []string
	select {
	case got = <-lines:
	case <-t.C:
		err = fmt.Errorf("the engine (pid %d) did not report its addresses within %v", cmd.Process.Pid, childStartTimeout)
	case <-ctx.Done():
		err = fmt.Errorf("waiting for the engine (pid %d) to start: %w", cmd.Process.Pid, context.Cause(ctx))
	}
	if err == nil && len(got) > 1 && got[0] == childOK {
		c.addrs = got[1:]
		return c, "", nil
	}
	if err == nil && len(got) == 1 && strings.HasPrefix(got[0], childBusy) {
		busy = strings.TrimPrefix(got[0], childBusy)
	}
	serr := c.Close()
	switch {
	case busy != "":
		return nil, busy, nil
	case err != nil:
	case len(got) == 1 && strings.HasPrefix(got[0], childError):
		err = errors.New(strings.TrimPrefix(got[0], childError))
	case serr != nil:
		err = fmt.Errorf("the engine exited before it reported its addresses: %w", serr)
	default:
		err = fmt.Errorf("the engine (pid %d) exited before it reported its addresses", cmd.Process.Pid)
	}
	return nil, "", err
}

// Addrs returns the addresses the engine reported, shm first.
func (c *Child) Addrs() []string { return append([]string(nil), c.addrs...) }

// Pid returns the engine process's id.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Close tells the engine to stop and waits for it to close the pool; past
// childStopTimeout it kills it. It returns why the engine did not exit 0.
func (c *Child) Close() error {
	c.stop.Close()
	t := time.NewTimer(childStopTimeout)
	defer t.Stop()
	defer c.wg.Wait()
	select {
	case <-c.waited:
	case <-t.C:
		c.cmd.Process.Kill()
		<-c.waited
		return fmt.Errorf("the engine (pid %d) did not stop within %v of being told to, and was killed", c.cmd.Process.Pid, childStopTimeout)
	}
	if c.err != nil {
		if msg := foldLine(c.stderr.String()); msg != "" {
			return fmt.Errorf("the engine (pid %d): %w: %s", c.cmd.Process.Pid, c.err, msg)
		}
		return fmt.Errorf("the engine (pid %d): %w", c.cmd.Process.Pid, c.err)
	}
	return nil
}

// childEnv is the rank's environment without what makes a process a rank
// (its PMI variables) or sizes its runtime for one CPU (GOMAXPROCS, which
// hpcbench launch sets on a crowded host): the engine serves the host.
func childEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PMI_") || k == "GOMAXPROCS" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// startUnbound starts cmd from a thread that may run on every CPU this
// process may be given, so that the child inherits no binding of the rank
// (the kernel keeps only the CPUs of the process's cpuset).
func startUnbound(cmd *exec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, all unix.CPUSet
	widened := false
	if unix.SchedGetaffinity(0, &old) == nil {
		for i := range 64 * len(all) { // every CPU the mask can name
			all.Set(i)
		}
		widened = unix.SchedSetaffinity(0, &all) == nil
	}
	err := cmd.Start()
	if widened {
		unix.SchedSetaffinity(0, &old) // best effort: the thread is this rank's again
	}
	return err
}

// capped is an io.Writer that keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}
