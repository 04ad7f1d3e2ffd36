package launch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/exitcode"
)

// The watchdog's deadlines (see Options.PhaseTimeout).
const (
	// DefaultStopDeadline is how long a rank may stay stopped (SIGSTOP,
	// SIGTSTP, ...) before the watchdog ends the job.
	DefaultStopDeadline = cliflag.DefaultStopDeadline
	// MinPhaseDeadline is the least time a rank is given to leave a phase
	// once another rank has left it; it gets twice what that phase took
	// the first rank to leave when that is longer.
	MinPhaseDeadline = 30 * time.Second
	// PhaseTimeoutOff, as Options.PhaseTimeout, turns the watchdog off.
	PhaseTimeoutOff time.Duration = -1
	// ExitWatchdog is the launcher's exit status when the watchdog ends a
	// job (124 is --timeout's).
	ExitWatchdog = exitcode.Watchdog
)

// The phases of job set-up, as the PMI server sees them; a rank's own
// phases (run.Phase reports) follow.
const (
	phaseStartUp = "start-up (not connected to PMI)"
	phasePMI     = "PMI set-up (connected, before its first barrier)"
	phaseBarrier = "PMI barrier "
)

// phaseKey names a phase: the same name and iteration on every rank.
type phaseKey struct {
	name string
	iter int // -1 for the set-up phases
}

func (k phaseKey) String() string {
	if k.iter < 0 {
		return strconv.Quote(k.name)
	}
	return strconv.Quote(k.name) + " iter " + strconv.Itoa(k.iter)
}

// phaseStat is what the watchdog knows of one phase.
type phaseStat struct {
	key    phaseKey
	left   time.Time     // when a rank first left it; zero until one has
	took   time.Duration // how long that rank had been in it
	leaver int           // that rank
}

// rankWatch is one rank as the watchdog sees it.
type rankWatch struct {
	live      bool      // started, not yet finished
	phase     int       // index in watchdog.phases
	since     time.Time // when it entered that phase
	barriers  int       // PMI barriers entered
	stopped   bool
	stopSig   syscall.Signal
	stoppedAt time.Time
}

// watchdog holds every rank's phase and state and derives the job's next
// deadline. It does no I/O and reads no clock: the launcher's loop feeds it
// events with their times. Not safe for concurrent use.
type watchdog struct {
	fixed     time.Duration // > 0: every phase deadline; 0: derived
	stopAfter time.Duration // 0: stops are not watched
	off       bool
	ranks     []rankWatch
	phases    []phaseStat
	byKey     map[phaseKey]int
	live      int // ranks started and not finished
	// armed reports that a deadline may exist (a phase was left or a
	// rank stopped): until then next costs nothing.
	armed bool
	// dirty reports a change since the launcher last asked for next.
	dirty bool
}

// newWatchdog returns the watchdog of n ranks; phaseTimeout is
// Options.PhaseTimeout.
func newWatchdog(n int, phaseTimeout time.Duration) *watchdog {
	w := &watchdog{ranks: make([]rankWatch, n), byKey: map[phaseKey]int{}, stopAfter: DefaultStopDeadline}
	switch {
	case phaseTimeout < 0:
		w.off, w.stopAfter = true, 0
	case phaseTimeout > 0:
		w.fixed, w.stopAfter = phaseTimeout, phaseTimeout
	}
	w.phaseIndex(phaseKey{phaseStartUp, -1})
	return w
}

func (w *watchdog) phaseIndex(k phaseKey) int {
	i, ok := w.byKey[k]
	if !ok {
		i = len(w.phases)
		w.phases = append(w.phases, phaseStat{key: k})
		w.byKey[k] = i
	}
	return i
}

// started records that rank r runs, in the start-up phase.
func (w *watchdog) started(r int, now time.Time) {
	if !w.ranks[r].live {
		w.live++
	}
	w.ranks[r] = rankWatch{live: true, since: now}
	w.dirty = true
}

// leave records that r left its phase at now.
func (w *watchdog) leave(r int, now time.Time) {
	rw := &w.ranks[r]
	p := &w.phases[rw.phase]
	if p.left.IsZero() {
		p.left, p.took, p.leaver = now, now.Sub(rw.since), r
		w.armed = true
	}
}

// enter records that r entered phase k at now; entering the phase it is
// in changes nothing.
func (w *watchdog) enter(r int, k phaseKey, now time.Time) {
	rw := &w.ranks[r]
	if !rw.live {
		return
	}
	i := w.phaseIndex(k)
	if i == rw.phase {
		return
	}
	w.leave(r, now)
	rw.phase, rw.since = i, now
	w.dirty = true
}

