package launch

import (
	"bytes"
	"os"
	"strconv"
)

// anyZombie reports whether a rank not yet reported exited is already dead:
// a zombie its spawner has not reaped, or gone from /proc because the
// spawner reaped it and its report is still in flight.
func (jb *job) anyZombie() bool {
	for r, pid := range jb.pids {
		if pid > 0 && !jb.exited[r] && procDead(pid) {
			return true
		}
	}
	return false
}

// procDead reads /proc/PID/stat: true for state Z or X, or no such process.
func procDead(pid int) bool {
	st, ok := procState(pid)
	return !ok || st == 'Z' || st == 'X'
}

// procState reads the state letter of /proc/PID/stat (R, S, D, T, t, Z,
// ...); ok is false when the process is gone. An unreadable or
// unexpected file gives '?'.
func procState(pid int) (state byte, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return '?', !os.IsNotExist(err)
	}
	// The state follows the command name, which is in parentheses and
	// may itself contain ") ".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return '?', true
	}
	return b[i+2], true
}

// describeState words a state letter for the watchdog's messages.
func describeState(st byte, ok bool) string {
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
