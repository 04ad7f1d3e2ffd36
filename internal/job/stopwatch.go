package job

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/internal/exitcode"
	"github.com/hpcbench/hpcbench/internal/procstat"
)

// The stop watch: under a launcher without a watchdog of its own (Hydra's
// mpiexec, srun), a stopped rank (SIGSTOP, Ctrl-Z, a debugger) would hang
// the ranks that wait for it without a stall deadline (mdtest's ranks while
// rank 0 alone works, coll's ranks a table leaves out) forever. So each
// rank watches one other: the next rank on its host in rank order, the
// last one the first, so that every rank of a host with two or more is
// watched by exactly one other, at one read of /proc a tick. A rank seen
// stopped for Options.StopDeadline ends the job: the watcher says so, as
// the launcher's watchdog would, and aborts through PMI with exitcode.Watchdog.
// Ranks on other hosts are not seen (a rank alone on its host is watched
// by nobody); their peers' stall deadlines find them.
//
// Each rank's card carries its pid and its start time (procstat.Stat.Start),
// so that a watcher reads the process it was told of and not one that
// reuses the pid, nor one in another pid namespace of the same host.

// SayLinger is how long a rank that said why it ends the job gives the
// launcher's output forwarding to carry the line before its PMI abort:
// Hydra drops what a rank wrote when the abort reaches it first (about
// one run in ten across two hosts, and the stop watch's line under
// mpiexec).
const SayLinger = 200 * time.Millisecond

// minStopTick and maxStopTick bound how often a watcher looks: four times
// per deadline.
const (
	minStopTick = 50 * time.Millisecond
	maxStopTick = time.Second
)

// proc names one process: its pid and start time.
type proc struct {
	pid   int
	start uint64
}

func (p proc) String() string {
	return "pid:" + strconv.Itoa(p.pid) + "." + strconv.FormatUint(p.start, 10)
}

// parseProc parses a card's "pid:PID.START" field.
func parseProc(s string) (proc, error) {
	body, ok := strings.CutPrefix(s, "pid:")
	pid, start, ok2 := strings.Cut(body, ".")
	p, err := strconv.Atoi(pid)
	st, err2 := strconv.ParseUint(start, 10, 64)
	if !ok || !ok2 || err != nil || err2 != nil || p <= 0 {
		return proc{}, fmt.Errorf("malformed process field %q: want pid:PID.START", s)
	}
	return proc{pid: p, start: st}, nil
}

// selfProc is this process as its card says it.
func selfProc() proc {
	st, _ := procstat.Read(os.Getpid())
	return proc{pid: os.Getpid(), start: st.Start}
}

// watchedRank returns the rank that rank watches: the next one on its host
// in rank order, wrapping to the first; ok is false when it is alone there.
func watchedRank(cards []card, rank int) (int, bool) {
	n := len(cards)
	for i := 1; i < n; i++ {
		r := (rank + i) % n
		if cards[r].host == cards[rank].host {
			return r, true
		}
	}
	return 0, false
}

// stopTracker follows one watched process through its reads.
type stopTracker struct {
	want     proc
	deadline time.Duration
	// maxGap is the longest time between two reads for the second to
	// continue the first's stop: a watcher that was itself stopped (a
	// Ctrl-Z of the whole job) or starved of CPU did not see the peer
	// in between, and counts the stop from its next read.
	maxGap time.Duration
	since  time.Time // when it was first seen stopped in this stop; zero while it runs
	last   time.Time // the previous read
}

// see takes one read (procstat.Read of want.pid) at now. It returns how
// long the process has been stopped and fire when that reached the
// deadline; gone when the process is not the one watched any more (it
// exited, or the pid names another process), after which there is nothing
// to watch.
func (t *stopTracker) see(st procstat.Stat, ok bool, now time.Time) (stopped time.Duration, fire, gone bool) {
	if !ok || st.Exited() || (st.State != '?' && t.want.start != 0 && st.Start != t.want.start) {
		return 0, false, true
	}
	gap := !t.last.IsZero() && now.Sub(t.last) > t.maxGap
	t.last = now
	if !st.Stopped() || gap {
		t.since = time.Time{}
	}
	if !st.Stopped() {
		return 0, false, false
	}
	if t.since.IsZero() {
		t.since = now
	}
	stopped = now.Sub(t.since)
	return stopped, stopped >= t.deadline, false
}

// stopWatch is the goroutine that watches one peer; stop ends it.
type stopWatch struct {
	quit chan struct{}
	done chan struct{}
}

// watchStops starts the watch of peer (whose card is cards[peer]) by rank,
// if deadline is positive.
func (j *Job) watchStops(cards []card, rank int, deadline time.Duration, stderr io.Writer) {
	peer, ok := watchedRank(cards, rank)
	if !ok || deadline <= 0 {
		return
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	tick := min(max(deadline/4, minStopTick), maxStopTick)
	w := &stopWatch{quit: make(chan struct{}), done: make(chan struct{})}
	j.stops = w
	tr := &stopTracker{want: cards[peer].proc, deadline: deadline, maxGap: 3 * tick}
	go func() {
		defer close(w.done)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-w.quit:
				return
			case now := <-t.C:
				st, ok := procstat.Read(tr.want.pid)
				stopped, fire, gone := tr.see(st, ok, now)
				if gone {
					return
				}
				if fire {
					host, _ := os.Hostname()
					msg := fmt.Sprintf("watchdog: rank %d (pid %d, host %s) is stopped (%s in /proc) for %.1f s; rank %d, on the same host, ends the job",
						peer, tr.want.pid, host, string(st.State), stopped.Seconds(), rank)
					fmt.Fprintln(stderr, "hpcbench: "+msg)
					select { // the line first: see SayLinger
					case <-time.After(SayLinger):
					case <-w.quit:
					}
					j.PMI.Abort(exitcode.Watchdog, msg)
					return
				}
			}
		}
	}()
}

// stop ends the watch and waits for its goroutine.
func (w *stopWatch) stop() {
	if w == nil {
		return
	}
	close(w.quit)
	<-w.done
}
