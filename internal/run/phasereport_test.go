package run

import (
	"context"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/job"
	"github.com/hpcbench/hpcbench/pmi"
)

// ownLauncher is a job of one rank under a PMI server that names itself
// hpcbench's own launcher (its KVS name in HPCBENCH_LAUNCHER_KVS), and
// the notes the server took.
type ownLauncher struct {
	j      *job.Job
	single *pmi.Client // a singleton, for comparison
	mu     sync.Mutex
	notes  []pmi.Note
	done   chan error
}

func startOwnLauncher(t *testing.T) *ownLauncher {
	t.Helper()
	o := &ownLauncher{done: make(chan error, 1)}
	srv, err := pmi.NewServer(pmi.ServerConfig{
		Engine: pmi.EngineConfig{Size: 1, KVSName: "kvs_ours", ProcessMapping: "(vector,(0,1,1))"},
		Notify: func(n pmi.Note) {
			o.mu.Lock()
			o.notes = append(o.notes, n)
			o.mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Dup(int(srv.ClientFile(0).Fd()))
	if err != nil {
		t.Fatal(err)
	}
	srv.CloseClientFile(0)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	go func() { o.done <- srv.Run(ctx) }()
	env := map[string]string{"PMI_FD": strconv.Itoa(fd), "PMI_RANK": "0", "PMI_SIZE": "1", pmi.EnvLauncherKVS: "kvs_ours"}
	c, err := pmi.Connect(ctx, pmi.ClientOptions{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	if o.single, err = pmi.Connect(ctx, pmi.ClientOptions{Getenv: func(string) (string, bool) { return "", false }}); err != nil {
		t.Fatal(err)
	}
	o.j = &job.Job{PMI: c}
	return o
}

// finish finalizes the rank, waits for the server and returns the phase
// notes it took.
func (o *ownLauncher) finish(t *testing.T) []pmi.Note {
	t.Helper()
	if err := o.j.PMI.Finalize(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := <-o.done; err != nil {
		t.Fatal(err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var phases []pmi.Note
	for _, n := range o.notes {
		if n.Kind == pmi.NotePhase {
			n.Rank = 0
			phases = append(phases, n)
		}
	}
	return phases
}

// TestLauncherPhase: under hpcbench's own launcher the hook sends one
// report per change of phase name or iteration, however often the engine
// reports progress; a singleton gets no hook (other servers: pmi's
// TestOwnLauncher).
func TestLauncherPhase(t *testing.T) {
	o := startOwnLauncher(t)
	if launcherPhase(&job.Job{PMI: o.single}, true) != nil {
		t.Error("a hook for a singleton")
	}
	hook := launcherPhase(o.j, false)
	if hook == nil {
		t.Fatal("no hook under our own launcher")
	}
	for done := range int64(5) {
		hook("write", 0, done, 5)
	}
	hook("read", 0, 0, 5)
	hook("read", 0, 3, 5)
	hook("write", 1, 0, 5)
	var got []string
	for _, n := range o.finish(t) {
		got = append(got, n.Phase+" "+strconv.Itoa(n.Iter))
	}
	if want := []string{"write 0", "read 0", "write 1"}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("phase reports %q, want %q", got, want)
	}
}

// TestLauncherProgress: with amounts (the first rank, when the launcher
// shows the job's progress) every change of phase goes at once with its
// amount, and the progress within a phase at most once per
// progressEvery, and only when it moved; the clock is a fake one.
func TestLauncherProgress(t *testing.T) {
	o := startOwnLauncher(t)
	p := &phaseReporter{j: o.j, amounts: true}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	type call struct {
		after       time.Duration // on the fake clock, since the last call
		name        string
		iter        int
		done, total int64
	}
	for _, c := range []call{
		{0, "write", 0, 0, 100},
		{100 * time.Millisecond, "write", 0, 10, 100}, // too soon
		{100 * time.Millisecond, "write", 0, 20, 100}, // too soon
		{100 * time.Millisecond, "write", 0, 30, 100}, // 300 ms: sent
		{300 * time.Millisecond, "write", 0, 30, 100}, // not moved
		{10 * time.Millisecond, "write", 0, 90, 100},  // 310 ms since 30: sent
		{10 * time.Millisecond, "write", 0, 100, 100}, // too soon: the next phase says the end
		{10 * time.Millisecond, "read", 0, 0, 100},    // a new phase: at once
		{10 * time.Millisecond, "read", 1, 0, 100},    // a new iteration: at once
		{time.Second, "file creation", 1, 250, 0},     // total not known
		{time.Second, "file creation", 1, 500, 0},     // sent
	} {
		now = now.Add(c.after)
		p.phase(c.name, c.iter, c.done, c.total)
	}
	want := []pmi.Note{
		{Kind: pmi.NotePhase, Phase: "write", Amount: true, Done: 0, Total: 100},
		{Kind: pmi.NotePhase, Phase: "write", Amount: true, Done: 30, Total: 100},
		{Kind: pmi.NotePhase, Phase: "write", Amount: true, Done: 90, Total: 100},
		{Kind: pmi.NotePhase, Phase: "read", Amount: true, Done: 0, Total: 100},
		{Kind: pmi.NotePhase, Phase: "read", Iter: 1, Amount: true, Done: 0, Total: 100},
		{Kind: pmi.NotePhase, Phase: "file creation", Iter: 1, Amount: true, Done: 250},
		{Kind: pmi.NotePhase, Phase: "file creation", Iter: 1, Amount: true, Done: 500},
	}
	got := o.finish(t)
	if len(got) != len(want) {
		t.Fatalf("reports %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("report %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
