package launch

import (
	"os"
	"sync"
	"time"

	"github.com/hpcbench/hpcbench/internal/procstat"
	"github.com/hpcbench/hpcbench/internal/progress"
	"github.com/hpcbench/hpcbench/pmi"
)

// stopRoom is the room the event channel keeps, beyond every start and
// exit, for ranks' stops and continues (see startSpawner).
const stopRoom = 64

// Environment variables the launcher sets for every rank.
const (
	// EnvLauncherKVS holds the job's PMI KVS name (see
	// pmi.EnvLauncherKVS and pmi.Client.OwnLauncher).
	EnvLauncherKVS = pmi.EnvLauncherKVS
	// EnvPhaseTimeout holds --phase-timeout as a Go duration ("2s"; "0s"
	// is off) when it was given, for the ranks' own stall detection.
	EnvPhaseTimeout = "HPCBENCH_PHASE_TIMEOUT"
)

// jobVars are the variables every rank of the job gets besides PMI's;
// shows says that the launcher shows the job's progress.
func jobVars(kvs string, phaseTimeout time.Duration, shows bool) []string {
	env := []string{EnvLauncherKVS + "=" + kvs}
	if shows {
		env = append(env, progress.EnvLauncher+"=1")
	}
	switch {
	case phaseTimeout < 0:
		env = append(env, EnvPhaseTimeout+"=0s")
	case phaseTimeout > 0:
		env = append(env, EnvPhaseTimeout+"="+phaseTimeout.String())
	}
	return env
}

// timedNote is a PMI progress note with the time the server saw it.
type timedNote struct {
	pmi.Note
	at time.Time
}

// noteBox carries the PMI server's notes, which come from its serving
// goroutines, to the launcher's loop: add queues one and wakes the loop.
type noteBox struct {
	mu    sync.Mutex
	notes []timedNote
	wake  chan struct{} // capacity 1: one wake-up covers every note queued
}

func (b *noteBox) add(n pmi.Note) {
	now := time.Now()
	b.mu.Lock()
	b.notes = append(b.notes, timedNote{n, now})
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// take returns the queued notes, handing back spare for the next batch.
func (b *noteBox) take(spare []timedNote) []timedNote {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.notes
	b.notes = spare[:0]
	return n
}

// applyNotes feeds the queued notes to the watchdog.
func (jb *job) applyNotes() {
	notes := jb.notes.take(nil)
	for _, n := range notes {
		if n.Rank < 0 || n.Rank >= len(jb.pids) {
			continue
		}
		jb.progress.note(n.Note)
		switch n.Kind {
		case pmi.NoteInit:
			jb.wd.initialized(n.Rank, n.at)
		case pmi.NoteBarrier:
			jb.wd.barrier(n.Rank, n.at)
		case pmi.NotePhase:
			jb.wd.enter(n.Rank, phaseKey{n.Phase, n.Iter}, n.at)
		case pmi.NoteFinalize:
			jb.wd.finished(n.Rank, n.at, true)
		}
	}
}

// armWatchdog sets the watchdog's timer to the job's next deadline.
func (jb *job) armWatchdog() {
	if jb.tornDown {
		jb.stopWatchdog()
		return
	}
	if !jb.wd.dirty {
		return // the timer, armed or not, is still right
	}
	jb.wd.dirty = false
	r, at, ok := jb.wd.next()
	if !ok {
		jb.stopWatchdog()
		return
	}
	if jb.wdT != nil && r == jb.wdRank && at.Equal(jb.wdAt) {
		return
	}
	jb.stopWatchdog()
	jb.wdRank, jb.wdAt = r, at
	jb.wdT = time.NewTimer(time.Until(at))
}

// watchdogC is the armed timer's channel, nil (never ready) without one.
func (jb *job) watchdogC() <-chan time.Time {
	if jb.wdT == nil {
		return nil
	}
	return jb.wdT.C
}

func (jb *job) stopWatchdog() {
	if jb.wdT != nil {
		jb.wdT.Stop()
		jb.wdT, jb.wdRank = nil, -1
	}
}

// watchdogFired ends the job when a rank's deadline has passed: a stopped
// rank still stopped (so /proc says: a continue the spawner's report of
// which was dropped does not count), or a rank still in a phase others
// have left.
func (jb *job) watchdogFired(now time.Time) {
	jb.wdT, jb.wdRank = nil, -1
	jb.applyNotes()
	if jb.fail != nil && !(jb.fail.abort && !jb.tornDown) {
		// The job is already failing and its cause is known; no re-arm
		// (the deadline has passed: it would fire again at once).
		return
	}
	jb.wd.dirty = true // re-arm for the next deadline, if the job goes on
	jb.refreshStops(now)
	late := jb.wd.blame(jb.wd.overdue(now))
	if len(late) == 0 {
		return
	}
	jb.watchdogFail(late, now)
}

// refreshStops brings the watchdog's stopped ranks up to date with /proc
// when a deadline passes: a stop whose report has not come yet counts (its
// peers waiting for it are what made the deadline pass), and a continue
// whose report was dropped ends the stop.
func (jb *job) refreshStops(now time.Time) {
	if jb.remote != nil {
		return // their /proc is on their hosts; their proxies report stops
	}
	for r := range jb.wd.ranks {
		if !jb.wd.ranks[r].live || jb.pids[r] <= 0 {
			continue
		}
		st, ok := procstat.Read(jb.pids[r])
		if !ok || st.State == '?' {
			continue
		}
		switch stopped := st.Stopped(); {
		case stopped && !jb.wd.ranks[r].stopped:
			jb.wd.stop(r, 0, now)
		case !stopped && jb.wd.ranks[r].stopped:
			jb.wd.cont(r)
		}
	}
}

// watchdogFail ends the job naming late, the ranks the others wait for,
// in place of a held abort (which is their peers noticing).
func (jb *job) watchdogFail(late []int, now time.Time) {
	var host string
	if jb.remote != nil {
		host = jb.remote.host(late[0])
	} else {
		host, _ = os.Hostname()
	}
	msg := jb.wd.stallMessage(late, now, host, jb.info)
	jb.fail = &Failure{Rank: late[0], Code: ExitWatchdog, Msg: "launch: " + msg}
	jb.teardown()
}

// blameStopped names the ranks stopped now, if any, as the job's failure:
// it is called when a held abort's wait ends, and a rank that aborted
// because its own deadline passed waiting for a stopped one only passes
// the news on.
func (jb *job) blameStopped(now time.Time) {
	jb.refreshStops(now)
	var stopped []int
	for r := range jb.wd.ranks {
		if jb.wd.ranks[r].stopped && !jb.exited[r] {
			stopped = append(stopped, r)
		}
	}
	if len(stopped) > 0 {
		jb.watchdogFail(jb.wd.blame(stopped), now)
	}
}

// info is a rank's pid and state from /proc, for the watchdog's messages.
func (jb *job) info(r int) (int, string) {
	pid := jb.pids[r]
	switch {
	case pid <= 0:
		return pid, "not started"
	case jb.remote != nil:
		return pid, "running" // as far as its proxy said: stops are reported
	}
	return pid, procstat.Describe(procstat.State(pid))
}
