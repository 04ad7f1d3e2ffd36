package main

import (
	"bytes"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"
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
	figures := regexp.MustCompile(`[0-9]+(\.[0-9]+)?|(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} +[0-9]+`)
	a := figures.ReplaceAllString(onTTY.String(), "N")
	b := figures.ReplaceAllString(plain.String(), "N")
	if a != b {
		t.Errorf("stdout differs with the bar on stderr (figures and dates masked):\n%s\nwithout:\n%s", a, b)
	}
}
