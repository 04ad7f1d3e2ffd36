package pmi

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestEnginePhaseNotes: with Notes, init, barrier entry, phase reports and
// finalize each give one OutNote; a phase report is accepted while the rank
// waits in a barrier and dropped after finalize, and never fails the job.
// Without Notes a phase report is silently dropped.
func TestEnginePhaseNotes(t *testing.T) {
	kinds := func(outs []Out) []Note {
		var n []Note
		for _, o := range outs {
			if o.Kind == OutFail {
				t.Fatalf("unexpected failure: %v", o.Err)
			}
			if o.Kind == OutNote {
				n = append(n, o.Note)
			}
		}
		return n
	}
	for _, notes := range []bool{true, false} {
		e, err := NewEngine(EngineConfig{Size: 2, KVSName: "kvs_t", ProcessMapping: "(vector,(0,1,2))", Notes: notes})
		if err != nil {
			t.Fatal(err)
		}
		var got []Note
		got = append(got, kinds(e.Handle(0, "cmd=init pmi_version=1 pmi_subversion=1"))...)
		got = append(got, kinds(e.Handle(0, "cmd=barrier_in"))...)
		got = append(got, kinds(e.Handle(0, "cmd=hpcbench_phase name=file%20creation iter=3"))...)
		got = append(got, kinds(e.Handle(0, "cmd=hpcbench_phase name=x iter=notanumber"))...)
		got = append(got, kinds(e.Handle(1, "cmd=init pmi_version=1 pmi_subversion=1"))...)
		got = append(got, kinds(e.Handle(1, "cmd=barrier_in"))...)
		e.BarrierDone(0)
		got = append(got, kinds(e.Handle(1, "cmd=finalize"))...)
		got = append(got, kinds(e.Handle(1, "cmd=hpcbench_phase name=late iter=0"))...)
		want := []Note{
			{Rank: 0, Kind: NoteInit},
			{Rank: 0, Kind: NoteBarrier},
			{Rank: 0, Kind: NotePhase, Phase: "file creation", Iter: 3},
			{Rank: 1, Kind: NoteInit},
			{Rank: 1, Kind: NoteBarrier},
			{Rank: 1, Kind: NoteFinalize},
		}
		if !notes {
			want = nil
		}
		if len(got) != len(want) {
			t.Fatalf("notes=%v: got %+v, want %+v", notes, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("notes=%v: note %d: got %+v, want %+v", notes, i, got[i], want[i])
			}
		}
	}
}

