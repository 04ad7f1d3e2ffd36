// Package procstat reads a process's state from /proc/PID/stat, for the
// watchdogs that name a stopped or dead rank: the launcher's, and the ranks'
// own under a launcher that has none.
package procstat

import (
	"bytes"
	"os"
	"strconv"
)

// Stat is what the watchdogs read of /proc/PID/stat.
type Stat struct {
	// State is the state letter (R, S, D, T, t, Z, X, ...); '?' when the
	// file could not be read or parsed.
	State byte
	// Start is the process's start time in clock ticks after boot (field
	// 22): with the pid, it names one process, whatever reuses the pid
	// later. 0 when unknown.
	Start uint64
}

// Stopped reports a stop by a signal (T) or by a tracer (t).
func (s Stat) Stopped() bool { return s.State == 'T' || s.State == 't' }

// Exited reports a process that has exited and is not yet reaped (Z) or
// is being reaped (X).
func (s Stat) Exited() bool { return s.State == 'Z' || s.State == 'X' }

// Read reads /proc/PID/stat; ok is false when the process is gone. A file
// that cannot be read for another reason, or parsed, gives State '?'.
func Read(pid int) (st Stat, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{State: '?'}, !os.IsNotExist(err)
	}
	return Parse(b), true
}

// Parse parses the text of a /proc/PID/stat file.
func Parse(b []byte) Stat {
	// The state follows the command name, which is in parentheses and
	// may itself contain ") ".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return Stat{State: '?'}
	}
	c := b[i+2]
	if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
		return Stat{State: '?'}
	}
	st := Stat{State: c}
	// After ") ": state (field 3), then fields 4 ...; start time is 22.
	f := bytes.Fields(b[i+2:])
	if len(f) >= 20 {
		st.Start, _ = strconv.ParseUint(string(f[19]), 10, 64)
	}
	return st
}

// State reads the state letter of /proc/PID/stat; ok is false when the
// process is gone.
func State(pid int) (state byte, ok bool) {
	st, ok := Read(pid)
	return st.State, ok
}

// Describe words a state letter for the watchdogs' messages: "running (S)",
// "stopped (T)", "gone" (ok false).
func Describe(st byte, ok bool) string {
	switch {
	case !ok:
		return "gone"
	case st == 'T':
		return "stopped (T)"
	case st == 't':
		return "stopped by a tracer (t)"
	case st == 'D':
		return "in uninterruptible I/O (D)"
	case st == 'Z' || st == 'X':
		return "exited (" + string(st) + ")"
	}
	return "running (" + string(st) + ")"
}

// OOMKills reads the kernel's count of processes its OOM killer has killed
// since boot, the oom_kill line of /proc/vmstat (memory cgroups' kills
// included); ok is false on a kernel without it (before 4.13).
func OOMKills() (n uint64, ok bool) {
	b, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		return 0, false
	}
	return ParseOOMKills(b)
}

// ParseOOMKills finds the oom_kill count in the text of /proc/vmstat.
func ParseOOMKills(b []byte) (uint64, bool) {
	for line := range bytes.Lines(b) {
		if v, found := bytes.CutPrefix(line, []byte("oom_kill ")); found {
			n, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
