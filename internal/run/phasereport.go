package run

import (
	"sync"
	"time"

	"github.com/hpcbench/hpcbench/internal/job"
)

// progressEvery is the least time between two reports of progress within
// one phase that the first rank sends hpcbench's own launcher for its
// bar: a few a second, which the bar (redrawn every 200 ms) shows
// smoothly, where an engine may report thousands.
const progressEvery = 250 * time.Millisecond

// phaseReporter sends the launcher's watchdog a report each time this
// rank's phase (name or iteration) changes: one PMI line with no reply, not
// one per progress call. With amounts (the first rank, when the launcher
// shows the job's progress) every report says how much is done, and the
// progress within a phase goes too, at most once per progressEvery.
type phaseReporter struct {
	j       *job.Job
	amounts bool
	now     func() time.Time

	mu   sync.Mutex // the hook may be called from more than one goroutine
	name string
	iter int
	sent bool
	done int64     // amounts: the amount last sent
	last time.Time // amounts: when it was sent
}

// launcherPhase returns the Phase hook that reports to hpcbench's own
// launcher, or nil when the job is not its: no job, a singleton, or a PMI
// server (Hydra, Slurm) that is not hpcbench's (pmi.Client.OwnLauncher),
// which would fail the job on the unknown command. With amounts the
// reports say how much of the phase is done (see phaseReporter).
func launcherPhase(j *job.Job, amounts bool) Phase {
	if j == nil || j.PMI == nil || j.PMI.Singleton() {
		return nil
	}
	if !j.PMI.OwnLauncher() {
		return nil
	}
	p := &phaseReporter{j: j, amounts: amounts, now: time.Now}
	return p.phase
}

func (p *phaseReporter) phase(name string, iter int, done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	same := p.sent && name == p.name && iter == p.iter
	if same && !p.amounts {
		return
	}
	// A failure to send is the connection's, which the job sees anyway.
	if !p.amounts {
		p.name, p.iter, p.sent = name, iter, true
		_ = p.j.PMI.SendPhase(name, iter)
		return
	}
	now := p.now()
	if same && (done == p.done || now.Sub(p.last) < progressEvery) {
		return
	}
	p.name, p.iter, p.sent, p.done, p.last = name, iter, true, done, now
	_ = p.j.PMI.SendProgress(name, iter, done, total)
}
