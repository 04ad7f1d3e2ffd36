package procstat

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Stat
	}{
		{"26578 (cat) R 26573 26573 1831 0 -1 4194304 125 0 0 0 0 0 0 0 20 0 1 0 6593626 3133440 412", Stat{'R', 6593626}},
		{"7 (a) b) (c) T 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0", Stat{'T', 42}}, // ") " in the name
		{"7 (short) S 1 2", Stat{State: 'S'}},
		{"garbage", Stat{State: '?'}},
		{"7 (x)", Stat{State: '?'}},
	} {
		if got := Parse([]byte(tc.in)); got != tc.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestReadStopped(t *testing.T) {
	// /proc/PID/stat is the process's main thread, which may be asleep
	// (S) while another thread runs this test: running or sleeping, never
	// stopped or exited.
	st, ok := Read(os.Getpid())
	if !ok || (st.State != 'R' && st.State != 'S') || st.Stopped() || st.Exited() || st.Start == 0 {
		t.Fatalf("Read(self) = %+v, %v; want running or sleeping, with a start time", st, ok)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, ok := Read(cmd.Process.Pid)
		if ok && st.Stopped() {
			if got := Describe(st.State, ok); got != "stopped (T)" {
				t.Errorf("Describe = %q", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a SIGSTOPped child reads %+v, %v", st, ok)
		}
		time.Sleep(time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, ok := Read(cmd.Process.Pid); ok {
		t.Error("a reaped child still reads")
	}
	if got := Describe('?', false); got != "gone" {
		t.Errorf("Describe(gone) = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("26578 (cat) R 26573 26573 1831 0 -1 4194304 125 0 0 0 0 0 0 0 20 0 1 0 6593626 3133440 412")
	f.Add("1 ()) ) T")
	f.Fuzz(func(t *testing.T, s string) {
		st := Parse([]byte(s))
		if st.State == 0 {
			t.Fatalf("Parse(%q) gave no state letter", s)
		}
	})
}

func TestParseOOMKills(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"pgfault 10\noom_kill 3\nnr_free_pages 1\n", 3, true},
		{"oom_kill 0", 0, true},
		{"pgfault 10\n", 0, false},
		{"oom_kill x\n", 0, false},
		{"oom_kills 4\n", 0, false},
	} {
		got, ok := ParseOOMKills([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseOOMKills(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := OOMKills(); !ok {
		t.Error("this kernel's /proc/vmstat has no oom_kill line (Linux 4.13 and later have it)")
	}
}
