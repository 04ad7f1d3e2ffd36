package progress

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	// defaultColumns is the terminal width assumed when it cannot be read.
	defaultColumns = 80
	// maxBarWidth is the widest the bar itself is drawn, in columns; below
	// minBarWidth it is left out and the line keeps only the figures.
	minBarWidth, maxBarWidth = 10, 40
	// rateWindow is how far back the rate (and so the time left) looks.
	rateWindow = 5 * time.Second
	// eraseLine returns to the start of the line and clears it.
	eraseLine = "\r\x1b[2K"
)

// drawing is what is on the terminal; Bar.outMu guards it.
type drawing struct {
	tw      termWriter
	key     phase    // the phase the samples are of (name, iter)
	samples []sample // its progress at past ticks, oldest first
	line    string   // the bar as last drawn

	visible  bool // the delay has passed and the bar has been drawn
	onScreen bool // the bar is on the terminal's current line now
	midLine  bool // output through Stdout left a line unfinished
	closed   bool // Close has erased the bar for good

	lines   bool // plain lines (Options.Lines), not a bar
	pending bool // lines: a tick's line waits for Stdout to end its line
}

// sample is how much of a phase was done at a time.
type sample struct {
	at   time.Time
	done int64
}

// termWriter writes to the terminal and keeps the first error, after which
// the bar stops drawing (a progress bar is not worth failing a run for).
type termWriter struct {
	w   io.Writer
	err error
}

func (t *termWriter) WriteString(s string) {
	if t.err != nil {
		return
	}
	if _, err := io.WriteString(t.w, s); err != nil {
		t.err = fmt.Errorf("progress bar: write to terminal: %w", err)
	}
}

// redraw draws the last reported phase, at a tick of the clock at now.
func (b *Bar) redraw(now time.Time) {
	b.mu.Lock()
	s := b.state
	b.mu.Unlock()
	if !s.set {
		return
	}
	b.outMu.Lock()
	defer b.outMu.Unlock()
	d := &b.draw
	if d.closed || d.tw.err != nil {
		return
	}
	d.record(s, now)
	if d.lines {
		d.line = renderLine(s, b.opt.Bytes(s.name), d.rate(), now.Sub(s.since))
		d.pending = true
		b.flushLine()
		return
	}
	if now.Sub(b.start) < b.opt.Delay || d.midLine {
		return
	}
	line := render(s, b.opt.Bytes(s.name), d.rate(), now.Sub(s.since), b.cols())
	if d.onScreen && line == d.line {
		return
	}
	d.line = line
	d.visible = true
	b.put()
}

// record adds the phase's progress at now to the samples the rate is
// measured over, starting them afresh at a new phase, and drops those
// the window no longer needs.
func (d *drawing) record(s phase, now time.Time) {
	if s.name != d.key.name || s.iter != d.key.iter || !s.since.Equal(d.key.since) {
		d.key = s
		d.samples = append(d.samples[:0], sample{at: s.since, done: s.done0})
	}
	d.samples = append(d.samples, sample{at: now, done: s.done})
	for len(d.samples) > 2 && now.Sub(d.samples[1].at) >= rateWindow {
		d.samples = d.samples[1:]
	}
}

// rate is the phase's progress per second over the window, 0 when no time
// has passed.
func (d *drawing) rate() float64 {
	first, last := d.samples[0], d.samples[len(d.samples)-1]
	dt := last.at.Sub(first.at).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(last.done-first.done) / dt
}

// figures are a phase's amounts as the bar and the line show them.
type figures struct {
	head     string  // "write iter 0"
	done, of string  // "32.0 MiB", "64.0 MiB" ("" when the total is not known)
	ops      string  // " ops" after a count of operations, "" after sizes
	rate     string  // "16.0 MiB/s", "125 ops/s"
	elapsed  string  // "2s"
	eta      string  // "2s", "?" with no rate yet, "" when the total is not known
	frac     float64 // done over the total, in [0, 1]; 0 when it is not known
	hasTotal bool
}

