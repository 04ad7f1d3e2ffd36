package progress

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

const (
	// defaultColumns is the terminal width assumed when it cannot be read.
	defaultColumns = 80
	// statsColumns is the room the line keeps for the percentage, the
	// counts, the rate and the times around the bar itself.
	statsColumns = 68
	// minBarWidth and maxBarWidth bound the bar's own width in columns.
	minBarWidth, maxBarWidth = 10, 40
	// eraseLine returns to the start of the line and clears it.
	eraseLine = "\r\x1b[2K"
)

// drawing is what is on the terminal; Bar.outMu guards it.
type drawing struct {
	pb  *progressbar.ProgressBar // the bar of the current phase
	key phase                    // the phase pb was made for (name, iter, total)
	tw  termWriter               // the terminal, as pb writes to it

	visible  bool // the delay has passed and the bar has been drawn
	onScreen bool // the bar is on the terminal's current line now
	midLine  bool // output through Stdout left a line unfinished
	closed   bool // Close has erased the bar for good
}

// termWriter writes to the terminal and keeps the first error, after which
// the bar stops drawing (a progress bar is not worth failing a run for).
type termWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (t *termWriter) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.w.Write(p)
	t.n += int64(n)
	if err != nil {
		t.err = fmt.Errorf("progress bar: write to terminal: %w", err)
	}
	return n, err
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
	if d.pb == nil || s.name != d.key.name || s.iter != d.key.iter || s.total != d.key.total {
		// A new phase starts its own bar, so that its rate and time
		// left are measured from (about) its start, even while the bar
		// is still hidden: it is started, not drawn.
		d.pb = b.newProgressBar(s)
		d.key = s
	}
	if now.Sub(b.start) < b.opt.Delay || d.midLine {
		return
	}
	done := s.done
	if done < 0 {
		done = 0
	}
	if s.total > 0 && done > s.total {
		done = s.total
	}
	before := d.tw.n
	_ = d.pb.Set64(done) // its only errors are the terminal's, kept in d.tw
	if d.tw.n == before && !d.onScreen {
		// A finished bar does not draw itself again; put it back if
		// output through Stdout took it off the line.
		b.put()
	}
	d.visible = true
	d.onScreen = d.tw.err == nil
}

// newProgressBar makes the bar of phase s, started but not drawn.
func (b *Bar) newProgressBar(s phase) *progressbar.ProgressBar {
	desc := fmt.Sprintf("%s iter %d ", s.name, s.iter)
	width := b.cols() - len(desc) - statsColumns
	width = max(minBarWidth, min(maxBarWidth, width))
	limit := s.total
	if limit <= 0 {
		limit = -1 // progressbar's "length unknown": a spinner, no time left
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(&b.draw.tw),
		progressbar.OptionUseANSICodes(true),
		progressbar.OptionSetSpinnerChangeInterval(0), // no goroutine of its own
		progressbar.OptionThrottle(0),                 // our ticker paces it
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(width),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(s.total > 0),
		progressbar.OptionUseIECUnits(true),
	}
	if b.opt.Bytes(s.name) {
		opts = append(opts, progressbar.OptionShowBytes(true))
	} else {
		opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString("ops"))
	}
	pb := progressbar.NewOptions64(limit, opts...)
	pb.StartWithoutRender()
	return pb
}

// put writes the bar as last drawn back onto the current line.
func (b *Bar) put() {
	d := &b.draw
	if d.pb == nil || !d.visible || d.closed {
		return
	}
	if _, err := io.WriteString(&d.tw, d.pb.String()); err == nil {
		d.onScreen = true
	}
}

// erase takes the bar off the terminal's current line.
func (b *Bar) erase() {
	d := &b.draw
	if !d.onScreen {
		return
	}
	d.onScreen = false
	_, _ = io.WriteString(&d.tw, eraseLine) // an error is kept in d.tw
}
