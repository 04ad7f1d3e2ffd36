package progress

import (
	"io"
	"os"
)

// Stdout returns the writer to send the results through while the bar may
// be shown: each write takes the bar off the terminal's line, passes the
// bytes to w unchanged, and draws the bar again once the line is finished
// (not after a write that leaves a line open, which the bar would
// overwrite). When the bar draws nothing, or w is a file that is not a
// terminal (so it cannot share a line with the bar), it returns w itself;
// with plain lines it wraps any w, so that a line is held while w is in
// the middle of one (w and the lines may go to one file).
// It suits any stream that shares the terminal: messages to stderr while
// the bar is shown want the same wrapping.
func (b *Bar) Stdout(w io.Writer) io.Writer {
	if !b.active() {
		return w
	}
	if f, ok := w.(*os.File); ok && !b.draw.lines && !IsTerminal(f) {
		return w
	}
	return &stdout{b: b, w: w}
}

// stdout is a writer that shares the terminal with the bar.
type stdout struct {
	b *Bar
	w io.Writer
}

func (s *stdout) Write(p []byte) (int, error) {
	b := s.b
	b.outMu.Lock()
	defer b.outMu.Unlock()
	b.erase()
	n, err := s.w.Write(p)
	if n > 0 {
		b.draw.midLine = p[n-1] != '\n'
	}
	if !b.draw.midLine {
		b.put()
	}
	return n, err
}
