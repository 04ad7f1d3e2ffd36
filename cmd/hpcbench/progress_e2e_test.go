package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// TestProgressBarOnTerminal runs an IOR write that takes about 3 s (24
// DUMMY transfers of 125 ms) twice: with stderr on a pseudo-terminal, where
// rank 0 draws the bar after its 2 s delay, and with stderr in a buffer,
// where nothing is drawn. stdout is a pipe both times and carries the same
// report: identical but for the figures and times the run measured.
func TestProgressBarOnTerminal(t *testing.T) {
	args := []string{"ior", "-a", "DUMMY", "--dummy.delay-xfer=125000", "-b", "24m", "-t", "1m", "-w", "-o", t.TempDir() + "/f"}

	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	var onTTY, screen bytes.Buffer
	cmd := exec.Command(hpcbench, args...)
	cmd.Stdout, cmd.Stderr = &onTTY, tty
	read := make(chan struct{})
	go func() { io.Copy(&screen, ptmx); close(read) }()
	err = cmd.Run()
	tty.Close()
	<-read // EIO once the last writer is gone
	if err != nil {
		t.Fatalf("ior with stderr on a terminal: %v\nstdout:\n%s\nterminal:\n%q", err, onTTY.String(), screen.String())
	}
	for _, w := range []string{"write iter 0", "MiB", "ETA"} {
		if !strings.Contains(screen.String(), w) {
			t.Errorf("terminal lacks %q: %q", w, screen.String())
		}
	}

	var plain, stderr bytes.Buffer
	cmd = exec.Command(hpcbench, args...)
	cmd.Stdout, cmd.Stderr = &plain, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ior with stderr in a buffer: %v\nstderr:\n%s", err, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr off a terminal: %q, want nothing", stderr.String())
	}
	a, b := maskFigures(onTTY.String()), maskFigures(plain.String())
	if a != b {
		t.Errorf("stdout differs with the bar on stderr (figures and dates masked):\n%s\nwithout:\n%s", a, b)
	}
}

// figures matches what differs between two runs of one command: the
// figures measured and the dates.
var figures = regexp.MustCompile(`[0-9]+(\.[0-9]+)?|(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} +[0-9]+`)

// maskFigures replaces every figure and date of out with N.
func maskFigures(out string) string { return figures.ReplaceAllString(out, "N") }

// progressIOR is an IOR write of about 3 s on 2 ranks (30 DUMMY
// transfers of 100 ms each), writing into dir.
func progressIOR(dir string) []string {
	return []string{"ior", "-a", "DUMMY", "--dummy.delay-xfer=100000", "-b", "30m", "-t", "1m", "-w", "-o", dir + "/f"}
}

