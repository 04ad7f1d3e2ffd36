package launch

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestAbortHold: while an abort is held back, peers exiting with an error
// of their own (they noticed the same death) do not end the hold, and the
// dead rank's signal, arriving last, is named as the cause.
func TestAbortHold(t *testing.T) {
	jb := newJob(Options{N: 4, Grace: time.Second}, &lineWriter{w: io.Discard}, &noteBox{})
	jb.pending = 4
	jb.fail = &Failure{Rank: 3, Code: 1, Msg: "launch: rank 3 called abort with exit code 1", abort: true}
	jb.statusWait = time.After(time.Hour)
	const exit1 = syscall.WaitStatus(1 << 8)
	jb.handle(procEvent{kind: evExited, rank: 3, status: exit1})
	jb.handle(procEvent{kind: evExited, rank: 1, status: exit1})
	if jb.tornDown {
		t.Fatal("an error exit during the abort hold tore the job down")
	}
	jb.handle(procEvent{kind: evExited, rank: 2, status: syscall.WaitStatus(syscall.SIGKILL)})
	if jb.fail.Rank != 2 || jb.fail.Code != 137 || !jb.tornDown {
		t.Errorf("fail = %+v tornDown %v, want rank 2 killed by signal 9 and a teardown", jb.fail, jb.tornDown)
	}
}

func TestProcDead(t *testing.T) {
	if procDead(os.Getpid()) {
		t.Error("procDead(self) = true")
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !procDead(cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("an exited, unreaped child is not seen as dead")
		}
		time.Sleep(time.Millisecond)
	}
	cmd.Wait()
	if !procDead(cmd.Process.Pid) {
		t.Error("a reaped child is not seen as dead")
	}
}

// TestOOMNote: a rank dead of a SIGKILL the launcher did not send, while
// the kernel's OOM-kill count rose, is said to have met the OOM killer;
// not when the count stayed, nor when the SIGKILL was the launcher's.
func TestOOMNote(t *testing.T) {
	const note = ": out of memory? the kernel's OOM killer killed 1 process during the job (oom_kill 5 -> 6 in /proc/vmstat)"
	for _, tc := range []struct {
		name   string
		after  uint64
		ok     bool
		status syscall.WaitStatus
		want   string
	}{
		{"OOM-killed", 6, true, syscall.WaitStatus(syscall.SIGKILL), "launch: rank 1 was killed by SIGKILL (signal 9)" + note},
		{"SIGKILL, no OOM kill", 5, true, syscall.WaitStatus(syscall.SIGKILL), "launch: rank 1 was killed by SIGKILL (signal 9)"},
		{"no count on this kernel", 0, false, syscall.WaitStatus(syscall.SIGKILL), "launch: rank 1 was killed by SIGKILL (signal 9)"},
		{"another signal", 6, true, syscall.WaitStatus(syscall.SIGSEGV), "launch: rank 1 was killed by SIGSEGV (signal 11)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reads := []uint64{5, tc.after}
			jb := newJobWith(Options{N: 2}, &lineWriter{w: io.Discard}, &noteBox{}, func() (uint64, bool) {
				v := reads[0]
				if len(reads) > 1 {
					reads = reads[1:]
				}
				return v, v == 5 || tc.ok
			})
			jb.pending = 2
			jb.handle(procEvent{kind: evExited, rank: 1, status: tc.status})
			if jb.fail == nil || jb.fail.Msg != tc.want {
				t.Errorf("fail = %+v\nwant %q", jb.fail, tc.want)
			}
		})
	}
}