// measure writes phase s's figures, which has run for elapsed at rate per
// second.
func measure(s phase, bytes bool, rate float64, elapsed time.Duration) figures {
	count, perSec, ops := formatCount, " ops/s", " ops"
	if bytes {
		count, perSec, ops = formatBytes, "/s", ""
	}
	done := max(s.done, 0)
	if s.total > 0 {
		done = min(done, s.total)
	}
	f := figures{head: fmt.Sprintf("%s iter %d", s.name, s.iter), done: count(float64(done)), ops: ops,
		rate: count(rate) + perSec, elapsed: formatDuration(elapsed), hasTotal: s.total > 0}
	if f.hasTotal {
		f.of = count(float64(s.total))
		f.frac = float64(done) / float64(s.total)
		f.eta = "?"
		if rate > 0 {
			f.eta = formatDuration(time.Duration(float64(s.total-done) / rate * float64(time.Second)))
		}
	}
	return f
}

// render writes the bar's line for phase s, which has run for elapsed at
// rate per second, in at most cols-1 columns (a line that filled the
// terminal would wrap, and the bar could not go back over it):
//
//	write iter 0  50% |████████      | 32.0 MiB/64.0 MiB  16.0 MiB/s  elapsed 2s  ETA 2s
//	file creation iter 1  250/1000 ops  125 ops/s  elapsed 2s  ETA 6s  (and the bar)
//	PingPong 1024 B iter 0  4096 ops  2048 ops/s  elapsed 2s  (total not known)
func render(s phase, bytes bool, rate float64, elapsed time.Duration, cols int) string {
	f := measure(s, bytes, rate, elapsed)
	var tail strings.Builder
	if f.hasTotal {
		fmt.Fprintf(&tail, " %s/%s%s", f.done, f.of, f.ops)
	} else {
		fmt.Fprintf(&tail, " %s%s", f.done, f.ops)
	}
	fmt.Fprintf(&tail, "  %s  elapsed %s", f.rate, f.elapsed)
	if f.hasTotal {
		fmt.Fprintf(&tail, "  ETA %s", f.eta)
	}

	line := f.head + " "
	if f.hasTotal {
		line += fmt.Sprintf("%3d%%", int(f.frac*100))
		const frame = 3 // " |" and "|"
		width := min(maxBarWidth, cols-1-utf8.RuneCountInString(line)-frame-tail.Len())
		if width >= minBarWidth {
			fill := int(f.frac * float64(width))
			line += " |" + strings.Repeat("█", fill) + strings.Repeat(" ", width-fill) + "|"
		}
	}
	line += tail.String()
	if r := []rune(line); len(r) > cols-1 {
		line = string(r[:max(cols-1, 0)])
	}
	return line
}

// LinePrefix starts every plain progress line.
const LinePrefix = "hpcbench: progress: "

// renderLine writes the plain line (Options.Lines) of phase s, which has
// run for elapsed at rate per second, without its newline:
//
//	hpcbench: progress: write iter 0: 32.0 MiB of 64.0 MiB (50%), 16.0 MiB/s, elapsed 2s, ETA 2s
//	hpcbench: progress: file creation iter 1: 250 of 1000 ops (25%), 125 ops/s, elapsed 2s, ETA 6s
//	hpcbench: progress: PingPong 1024 B iter 0: 4096 ops, 2048 ops/s, elapsed 2s
func renderLine(s phase, bytes bool, rate float64, elapsed time.Duration) string {
	f := measure(s, bytes, rate, elapsed)
	if !f.hasTotal {
		return fmt.Sprintf("%s%s: %s%s, %s, elapsed %s", LinePrefix, f.head, f.done, f.ops, f.rate, f.elapsed)
	}
	return fmt.Sprintf("%s%s: %s of %s%s (%d%%), %s, elapsed %s, ETA %s",
		LinePrefix, f.head, f.done, f.of, f.ops, int(f.frac*100), f.rate, f.elapsed, f.eta)
}

// flushLine writes the plain line a tick left pending, unless output
// through Stdout is in the middle of a line, which it would cut (stdout
// and stderr may be one file: 2>&1).
func (b *Bar) flushLine() {
	d := &b.draw
	if !d.pending || d.midLine || d.closed {
		return
	}
	d.pending = false
	d.tw.WriteString(d.line + "\n")
}

// put writes the bar as last drawn onto the current line.
func (b *Bar) put() {
	d := &b.draw
	if d.lines {
		b.flushLine()
		return
	}
	if !d.visible || d.closed || d.midLine {
		return
	}
	d.tw.WriteString("\r" + d.line + "\x1b[K")
	d.onScreen = d.tw.err == nil
}

// erase takes the bar off the terminal's current line.
func (b *Bar) erase() {
	d := &b.draw
	if !d.onScreen {
		return
	}
	d.onScreen = false
	d.tw.WriteString(eraseLine)
}
