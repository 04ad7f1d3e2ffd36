package ior

import (
	"bytes"
	"io"

	"github.com/hpcbench/hpcbench/report"
)

// Stream prints IOR's human report as the run goes, as IOR prints it: each
// Update writes only what report.WriteIORProgress adds to what is already
// on w, and Finish the rest of report.WriteIOR. A rendering that does not
// extend what was printed (a writer bug) is held back until Finish.
type Stream struct {
	w       io.Writer
	printed []byte
	broken  bool
	err     error
}

// NewStream returns a Stream printing to w.
func NewStream(w io.Writer) *Stream { return &Stream{w: w} }

// Update renders the run so far, r, and prints what is new. It is Env's
// Progress.
func (s *Stream) Update(r *report.Result) {
	if s.broken || s.err != nil {
		return
	}
	var b bytes.Buffer
	if err := report.WriteIORProgress(&b, r); err != nil {
		s.err = err
		return
	}
	if !bytes.HasPrefix(b.Bytes(), s.printed) {
		s.broken = true
		return
	}
	if _, err := s.w.Write(b.Bytes()[len(s.printed):]); err != nil {
		s.err = err
		return
	}
	s.printed = b.Bytes()
}

// Finish prints the rest of the whole report: what WriteIOR renders beyond
// what the updates printed, or all of it if they went wrong.
func (s *Stream) Finish(res *report.Result) error {
	if s.err != nil {
		return s.err
	}
	var b bytes.Buffer
	if err := report.WriteIOR(&b, res); err != nil {
		return err
	}
	out := b.Bytes()
	if !s.broken && bytes.HasPrefix(out, s.printed) {
		out = out[len(s.printed):]
	}
	_, err := s.w.Write(out)
	return err
}