// initialized records r's PMI init, barrier its entry into a PMI barrier.
func (w *watchdog) initialized(r int, now time.Time) {
	w.enter(r, phaseKey{phasePMI, -1}, now)
}

func (w *watchdog) barrier(r int, now time.Time) {
	w.ranks[r].barriers++
	w.enter(r, phaseKey{phaseBarrier + strconv.Itoa(w.ranks[r].barriers), -1}, now)
}

// finished records that r finalized (it has left every phase) or exited.
// An exit alone leaves no phase: a rank of a program that does not use PMI
// exiting early says nothing of its peers still in start-up.
func (w *watchdog) finished(r int, now time.Time, finalized bool) {
	rw := &w.ranks[r]
	if !rw.live {
		return
	}
	if finalized {
		w.leave(r, now)
	}
	rw.live, rw.stopped = false, false
	w.live--
	w.dirty = true
}

// stop and cont record that r was stopped by sig, and continued.
func (w *watchdog) stop(r int, sig syscall.Signal, now time.Time) {
	rw := &w.ranks[r]
	if !rw.live || rw.stopped {
		return
	}
	rw.stopped, rw.stopSig, rw.stoppedAt = true, sig, now
	w.armed, w.dirty = true, true
}

func (w *watchdog) cont(r int) { w.ranks[r].stopped, w.dirty = false, true }

// allowance is how long a rank may stay in p once another rank left it.
func (w *watchdog) allowance(p *phaseStat) time.Duration {
	if w.fixed > 0 {
		return w.fixed
	}
	return max(MinPhaseDeadline, 2*p.took)
}

// deadline is rank r's deadline, if it has one.
func (w *watchdog) deadline(r int) (time.Time, bool) {
	rw := &w.ranks[r]
	if w.off || !rw.live {
		return time.Time{}, false
	}
	at, ok := w.phaseDeadline(r)
	if rw.stopped && w.stopAfter > 0 {
		// A stopped rank is late at its stop deadline or its phase's,
		// whichever comes first: a peer that left the phase before the
		// stop must not make the ranks waiting for it overdue first.
		if s := rw.stoppedAt.Add(w.stopAfter); !ok || s.Before(at) {
			at, ok = s, true
		}
	}
	return at, ok
}

// phaseDeadline is when rank r, live, has stayed in its phase too long
// after another rank left it, if another has.
func (w *watchdog) phaseDeadline(r int) (time.Time, bool) {
	rw := &w.ranks[r]
	p := &w.phases[rw.phase]
	if p.left.IsZero() || w.live < 2 {
		// No rank has left its phase, or none is left to wait for it
		// (they all finalized): a rank alone at the end is --timeout's.
		return time.Time{}, false
	}
	from := p.left
	if rw.since.After(from) {
		from = rw.since
	}
	return from.Add(w.allowance(p)), true
}

// next returns the job's earliest deadline and the rank it is for.
func (w *watchdog) next() (rank int, at time.Time, ok bool) {
	if !w.armed || w.off {
		return -1, time.Time{}, false
	}
	rank = -1
	for r := range w.ranks {
		d, has := w.deadline(r)
		if has && (rank < 0 || d.Before(at)) {
			rank, at = r, d
		}
	}
	return rank, at, rank >= 0
}

// overdue lists the ranks whose deadline has passed at now, earliest first.
func (w *watchdog) overdue(now time.Time) []int {
	var late []int
	for r := range w.ranks {
		if d, ok := w.deadline(r); ok && !d.After(now) {
			late = append(late, r)
		}
	}
	slices.SortStableFunc(late, func(a, b int) int {
		da, _ := w.deadline(a)
		db, _ := w.deadline(b)
		return da.Compare(db)
	})
	return late
}

// blame narrows the overdue ranks late to the ranks the job waits for. A
// stopped rank stalls every peer that needs it, and those peers, stuck in
// the phase it stopped in, may be overdue as soon as it is: when any live
// rank is stopped, the stopped ranks are blamed, the longest stopped
// first, and the running ones are among those waiting for them.
func (w *watchdog) blame(late []int) []int {
	if len(late) == 0 {
		return nil
	}
	var stopped []int
	for r := range w.ranks {
		if w.ranks[r].live && w.ranks[r].stopped {
			stopped = append(stopped, r)
		}
	}
	if len(stopped) == 0 {
		return late
	}
	slices.SortStableFunc(stopped, func(a, b int) int {
		return w.ranks[a].stoppedAt.Compare(w.ranks[b].stoppedAt)
	})
	return stopped
}

// rankInfo is what the launcher adds to a rank for a message: its pid, and
// its state as /proc says it ("running (S)", "stopped (T)").
type rankInfo func(r int) (pid int, state string)

