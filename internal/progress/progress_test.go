package progress_test

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/progress"
	"github.com/hpcbench/hpcbench/internal/units"
)

const tick = progress.DefaultInterval

// eta matches the bar's time left.
var eta = regexp.MustCompile(`  ETA (\d+h)?(\d+m)?\d+s$`)

// advance moves clock on by d in steps of one tick.
func advance(clock *fakeClock, d time.Duration) {
	for ; d > 0; d -= tick {
		clock.Advance(tick)
	}
}

// TestSilent: nothing at all is written when the output is not a
// terminal, when the run ends before the delay, or when no phase was
// ever reported; and Stdout hands back the writer itself where no bar
// can be drawn.
func TestSilent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		terminal bool
		run      time.Duration // how long the fake run lasts
		phases   bool          // whether it reports phases
	}{
		{"not a terminal", false, 10 * time.Second, true},
		{"shorter than the delay", true, progress.DefaultDelay - tick, true},
		{"no phase reported", true, 10 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out syncBuffer
			clock := newFakeClock()
			bar := progress.NewWriter(&out, tc.terminal, progress.Options{Clock: clock})
			for d := time.Duration(0); d < tc.run; d += tick {
				if tc.phases {
					bar.Phase("write", 0, int64(d), int64(tc.run))
				}
				clock.Advance(tick)
			}
			bar.Close()
			bar.Close() // a second Close does nothing
			if got := out.String(); got != "" {
				t.Errorf("bar wrote %q, want nothing", got)
			}
		})
	}

	t.Run("file", func(t *testing.T) {
		t.Parallel()
		f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		bar := progress.New(f, progress.Options{Delay: -1})
		bar.Phase("write", 0, 1, 2)
		if got := bar.Stdout(f); got != io.Writer(f) {
			t.Errorf("Stdout(file) = %T, want the file itself", got)
		}
		bar.Close()
		if fi, err := f.Stat(); err != nil || fi.Size() != 0 {
			t.Errorf("bar wrote %d bytes to a file (err %v), want none", fi.Size(), err)
		}
	})

	t.Run("nil", func(t *testing.T) {
		t.Parallel()
		var bar *progress.Bar
		bar.Phase("write", 0, 1, 2)
		var out syncBuffer
		if got := bar.Stdout(&out); got != io.Writer(&out) {
			t.Errorf("nil Bar's Stdout = %T, want the writer itself", got)
		}
		bar.Close()
	})
}

// TestTerminal: under a pseudo-terminal (120 columns) the bar appears
// once the delay has passed, showing the phase, iteration, sizes or
// operations, the rate over the phase and the time left, and Close erases
// it.
func TestTerminal(t *testing.T) {
	t.Parallel()
	bar20of40 := "|" + strings.Repeat("█", 20) + strings.Repeat(" ", 20) + "|"
	for _, tc := range []struct {
		name        string
		phase       string
		done, total int64
		want        string // the bar's line 2 s in, done reported at the end
	}{
		{"bytes", "write", 32 * units.MiB, 64 * units.MiB,
			"write iter 1  50% " + bar20of40 + " 32.0 MiB/64.0 MiB  16.0 MiB/s  elapsed 2s  ETA 2s"},
		{"operations", "file creation", 500, 1000,
			"file creation iter 1  50% " + bar20of40 + " 500/1000 ops  250 ops/s  elapsed 2s  ETA 2s"},
		{"unknown total", "PingPong 1024 B", 4096, 0,
			"PingPong 1024 B iter 1  4096 ops  2048 ops/s  elapsed 2s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			term := openTerminal(t)
			clock := newFakeClock()
			bar := progress.New(term.tty, progress.Options{Clock: clock})
			bar.Phase(tc.phase, 1, 0, tc.total)
			advance(clock, progress.DefaultDelay-tick)
			if got := term.out.String(); got != "" {
				t.Fatalf("before the delay the bar wrote %q", got)
			}
			bar.Phase(tc.phase, 1, tc.done, tc.total)
			clock.Advance(tick)
			lines := term.waitFor(t, "the bar", func(lines []string) bool {
				return strings.Contains(lines[len(lines)-1], tc.phase)
			})
			if len(lines) != 1 || lines[0] != tc.want {
				t.Errorf("terminal shows\n%q\nwant\n%q", lines, tc.want)
			}
			bar.Close()
			raw := term.finish(t)
			if !strings.HasSuffix(raw, "\r\x1b[2K") {
				t.Errorf("output does not end erasing the line: %q", raw)
			}
			if got := strings.Join(screen(raw), "\n"); got != "" {
				t.Errorf("after Close the terminal shows %q, want nothing", got)
			}
		})
	}
}

