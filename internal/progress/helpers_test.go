package progress_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// fakeClock is a Clock whose time moves only in Advance. Its tickers send
// without a buffer, so Advance returns once the bar's goroutine has taken
// the tick, which has then finished drawing the previous one.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	tickers []*fakeTicker
}

type fakeTicker struct {
	c       chan time.Time
	every   time.Duration
	next    time.Time
	stopped bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTicker(d time.Duration) (<-chan time.Time, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTicker{c: make(chan time.Time), every: d, next: c.now.Add(d)}
	c.tickers = append(c.tickers, t)
	return t.c, func() {
		c.mu.Lock()
		t.stopped = true
		c.mu.Unlock()
	}
}

// Advance moves the clock on by d and delivers one tick to every ticker
// that came due, waiting until it is received.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	now := c.now
	var due []*fakeTicker
	for _, t := range c.tickers {
		if !t.stopped && !now.Before(t.next) {
			for !now.Before(t.next) {
				t.next = t.next.Add(t.every)
			}
			due = append(due, t)
		}
	}
	c.mu.Unlock()
	for _, t := range due {
		t.c <- now
	}
}

// syncBuffer is a bytes.Buffer that is safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// terminal is a pseudo-terminal whose output a goroutine collects.
type terminal struct {
	tty  *os.File // the terminal side, given to the bar
	ptmx *os.File
	out  syncBuffer
	done chan struct{}
}

func openTerminal(t *testing.T) *terminal {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open pseudo-terminal: %v", err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 120}); err != nil {
		t.Fatalf("set pseudo-terminal size: %v", err)
	}
	term := &terminal{tty: tty, ptmx: ptmx, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		_, err := io.Copy(&term.out, ptmx)
		var pe *os.PathError
		if err != nil && !errors.As(err, &pe) { // EIO once the tty side closes
			t.Errorf("read pseudo-terminal: %v", err)
		}
	}()
	t.Cleanup(func() { term.finish(t) })
	return term
}

// finish closes the terminal side and returns everything written to it.
func (term *terminal) finish(t *testing.T) string {
	t.Helper()
	if term.tty != nil {
		term.tty.Close()
		term.tty = nil
		select {
		case <-term.done:
		case <-time.After(10 * time.Second):
			t.Fatal("pseudo-terminal reader did not end")
		}
		term.ptmx.Close()
	}
	return term.out.String()
}

// waitFor waits until the terminal's screen is one for which ok is true
// (what it has been written may still be on its way to the reader), and
// returns that screen.
func (term *terminal) waitFor(t *testing.T, what string, ok func(lines []string) bool) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines := screen(term.out.String())
		if ok(lines) {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("terminal never showed %s; it shows:\n%s\nraw: %q", what, strings.Join(lines, "\n"), term.out.String())
		}
		time.Sleep(time.Millisecond)
	}
}

// screen is testenv.Screen.
func screen(out string) []string { return testenv.Screen(out) }
