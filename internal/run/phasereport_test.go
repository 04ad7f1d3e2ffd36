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

// TestLauncherPhase: under hpcbench's own launcher (its KVS name in
// HPCBENCH_LAUNCHER_KVS) the hook sends one report per change of phase
// name or iteration, however often the engine reports progress; a
// singleton gets no hook (other servers: pmi's TestOwnLauncher).
func TestLauncherPhase(t *testing.T) {
	var mu sync.Mutex
	var notes []pmi.Note
	srv, err := pmi.NewServer(pmi.ServerConfig{
		Engine: pmi.EngineConfig{Size: 1, KVSName: "kvs_ours", ProcessMapping: "(vector,(0,1,1))"},
		Notify: func(n pmi.Note) {
			mu.Lock()
			notes = append(notes, n)
			mu.Unlock()
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
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	env := map[string]string{"PMI_FD": strconv.Itoa(fd), "PMI_RANK": "0", "PMI_SIZE": "1", pmi.EnvLauncherKVS: "kvs_ours"}
	c, err := pmi.Connect(ctx, pmi.ClientOptions{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	single, err := pmi.Connect(ctx, pmi.ClientOptions{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	if launcherPhase(&job.Job{PMI: single}) != nil {
		t.Error("a hook for a singleton")
	}
	j := &job.Job{PMI: c}
	hook := launcherPhase(j)
	if hook == nil {
		t.Fatal("no hook under our own launcher")
	}
	for done := range int64(5) {
		hook("write", 0, done, 5)
	}
	hook("read", 0, 0, 5)
	hook("read", 0, 3, 5)
	hook("write", 1, 0, 5)
	if err := c.Finalize(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range notes {
		if n.Kind == pmi.NotePhase {
			got = append(got, n.Phase+" "+strconv.Itoa(n.Iter))
		}
	}
	if want := []string{"write 0", "read 0", "write 1"}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("phase reports %q, want %q", got, want)
	}
}