// TestClientSendPhase: SendPhase from another goroutine while the main one
// waits in a barrier reaches the server's Notify, the barrier completes and
// the job ends cleanly.
func TestClientSendPhase(t *testing.T) {
	var mu sync.Mutex
	var got []Note
	srv, err := NewServer(ServerConfig{
		Engine: EngineConfig{Size: 2, KVSName: "kvs_t", ProcessMapping: "(vector,(0,1,2))"},
		Notify: func(n Note) { mu.Lock(); got = append(got, n); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	envs := make([]map[string]string, 2)
	for r := range 2 {
		fd, err := syscall.Dup(int(srv.ClientFile(r).Fd()))
		if err != nil {
			t.Fatal(err)
		}
		srv.CloseClientFile(r)
		envs[r] = map[string]string{"PMI_FD": strconv.Itoa(fd), "PMI_RANK": strconv.Itoa(r), "PMI_SIZE": "2"}
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for r := range 2 {
		wg.Go(func() {
			c, err := Connect(ctx, ClientOptions{Getenv: mapEnv(envs[r])})
			if err != nil {
				errs[r] = err
				return
			}
			defer c.Close()
			if r == 1 {
				time.Sleep(100 * time.Millisecond) // rank 0 waits in the barrier meanwhile
			}
			var pw sync.WaitGroup
			pw.Go(func() {
				if err := c.SendPhase("file creation", r); err != nil {
					t.Errorf("rank %d: SendPhase: %v", r, err)
				}
			})
			if err := c.Barrier(ctx); err != nil {
				errs[r] = err
			}
			pw.Wait()
			if err := c.Finalize(ctx); err != nil && errs[r] == nil {
				errs[r] = err
			}
			if err := c.SendPhase("after", 0); err != nil {
				t.Errorf("rank %d: SendPhase after finalize: %v", r, err)
			}
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("server: %v", err)
	}
	phases := map[int]Note{}
	for _, n := range got {
		if n.Kind == NotePhase {
			phases[n.Rank] = n
		}
	}
	for r := range 2 {
		if n := phases[r]; n.Phase != "file creation" || n.Iter != r {
			t.Errorf("rank %d: phase note %+v, want \"file creation\" iter %d (all notes: %+v)", r, n, r, got)
		}
	}
}

// TestEnginePhaseAmounts: a report with done and total gives a note with
// the amount; one whose amount does not parse keeps the phase and drops
// the amount; one without is a phase alone.
func TestEnginePhaseAmounts(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Note
	}{
		{phaseLine("write", 2, 412<<20, 1<<30), Note{Kind: NotePhase, Phase: "write", Iter: 2, Amount: true, Done: 412 << 20, Total: 1 << 30}},
		{phaseLine("file creation", 0, 250, 0), Note{Kind: NotePhase, Phase: "file creation", Amount: true, Done: 250}},
		{phaseLine("read", 1, -1, 5), Note{Kind: NotePhase, Phase: "read", Iter: 1}},
		{"cmd=hpcbench_phase name=read iter=1 done=9223372036854775807 total=9223372036854775807", Note{Kind: NotePhase, Phase: "read", Iter: 1, Amount: true, Done: 1<<63 - 1, Total: 1<<63 - 1}},
		{"cmd=hpcbench_phase name=read iter=1 done=9223372036854775808 total=1", Note{Kind: NotePhase, Phase: "read", Iter: 1}},
		{"cmd=hpcbench_phase name=read iter=1 done=-3 total=10", Note{Kind: NotePhase, Phase: "read", Iter: 1}},
		{"cmd=hpcbench_phase name=read iter=1 done=3", Note{Kind: NotePhase, Phase: "read", Iter: 1}},
		{"cmd=hpcbench_phase name=read iter=1 done=x total=10", Note{Kind: NotePhase, Phase: "read", Iter: 1}},
	} {
		e, err := NewEngine(EngineConfig{Size: 1, KVSName: "kvs_t", ProcessMapping: "(vector,(0,1,1))", Notes: true})
		if err != nil {
			t.Fatal(err)
		}
		outs := e.Handle(0, tc.line)
		if len(outs) != 1 || outs[0].Kind != OutNote || outs[0].Note != tc.want {
			t.Errorf("%q gives %+v, want one note %+v", tc.line, outs, tc.want)
		}
	}
}

// FuzzPhaseReport: every report SendProgress can send is one valid PMI-1
// line that the launcher's engine turns into exactly one note, with the
// iteration and the amount it was sent with, and never a failure of the
// job; and any line of the phase command, whatever its fields, gives at
// most a note (or, when it is not key=value pairs, the parser's failure)
// and never panics.
func FuzzPhaseReport(f *testing.F) {
	f.Add("write", 0, int64(412<<20), int64(1<<30), "name=x iter=1 done=2 total=3")
	f.Add("file creation", 3, int64(-1), int64(0), "name=%zz iter=-1 done=+4 total=")
	f.Add(strings.Repeat("é ", 150), 1<<30, int64(1<<62), int64(0), "done=1 total=1")
	f.Fuzz(func(t *testing.T, name string, iter int, done, total int64, raw string) {
		if iter < -999999999 || iter > 999999999 {
			return // the wire's integers have nine digits at most
		}
		line := phaseLine(name, iter, max(done, 0), max(total, 0))
		if _, err := ParseLine(line); err != nil {
			t.Fatalf("%q does not parse: %v", line, err)
		}
		e, err := NewEngine(EngineConfig{Size: 1, KVSName: "kvs_t", ProcessMapping: "(vector,(0,1,1))", Notes: true})
		if err != nil {
			t.Fatal(err)
		}
		outs := e.Handle(0, line)
		if len(outs) != 1 || outs[0].Kind != OutNote {
			t.Fatalf("%q gives %+v, want one note", line, outs)
		}
		n := outs[0].Note
		if n.Iter != iter || !n.Amount || n.Done != max(done, 0) || n.Total != max(total, 0) {
			t.Errorf("%q gives %+v", line, n)
		}
		if len(name) <= maxPhaseName/3 && n.Phase != name {
			t.Errorf("%q gives phase %q, want %q", line, n.Phase, name)
		}
		if strings.ContainsAny(raw, "\r\n") {
			return
		}
		for _, o := range e.Handle(0, "cmd="+PhaseCommand+" "+raw) {
			switch {
			case o.Kind == OutNote && o.Note.Amount && (o.Note.Done < 0 || o.Note.Total < 0):
				t.Errorf("%q gives a negative amount: %+v", raw, o.Note)
			case o.Kind != OutNote && o.Kind != OutFail:
				t.Errorf("%q gives %+v", raw, o)
			}
		}
	})
}
