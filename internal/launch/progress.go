package launch

import (
	"github.com/hpcbench/hpcbench/internal/progress"
	"github.com/hpcbench/hpcbench/pmi"
)

// phaseSink takes the job's progress: a *progress.Bar.
type phaseSink interface {
	Phase(name string, iter int, done, total int64)
}

// jobProgress turns the ranks' phase reports into the launcher's one
// job-wide display (a bar on its terminal, or --progress lines): the
// job is where its first rank is. Rank 0 sends how much of its phase is
// done (run's phaseReporter, told so by progress.EnvLauncher), at most
// a few times a second; the other ranks send their changes of phase
// alone, for the watchdog, and are not shown. A report of rank 0 without
// an amount (a rank that does not send them) shows the phase with no
// total; rank 0's finalize ends the display's updates.
type jobProgress struct {
	sink phaseSink
	over bool // rank 0 finalized
}

// note applies one PMI note.
func (p *jobProgress) note(n pmi.Note) {
	if p == nil || n.Rank != 0 || p.over {
		return
	}
	switch n.Kind {
	case pmi.NoteFinalize:
		p.over = true
	case pmi.NotePhase:
		if n.Amount {
			p.sink.Phase(n.Phase, n.Iter, n.Done, n.Total)
		} else {
			p.sink.Phase(n.Phase, n.Iter, 0, 0)
		}
	}
}

// newJobBar returns the launcher's progress display on its stderr: a bar
// when stderr is a terminal, plain lines with --progress, nil else.
func newJobBar(o Options) *progress.Bar {
	return progress.ForStderr(o.Stderr, progress.Options{Lines: o.Progress, LineInterval: o.ProgressInterval})
}
