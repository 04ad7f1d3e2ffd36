package launch

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// wdStep is one event fed to the watchdog at a time offset (fake clock).
type wdStep struct {
	at   time.Duration
	rank int
	do   string // start, init, barrier, phase, finish, stop, cont
	name string
	iter int
}

func feed(w *watchdog, t0 time.Time, steps []wdStep) {
	for _, s := range steps {
		now := t0.Add(s.at)
		switch s.do {
		case "start":
			w.started(s.rank, now)
		case "init":
			w.initialized(s.rank, now)
		case "barrier":
			w.barrier(s.rank, now)
		case "phase":
			w.enter(s.rank, phaseKey{s.name, s.iter}, now)
		case "finish":
			w.finished(s.rank, now, s.name == "finalize")
		case "stop":
			w.stop(s.rank, syscall.SIGSTOP, now)
		case "cont":
			w.cont(s.rank)
		default:
			panic(s.do)
		}
	}
}

func startAll(n int) []wdStep {
	var s []wdStep
	for r := range n {
		s = append(s, wdStep{rank: r, do: "start"})
	}
	return s
}

func TestWatchdogDeadlines(t *testing.T) {
	sec := time.Second
	for _, tc := range []struct {
		name    string
		n       int
		timeout time.Duration // Options.PhaseTimeout
		steps   []wdStep
		rank    int           // -1: no deadline
		at      time.Duration // the deadline
		msg     []string      // in the message at the deadline
	}{
		{name: "nothing left, nothing stopped", n: 3, steps: []wdStep{
			{at: sec, rank: 0, do: "phase", name: "write"}, {at: sec, rank: 1, do: "phase", name: "write"}, {at: sec, rank: 2, do: "phase", name: "write"},
		}, rank: -1},
		{name: "stopped: default 10 s", n: 4, steps: []wdStep{
			{at: sec, rank: 0, do: "phase", name: "write"}, {at: sec, rank: 1, do: "phase", name: "write"},
			{at: sec, rank: 2, do: "phase", name: "write"}, {at: sec, rank: 3, do: "phase", name: "write"},
			{at: 3 * sec, rank: 2, do: "stop"},
		}, rank: 2, at: 13 * sec, msg: []string{`rank 2 (pid 102, host h) is stopped (SIGSTOP) in phase "write" iter 0 for 10.0 s`, `ranks 0,1,3 are waiting for it (in "write" iter 0)`}},
		{name: "stopped: --phase-timeout 2s", n: 2, timeout: 2 * sec, steps: []wdStep{
			{at: 3 * sec, rank: 1, do: "stop"},
		}, rank: 1, at: 5 * sec, msg: []string{`rank 1 (pid 101, host h) is stopped (SIGSTOP) in phase "start-up`, `rank 0 is waiting for it`}},
		{name: "stopped then continued", n: 2, steps: []wdStep{
			{at: 3 * sec, rank: 1, do: "stop"}, {at: 4 * sec, rank: 1, do: "cont"},
		}, rank: -1},
		{name: "off", n: 2, timeout: PhaseTimeoutOff, steps: []wdStep{
			{at: 3 * sec, rank: 1, do: "stop"},
			{at: 3 * sec, rank: 0, do: "phase", name: "read"},
		}, rank: -1},
		{name: "stopped rank that exits", n: 2, steps: []wdStep{
			{at: 3 * sec, rank: 1, do: "stop"}, {at: 4 * sec, rank: 1, do: "finish"},
		}, rank: -1},
		{name: "in a phase: at least 30 s after the first left", n: 3, steps: []wdStep{
			{at: sec, rank: 0, do: "phase", name: "write"}, {at: sec, rank: 1, do: "phase", name: "write"}, {at: sec, rank: 2, do: "phase", name: "write"},
			{at: 6 * sec, rank: 0, do: "phase", name: "read"}, {at: 7 * sec, rank: 1, do: "phase", name: "read"},
		}, rank: 2, at: 36 * sec, msg: []string{`rank 2 (pid 102, host h) is running (S) in phase "write" iter 0 for 35.0 s, 30.0 s after rank 0 left it (which took it 5.0 s)`, `ranks 0,1 are waiting for it (in "read" iter 0)`}},
		{name: "alone at the end: no deadline", n: 2, steps: []wdStep{
			{at: sec, rank: 0, do: "phase", name: "write"}, {at: sec, rank: 1, do: "phase", name: "write"},
			{at: 2 * sec, rank: 1, do: "finish", name: "finalize"},
		}, rank: -1},
		{name: "in a phase: twice what the first took", n: 3, steps: []wdStep{
			{at: sec, rank: 2, do: "phase", name: "read"},
			{at: sec, rank: 0, do: "phase", name: "write"}, {at: sec, rank: 1, do: "phase", name: "write"},
			{at: 41 * sec, rank: 0, do: "finish", name: "finalize"},
		}, rank: 1, at: 121 * sec, msg: []string{`in phase "write" iter 0 for 120.0 s, 80.0 s after rank 0 left it (which took it 40.0 s)`}},
		{name: "in a phase: --phase-timeout", n: 2, timeout: 2 * sec, steps: []wdStep{
			{at: sec, rank: 0, do: "phase", name: "write"}, {at: sec, rank: 1, do: "phase", name: "write"},
			{at: 41 * sec, rank: 0, do: "phase", name: "write", iter: 1},
		}, rank: 1, at: 43 * sec, msg: []string{`rank 0 is waiting for it (in "write" iter 1)`}},
		{name: "a rank entering late gets the whole allowance", n: 2, timeout: 2 * sec, steps: []wdStep{
			{at: sec, rank: 0, do: "phase", name: "a"}, {at: 2 * sec, rank: 0, do: "phase", name: "b"},
			{at: 10 * sec, rank: 1, do: "phase", name: "a"},
		}, rank: 1, at: 12 * sec},
		{name: "set-up: a rank that never connects", n: 3, steps: []wdStep{
			{at: sec, rank: 0, do: "init"}, {at: sec, rank: 1, do: "init"},
			{at: 2 * sec, rank: 0, do: "barrier"}, {at: 2 * sec, rank: 1, do: "barrier"},
		}, rank: 2, at: 31 * sec, msg: []string{`rank 2 (pid 102, host h) is running (S) in phase "start-up (not connected to PMI)"`, `ranks 0,1 are waiting for it (in "PMI barrier 1")`}},
		{name: "set-up: a rank that never reaches the barrier", n: 3, steps: []wdStep{
			{at: sec, rank: 0, do: "init"}, {at: sec, rank: 1, do: "init"}, {at: sec, rank: 2, do: "init"},
			{at: 2 * sec, rank: 0, do: "barrier"}, {at: 2 * sec, rank: 2, do: "barrier"},
		}, rank: 1, at: 32 * sec, msg: []string{`rank 1 (pid 101, host h) is running (S) in phase "PMI set-up (connected, before its first barrier)"`, `ranks 0,2 are waiting for it (in "PMI barrier 1")`}},
		{name: "no PMI at all: an exit is no phase left", n: 2, steps: []wdStep{
			{at: sec, rank: 0, do: "finish"},
		}, rank: -1},
		{name: "finalize leaves the phase", n: 3, steps: []wdStep{
			{at: sec, rank: 0, do: "init"}, {at: sec, rank: 1, do: "init"}, {at: 3 * sec, rank: 2, do: "init"},
			{at: 2 * sec, rank: 0, do: "finish", name: "finalize"},
		}, rank: 1, at: 32 * sec, msg: []string{`in phase "PMI set-up`}},
		{name: "everyone left", n: 2, steps: []wdStep{
			{at: sec, rank: 0, do: "phase", name: "a"}, {at: sec, rank: 1, do: "phase", name: "a"},
			{at: 2 * sec, rank: 0, do: "phase", name: "b"}, {at: 3 * sec, rank: 1, do: "phase", name: "b"},
		}, rank: -1},
		{name: "stopped beats stalled", n: 3, steps: []wdStep{
			{at: sec, rank: 0, do: "phase", name: "a"}, {at: sec, rank: 1, do: "phase", name: "a"}, {at: sec, rank: 2, do: "phase", name: "a"},
			{at: 2 * sec, rank: 0, do: "phase", name: "b"}, {at: 3 * sec, rank: 1, do: "stop"},
		}, rank: 1, at: 13 * sec, msg: []string{`rank 1 (pid 101, host h) is stopped (SIGSTOP) in phase "a" iter 0 for 10.0 s`, `ranks 0,2 are waiting for it (0 in "b" iter 0; 2 in "a" iter 0)`}},
		// CI, under -race: rank 3 left the phase, then rank 2 stopped in
		// it; ranks 0 and 1, waiting in it for rank 2, reach the phase's
		// deadline with rank 2, before its stop's: rank 2 is blamed.
		{name: "stopped after a peer left: the phase's deadline, and blamed", n: 4, timeout: 2 * sec, steps: []wdStep{
			{at: sec, rank: 0, do: "phase", name: "a"}, {at: sec, rank: 1, do: "phase", name: "a"},
			{at: sec, rank: 2, do: "phase", name: "a"}, {at: sec, rank: 3, do: "phase", name: "a"},
			{at: 2 * sec, rank: 3, do: "phase", name: "b"}, {at: 2500 * time.Millisecond, rank: 2, do: "stop"},
		}, rank: 2, at: 4 * sec, msg: []string{`watchdog: rank 2 (pid 102, host h) is stopped (SIGSTOP) in phase "a" iter 0 for 1.5 s; ranks 0,1,3 are waiting for it (0,1 in "a" iter 0; 3 in "b" iter 0)`}},
		{name: "running ranks overdue, none stopped: they are blamed", n: 3, timeout: 2 * sec, steps: []wdStep{
			{at: sec, rank: 0, do: "phase", name: "a"}, {at: sec, rank: 1, do: "phase", name: "a"}, {at: sec, rank: 2, do: "phase", name: "a"},
			{at: 2 * sec, rank: 2, do: "phase", name: "b"},
		}, rank: 0, at: 4 * sec, msg: []string{`watchdog: rank 0 (pid 100, host h) is running (S) in phase "a" iter 0`, `; also rank 1 is running`, `rank 2 is waiting for them (in "b" iter 0)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Unix(1000, 0)
			w := newWatchdog(tc.n, tc.timeout)
			feed(w, t0, append(startAll(tc.n), tc.steps...))
			r, at, ok := w.next()
			if tc.rank < 0 {
				if ok {
					t.Fatalf("deadline for rank %d at %v, want none", r, at.Sub(t0))
				}
				return
			}
			// next's rank is the timer's; the one blamed is checked below.
			if !ok || !at.Equal(t0.Add(tc.at)) {
				t.Fatalf("next = rank %d at %v (ok %v), want rank %d at %v", r, at.Sub(t0), ok, tc.rank, tc.at)
			}
			if late := w.overdue(at.Add(-time.Millisecond)); len(late) != 0 {
				t.Errorf("overdue just before the deadline: %v", late)
			}
			late := w.blame(w.overdue(at))
			if len(late) == 0 || late[0] != tc.rank {
				t.Fatalf("overdue at the deadline = %v, want rank %d first", late, tc.rank)
			}
			msg := w.stallMessage(late, at, "h", func(r int) (int, string) { return 100 + r, "running (S)" })
			for _, want := range tc.msg {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q\nlacks %q", msg, want)
				}
			}
		})
	}
}

func TestWatchdogStates(t *testing.T) {
	t0 := time.Unix(1000, 0)
	w := newWatchdog(4, 0)
	feed(w, t0, append(startAll(4),
		wdStep{rank: 0, do: "phase", name: "write"}, wdStep{rank: 1, do: "phase", name: "write"},
		wdStep{rank: 2, do: "phase", name: "write"}, wdStep{rank: 3, do: "phase", name: "write"},
		wdStep{rank: 2, do: "stop"}, wdStep{rank: 3, do: "finish", name: "finalize"}))
	got := w.states(func(r int) (int, string) { return r, "running (R)" })
	want := `ranks 0,1 running in "write" iter 0; rank 2 stopped (SIGSTOP) in "write" iter 0`
	if got != want {
		t.Errorf("states = %q, want %q", got, want)
	}
}

func TestRankList(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{[]int{3}, "3"},
		{[]int{0, 1, 3}, "0,1,3"},
		{[]int{0, 1, 2, 3, 4, 9}, "0-4,9"},
		{[]int{1, 2, 3, 5, 6, 7, 8}, "1,2,3,5-8"},
	} {
		if got := rankList(tc.in); got != tc.want {
			t.Errorf("rankList(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