// TestStdout: what goes through Stdout reaches stdout byte for byte, the
// same whether stderr is a terminal with the bar on it or not, including
// lines written in pieces.
func TestStdout(t *testing.T) {
	t.Parallel()
	writes := []string{
		"access    bw(MiB/s)  IOPS\n",
		"------    ---------  ----\n",
		"write     ",
		"1024.00   ",
		"4096\n",
		"read      2048.00    8192\nremove    -          -\n",
		"",
		"Max Write: 1024.00 MiB/sec\n",
	}
	var want string
	for _, w := range writes {
		want += w
	}
	got := make(map[bool]string)
	for _, onTerminal := range []bool{false, true} {
		var stdout syncBuffer
		var term *terminal
		var bar *progress.Bar
		clock := newFakeClock()
		if onTerminal {
			term = openTerminal(t)
			bar = progress.New(term.tty, progress.Options{Clock: clock})
		} else {
			bar = progress.New(nil, progress.Options{Clock: clock})
		}
		out := bar.Stdout(&stdout)
		advance(clock, progress.DefaultDelay)
		for i, w := range writes {
			bar.Phase("write", 0, int64(i+1), int64(len(writes)))
			clock.Advance(tick)
			if _, err := io.WriteString(out, w); err != nil {
				t.Fatalf("write %q: %v", w, err)
			}
		}
		bar.Close()
		got[onTerminal] = stdout.String()
		if onTerminal {
			raw := term.finish(t)
			if !strings.Contains(raw, "write iter 0") {
				t.Errorf("the bar was never drawn on the terminal: %q", raw)
			}
		}
	}
	if got[false] != want {
		t.Errorf("stdout without a terminal:\n%q\nwant\n%q", got[false], want)
	}
	if got[true] != got[false] {
		t.Errorf("stdout with the bar on a terminal:\n%q\nwithout:\n%q", got[true], got[false])
	}
}

// TestConcurrent reports phases from many goroutines while the bar draws
// and output goes through Stdout (run it with -race).
func TestConcurrent(t *testing.T) {
	t.Parallel()
	var term, stdout syncBuffer
	clock := newFakeClock()
	bar := progress.NewWriter(&term, true, progress.Options{Clock: clock, Delay: -1})
	out := bar.Stdout(&stdout)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range int64(1000) {
				bar.Phase([]string{"write", "read"}[g%2], g, i, 1000)
			}
		})
	}
	wg.Go(func() {
		for i := range 50 {
			clock.Advance(tick)
			if i%10 == 0 {
				io.WriteString(out, "result line\n")
			}
		}
	})
	wg.Wait()
	bar.Close()
	if n := strings.Count(stdout.String(), "result line\n"); n != 5 {
		t.Errorf("stdout has %d result lines, want 5", n)
	}
	if !strings.Contains(term.String(), " iter ") {
		t.Errorf("the bar was never drawn: %q", term.String())
	}
}

// TestNoGoroutineLeft: Close waits for the goroutine the bar started. Not
// parallel: it counts the process's goroutines.
func TestNoGoroutineLeft(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 20 {
		var term syncBuffer
		clock := newFakeClock()
		bar := progress.NewWriter(&term, true, progress.Options{Clock: clock, Delay: -1})
		bar.Phase("write", 0, 1, 2)
		clock.Advance(tick)
		bar.Phase("read", 0, 0, 0)
		clock.Advance(tick)
		bar.Close()
	}
	// A goroutine that has returned may be counted for a moment longer.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before, %d after 20 bars closed", before, after)
	}
}

// BenchmarkPhase is the cost an engine pays per report.
func BenchmarkPhase(b *testing.B) {
	var term syncBuffer
	bar := progress.NewWriter(&term, true, progress.Options{})
	defer bar.Close()
	var i int64
	for b.Loop() {
		bar.Phase("write", 0, i, 1<<40)
		i++
	}
}

// failingWriter fails every write after the first ok ones.
type failingWriter struct {
	mu sync.Mutex
	ok int
	n  int
}

func (f *failingWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.n > f.ok {
		return 0, os.ErrClosed
	}
	return len(p), nil
}

func (f *failingWriter) writes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// TestTerminalFails: once a write to the terminal fails the bar stops
// drawing, and the results still go through Stdout.
func TestTerminalFails(t *testing.T) {
	t.Parallel()
	for _, ok := range []int{0, 1, 3} {
		term := &failingWriter{ok: ok}
		var stdout syncBuffer
		clock := newFakeClock()
		bar := progress.NewWriter(term, true, progress.Options{Clock: clock, Delay: -1})
		out := bar.Stdout(&stdout)
		for i := range int64(20) {
			bar.Phase("write", 0, i, 20)
			clock.Advance(tick)
			io.WriteString(out, "line\n")
		}
		bar.Close()
		if got, want := term.writes(), ok+1; got != want {
			t.Errorf("%d writes to a terminal that fails after %d, want %d", got, ok, want)
		}
		if got, want := stdout.String(), strings.Repeat("line\n", 20); got != want {
			t.Errorf("stdout = %q, want %q", got, want)
		}
	}
}
