// Package progress draws a progress bar on stderr for long runs: the phase
// an engine is in, its iteration, how much of the phase is done (bytes as
// sizes, or operations), the rate and the time left.
//
// It draws the bar itself, with golang.org/x/term for the terminal checks,
// rather than with github.com/schollz/progressbar/v3: that package links
// net/http and crypto/tls into the binary, which made every rank's
// `hpcbench version` start about 9% slower.
//
// The bar shows only when stderr is a terminal and only once the run has
// gone on longer than a delay (DefaultDelay); on shorter runs, or when
// stderr is a file or a pipe, nothing at all is written, unless plain
// lines are asked for (Options.Lines: --progress, as fio's --eta=always):
// then a line per interval (DefaultLineInterval) says the same figures. Engines report
// through Phase, which only records the figures: a goroutine owned by the
// Bar redraws from them on a ticker, so a slow or stopped terminal never
// holds up the engine. Output that shares the terminal with the bar (the
// results on stdout) goes through Stdout, which lifts the bar off the line
// for each write and puts it back after.
package progress

import (
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

const (
	// DefaultDelay is how long a run goes on before the bar appears.
	DefaultDelay = 2 * time.Second
	// DefaultInterval is how often the bar is redrawn.
	DefaultInterval = 200 * time.Millisecond
	// DefaultLineInterval is how often a plain line is written
	// (Options.Lines). Plain lines go to logs (a batch job's output
	// file, a CI log): one every 10 s keeps an hour's run to 360 lines
	// and still shows a stalled phase well before the launcher's
	// watchdog (30 s at least) ends it.
	DefaultLineInterval = 10 * time.Second
)

// Options tune a Bar. The zero value gives the defaults.
type Options struct {
	// Delay is how long after New the bar first appears: 0 means
	// DefaultDelay, a negative value shows it at the first redraw.
	Delay time.Duration
	// Interval is the time between the bar's redraws: 0 or less means
	// DefaultInterval.
	Interval time.Duration
	// Lines asks, when the output is not a terminal, for a plain line
	// (LinePrefix, the phase and its figures) every LineInterval from the
	// first phase reported on, where the bar would draw nothing. On a
	// terminal the bar is drawn all the same.
	Lines bool
	// LineInterval is the time between plain lines: 0 or less means
	// DefaultLineInterval.
	LineInterval time.Duration
	// Clock paces the delay and the redraws: nil means the system clock.
	Clock Clock
	// Bytes reports whether a phase's done and total count bytes (shown
	// as sizes, the rate in B/s) rather than operations: nil means
	// DefaultBytes.
	Bytes func(phase string) bool
}

// DefaultBytes counts IOR's data phases, "write" and "read", in bytes and
// every other phase (mdtest's "file creation", IMB's "PingPong 1024 B")
// in operations.
func DefaultBytes(phase string) bool { return phase == "write" || phase == "read" }

// Bar is a progress bar on one terminal, or plain progress lines on any
// writer. A nil *Bar, and a Bar whose output is not a terminal (without
// Options.Lines), accept every call and draw nothing, so ranks other than
// 0 can hold one too. Its methods are safe for concurrent use.
type Bar struct {
	// state is what Phase last reported; the drawing goroutine copies it.
	mu    sync.Mutex
	state phase

	// outMu serializes everything written to the terminal (the bar and
	// the output going through Stdout) and guards draw.
	outMu sync.Mutex
	draw  drawing
	cols  func() int // the terminal's width

	opt   Options
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	close sync.Once
}

// phase is what Phase last reported, and when and where that phase began.
type phase struct {
	name        string
	iter        int
	done, total int64
	since       time.Time // the first report of this name and iteration
	done0       int64     // done in that first report
	set         bool
}

// New returns a bar drawn on stderr when stderr is a terminal (checked with
// golang.org/x/term); on anything else it returns a Bar that writes plain
// lines with Options.Lines, and otherwise draws nothing and starts no
// goroutine. Call Close when the run ends.
func New(stderr *os.File, opt Options) *Bar {
	if stderr == nil || !IsTerminal(stderr) {
		return NewWriter(stderr, false, opt)
	}
	b := NewWriter(stderr, true, opt)
	fd := int(stderr.Fd())
	b.cols = func() int {
		w, _, err := term.GetSize(fd)
		if err != nil || w <= 0 {
			return defaultColumns
		}
		return w
	}
	return b
}

// ForStderr is New for a stderr that may not be a file (a test's buffer):
// a bar when it is a terminal, plain lines with Options.Lines, and nil,
// which draws nothing, else.
func ForStderr(stderr io.Writer, opt Options) *Bar {
	if f, ok := stderr.(*os.File); ok {
		return New(f, opt)
	}
	if opt.Lines {
		return NewWriter(stderr, false, opt)
	}
	return nil
}

// IsTerminal reports whether f is a terminal, where New draws the bar.
func IsTerminal(f *os.File) bool { return f != nil && term.IsTerminal(int(f.Fd())) }

// NewWriter is New for any writer: the bar is drawn on w when isTerminal
// is true (80 columns wide), plain lines are written on it otherwise with
// Options.Lines, and nothing is written else.
func NewWriter(w io.Writer, isTerminal bool, opt Options) *Bar {
	lines := !isTerminal && opt.Lines
	if opt.Delay == 0 {
		opt.Delay = DefaultDelay
	}
	if opt.Interval <= 0 {
		opt.Interval = DefaultInterval
	}
	if lines {
		// The first line comes at the first interval.
		opt.Delay, opt.Interval = -1, opt.LineInterval
		if opt.Interval <= 0 {
			opt.Interval = DefaultLineInterval
		}
	}
	if opt.Clock == nil {
		opt.Clock = systemClock{}
	}
	if opt.Bytes == nil {
		opt.Bytes = DefaultBytes
	}
	b := &Bar{opt: opt, cols: func() int { return defaultColumns }}
	b.draw.tw.w = w
	b.draw.lines = lines
	if !isTerminal && !lines || w == nil {
		return b
	}
	b.start = opt.Clock.Now()
	b.stop = make(chan struct{})
	tick, stopTick := opt.Clock.NewTicker(opt.Interval)
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer stopTick()
		for {
			select {
			case <-b.stop:
				return
			case now := <-tick:
				b.redraw(now)
			}
		}
	}()
	return b
}

// active reports whether b draws at all.
func (b *Bar) active() bool { return b != nil && b.stop != nil }

// Shows reports whether b shows progress at all: a bar on a terminal, or
// plain lines.
func (b *Bar) Shows() bool { return b.active() }

// Phase records that the engine is in phase name (iteration iter) with done
// of total bytes or operations finished; total is 0 when it is not known.
// It only stores the figures, so it is cheap and never waits for the
// terminal; the bar shows them at its next redraw.
func (b *Bar) Phase(name string, iter int, done, total int64) {
	if !b.active() {
		return
	}
	b.mu.Lock()
	st := &b.state
	if !st.set || name != st.name || iter != st.iter {
		*st = phase{name: name, iter: iter, since: b.opt.Clock.Now(), done0: done, set: true}
	}
	st.done, st.total = done, total
	b.mu.Unlock()
}

// Close erases the bar, if it was shown, and waits for the goroutine that
// draws it (which may be waiting for a terminal stopped with ^S). Calls
// after the first do nothing.
func (b *Bar) Close() {
	if !b.active() {
		return
	}
	b.close.Do(func() {
		close(b.stop)
		b.wg.Wait()
		b.outMu.Lock()
		defer b.outMu.Unlock()
		b.erase()
		b.draw.closed = true
	})
}
