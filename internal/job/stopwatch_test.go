package job

import (
	"os"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/procstat"
)

func TestWatchedRank(t *testing.T) {
	cards := []card{{host: "a"}, {host: "b"}, {host: "a"}, {host: "a"}, {host: "c"}}
	for _, tc := range []struct {
		rank, want int
		ok         bool
	}{
		{0, 2, true}, {2, 3, true}, {3, 0, true}, // host a: 0 -> 2 -> 3 -> 0
		{1, 0, false}, {4, 0, false}, // alone on b, c
	} {
		got, ok := watchedRank(cards, tc.rank)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("watchedRank(%d) = %d, %v; want %d, %v", tc.rank, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := watchedRank([]card{{host: "a"}}, 0); ok {
		t.Error("a singleton watches someone")
	}
}

// TestStopTracker feeds a tracker reads of its process at fake times.
func TestStopTracker(t *testing.T) {
	const sec = time.Second
	type read struct {
		at    time.Duration
		state byte
		start uint64 // 0: the watched one's
		gone  bool   // no such process
	}
	for _, tc := range []struct {
		name  string
		reads []read
		// what the last read gives
		stopped time.Duration
		fire    bool
		gone    bool
	}{
		{name: "running", reads: []read{{at: sec, state: 'S'}, {at: 2 * sec, state: 'R'}}},
		{name: "stopped, short of the deadline", reads: []read{{at: sec, state: 'T'}, {at: 5 * sec, state: 'T'}, {at: 9 * sec, state: 'T'}}, stopped: 8 * sec},
		{name: "stopped for the deadline", reads: []read{{at: sec, state: 'T'}, {at: 6 * sec, state: 'T'}, {at: 11 * sec, state: 'T'}}, stopped: 10 * sec, fire: true},
		{name: "a tracer's stop counts", reads: []read{{at: sec, state: 't'}, {at: 6 * sec, state: 't'}, {at: 11 * sec, state: 't'}}, stopped: 10 * sec, fire: true},
		{name: "continued in between: counted from the new stop", reads: []read{{at: sec, state: 'T'}, {at: 5 * sec, state: 'S'}, {at: 6 * sec, state: 'T'}, {at: 11 * sec, state: 'T'}}, stopped: 5 * sec},
		{name: "the watcher missed reads (itself stopped): counted from its next", reads: []read{{at: sec, state: 'T'}, {at: 30 * sec, state: 'T'}}, stopped: 0},
		{name: "exited", reads: []read{{at: sec, state: 'T'}, {at: 2 * sec, state: 'Z'}}, gone: true},
		{name: "reaped", reads: []read{{at: sec, state: 'S'}, {at: 2 * sec, gone: true}}, gone: true},
		{name: "the pid names another process", reads: []read{{at: sec, state: 'T', start: 99}}, gone: true},
		{name: "unreadable: unknown, not another process", reads: []read{{at: sec, state: '?', start: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Unix(1000, 0)
			tr := &stopTracker{want: proc{pid: 5, start: 777}, deadline: 10 * sec, maxGap: 6 * sec}
			var stopped time.Duration
			var fire, gone bool
			for _, r := range tc.reads {
				st := procstat.Stat{State: r.state, Start: 777}
				if r.start != 0 {
					st.Start = r.start
				}
				stopped, fire, gone = tr.see(st, !r.gone, t0.Add(r.at))
			}
			if stopped != tc.stopped || fire != tc.fire || gone != tc.gone {
				t.Errorf("stopped %v fire %v gone %v; want %v %v %v", stopped, fire, gone, tc.stopped, tc.fire, tc.gone)
			}
		})
	}
}

func TestSelfProc(t *testing.T) {
	p := selfProc()
	st, ok := procstat.Read(os.Getpid())
	if p.pid != os.Getpid() || !ok || p.start == 0 || st.Start != p.start {
		t.Errorf("selfProc = %+v; /proc says %+v, %v", p, st, ok)
	}
	back, err := parseProc(p.String())
	if err != nil || back != p {
		t.Errorf("round trip %q: %+v, %v", p.String(), back, err)
	}
}

func FuzzParseCard(f *testing.F) {
	f.Add("host/boot pid:42.7 shm://x/y tcp://1.2.3.4:5")
	f.Add("h pid:1.0")
	f.Add("")
	f.Add("h pid:.")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseCard(s)
		if err != nil {
			return
		}
		if c.proc.pid <= 0 || c.host == "" {
			t.Fatalf("parseCard(%q) = %+v without an error", s, c)
		}
		again, err := parseCard(c.String())
		if err != nil || again.host != c.host || again.proc != c.proc || len(again.addrs) != len(c.addrs) {
			t.Fatalf("round trip of %q: %+v, %v", s, again, err)
		}
	})
}