// stallMessage words the watchdog's verdict on the overdue ranks late:
// the first in full, the others after it, then the ranks waiting for them.
func (w *watchdog) stallMessage(late []int, now time.Time, host string, info rankInfo) string {
	var b strings.Builder
	b.WriteString("watchdog: ")
	for i, r := range late {
		if i == 1 {
			b.WriteString("; also ")
		} else if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString(w.rankLine(r, now, host, info, i == 0))
	}
	waiting := []int{}
	for r := range w.ranks {
		if w.ranks[r].live && !slices.Contains(late, r) {
			waiting = append(waiting, r)
		}
	}
	if len(waiting) > 0 {
		it := "it"
		if len(late) > 1 {
			it = "them"
		}
		fmt.Fprintf(&b, "; %s waiting for %s (%s)", ranksAre(waiting), it, w.where(waiting))
	}
	return b.String()
}

// rankLine describes one overdue rank; full adds its pid and host.
func (w *watchdog) rankLine(r int, now time.Time, host string, info rankInfo, full bool) string {
	rw := &w.ranks[r]
	pid, state := info(r)
	p := &w.phases[rw.phase]
	who := "rank " + strconv.Itoa(r)
	if full {
		who += fmt.Sprintf(" (pid %d, host %s)", pid, host)
	}
	if rw.stopped {
		return fmt.Sprintf("%s is stopped (%s) in phase %v for %s", who, stopName(rw.stopSig), p.key, seconds(now.Sub(rw.stoppedAt)))
	}
	return fmt.Sprintf("%s is %s in phase %v for %s, %s after rank %d left it (which took it %s)",
		who, state, p.key, seconds(now.Sub(rw.since)), seconds(now.Sub(maxTime(p.left, rw.since))), p.leaver, seconds(p.took))
}

// where groups ranks by their phase: `in "write" iter 0`, or
// `0,1 in "read" iter 0; 3 in "write" iter 0`.
func (w *watchdog) where(ranks []int) string {
	var order []int
	by := map[int][]int{}
	for _, r := range ranks {
		ph := w.ranks[r].phase
		if _, ok := by[ph]; !ok {
			order = append(order, ph)
		}
		by[ph] = append(by[ph], r)
	}
	if len(order) == 1 {
		return "in " + w.phases[order[0]].key.String()
	}
	parts := make([]string, len(order))
	for i, ph := range order {
		parts[i] = rankList(by[ph]) + " in " + w.phases[ph].key.String()
	}
	return strings.Join(parts, "; ")
}

// states describes every live rank, grouped by phase and state, for
// --timeout's message: `ranks 0,1,3 running in "write" iter 0; rank 2
// stopped (SIGSTOP) in "write" iter 0`.
func (w *watchdog) states(info rankInfo) string {
	type group struct {
		what  string
		ranks []int
	}
	var gs []*group
	idx := map[string]*group{}
	for r := range w.ranks {
		rw := &w.ranks[r]
		if !rw.live {
			continue
		}
		_, state := info(r)
		if strings.HasPrefix(state, "running") {
			state = "running" // R or S: one group, not two
		}
		if rw.stopped {
			state = "stopped (" + stopName(rw.stopSig) + ")"
		}
		what := state + " in " + w.phases[rw.phase].key.String()
		g, ok := idx[what]
		if !ok {
			g = &group{what: what}
			idx[what] = g
			gs = append(gs, g)
		}
		g.ranks = append(g.ranks, r)
	}
	parts := make([]string, len(gs))
	for i, g := range gs {
		word := "ranks "
		if len(g.ranks) == 1 {
			word = "rank "
		}
		parts[i] = word + rankList(g.ranks) + " " + g.what
	}
	return strings.Join(parts, "; ")
}

// stopName names the signal that stopped a rank, or, for a stop /proc
// showed before its report came, says where it was seen.
func stopName(sig syscall.Signal) string {
	if sig == 0 {
		return "T in /proc"
	}
	return unix.SignalName(sig)
}

// ranksAre is "rank 3 is" or "ranks 0,1,3 are".
func ranksAre(ranks []int) string {
	if len(ranks) == 1 {
		return "rank " + strconv.Itoa(ranks[0]) + " is"
	}
	return "ranks " + rankList(ranks) + " are"
}

// rankList is "0,1,3", with runs of four or more shortened: "0-7,9".
func rankList(ranks []int) string {
	var b strings.Builder
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ranks[i]))
		switch {
		case j-i >= 3:
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ranks[j]))
		case j > i:
			for k := i + 1; k <= j; k++ {
				b.WriteByte(',')
				b.WriteString(strconv.Itoa(ranks[k]))
			}
		}
		i = j + 1
	}
	return b.String()
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