// TestProgressLines: --progress prints plain lines on stderr, where no
// terminal is, under every launcher: hpcbench launch's own (the
// launcher's lines, the ranks' none, whether they were given --progress
// or not), the ranks' --progress under hpcbench launch without it, and
// under MPICH's mpiexec; never more than one line per interval (so never
// one per rank), and stdout the same as without, but for the figures
// measured.
func TestProgressLines(t *testing.T) {
	dir := t.TempDir()
	ior := progressIOR(dir)
	ranksProgress := append([]string{ior[0], "--progress-interval", "1s"}, ior[1:]...)
	// launch is hpcbench launch with largs, running the ranks' command rank.
	launch := func(rank []string, largs ...string) []string {
		return append(append(append([]string{"launch"}, largs...), "-n", "2", "--", "hpcbench"), rank...)
	}
	run := func(t *testing.T, name string, args ...string) testenv.Result {
		t.Helper()
		r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, name, args...)
		if r.Code != 0 || r.TimedOut || r.Leftovers {
			t.Fatalf("%s %q: exit %d (timed out %v, leftovers %v)\nstdout:\n%s\nstderr:\n%s", name, args, r.Code, r.TimedOut, r.Leftovers, r.Stdout, r.Stderr)
		}
		return r
	}
	plain := run(t, hpcbench, launch(ior)...)
	if plain.Stderr != "" {
		t.Errorf("without --progress stderr is %q, want nothing", plain.Stderr)
	}
	type launcher struct {
		name string
		cmd  func() (string, []string)
	}
	launchers := []launcher{
		{"launch --progress", func() (string, []string) { return hpcbench, launch(ior, "--progress-interval", "1s") }},
		{"launch --progress, ranks --progress", func() (string, []string) {
			return hpcbench, launch(ranksProgress, "--progress-interval", "1s")
		}},
		{"ranks --progress under launch", func() (string, []string) { return hpcbench, launch(ranksProgress) }},
		{"mpiexec", func() (string, []string) {
			mpiexec := testenv.RequireTool(t, "mpiexec.mpich", "mpiexec.hydra", "mpiexec")
			return mpiexec, append([]string{"-n", "2", hpcbench}, ranksProgress...)
		}},
	}
	for _, l := range launchers {
		t.Run(l.name, func(t *testing.T) {
			name, args := l.cmd()
			r := run(t, name, args...)
			lines := strings.Split(strings.TrimSuffix(r.Stderr, "\n"), "\n")
			for _, line := range lines {
				if !strings.HasPrefix(line, "hpcbench: progress: write iter 0: ") || !strings.Contains(line, " of 30.0 MiB (") {
					t.Errorf("stderr line %q is not a progress line of the write", line)
				}
			}
			if max := int(r.Elapsed/time.Second) + 1; len(lines) < 2 || len(lines) > max {
				t.Errorf("%d progress lines in %v, want 2 to %d (one a second):\n%s", len(lines), r.Elapsed, max, r.Stderr)
			}
			if a, b := maskFigures(r.Stdout), maskFigures(plain.Stdout); a != b {
				t.Errorf("stdout with --progress (figures masked):\n%s\nwithout:\n%s", a, b)
			}
		})
	}
}

// TestLaunchProgressBar: hpcbench launch with its stderr and stdout on a
// pseudo-terminal draws one bar for the job (its ranks' stderr are
// pipes, where they draw nothing), lifts it for every line of the ranks'
// output, and erases it at the end: the screen shows the report alone,
// the same as without a terminal but for the figures.
func TestLaunchProgressBar(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"launch", "-n", "2", "--", "hpcbench"}, progressIOR(dir)...)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
		t.Fatalf("set the pseudo-terminal's size: %v", err)
	}
	var raw bytes.Buffer
	read := make(chan struct{})
	go func() { io.Copy(&raw, ptmx); close(read) }()
	cmd := exec.CommandContext(testenv.Context(t, 2*time.Minute), hpcbench, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, tty, tty
	cmd.Env = append(os.Environ(), noPMIEnv...)
	err = cmd.Run()
	tty.Close()
	<-read // EIO once the last writer is gone
	if err != nil {
		t.Fatalf("launch on a terminal: %v\nterminal:\n%q", err, raw.String())
	}
	if !strings.Contains(raw.String(), "write iter 0 ") || !strings.Contains(raw.String(), "MiB/30.0 MiB") {
		t.Errorf("the job's bar was never drawn: %q", raw.String())
	}
	plain := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, hpcbench, args...)
	if plain.Code != 0 {
		t.Fatalf("launch off a terminal: exit %d\n%s", plain.Code, plain.Stderr)
	}
	// The screen has no trailing blanks, nor the report.
	var report []string
	for _, l := range strings.Split(strings.TrimRight(plain.Stdout, "\n"), "\n") {
		report = append(report, strings.TrimRight(l, " "))
	}
	screen := strings.TrimRight(strings.Join(testenv.Screen(raw.String()), "\n"), "\n")
	if a, b := maskFigures(screen), maskFigures(strings.Join(report, "\n")); a != b {
		t.Errorf("the terminal shows (figures masked):\n%s\nwant the report alone:\n%s\nraw: %q", a, b, raw.String())
	}
}
