package run

import (
	"sync"

	"github.com/hpcbench/hpcbench/internal/job"
)

// phaseReporter sends the launcher's watchdog a report each time this
// rank's phase (name or iteration) changes: one PMI line with no reply, not
// one per progress call.
type phaseReporter struct {
	j    *job.Job
	mu   sync.Mutex // the hook may be called from more than one goroutine
	name string
	iter int
	sent bool
}

// launcherPhase returns the Phase hook that reports to hpcbench's own
// launcher, or nil when the job is not its: no job, a singleton, or a PMI
// server (Hydra, Slurm) that is not hpcbench's (pmi.Client.OwnLauncher),
// which would fail the job on the unknown command.
func launcherPhase(j *job.Job) Phase {
	if j == nil || j.PMI == nil || j.PMI.Singleton() {
		return nil
	}
	if !j.PMI.OwnLauncher() {
		return nil
	}
	p := &phaseReporter{j: j}
	return p.phase
}

func (p *phaseReporter) phase(name string, iter int, _, _ int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sent && name == p.name && iter == p.iter {
		return
	}
	p.name, p.iter, p.sent = name, iter, true
	// A failure to send is the connection's, which the job sees anyway.
	_ = p.j.PMI.SendPhase(name, iter)
}
